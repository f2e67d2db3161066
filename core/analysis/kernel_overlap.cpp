#include "core/analysis/kernel_overlap.h"

#include <algorithm>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "core/analysis/columns.h"
#include "core/analysis/overlap.h"

namespace strobe::core {

namespace {

struct Span {
    TimeNs s = 0, e = 0;
    uint32_t row = 0;
};

// One device's computation kernels against its communication kernels, both in start order. Communication kernels
// that started at or before the kernel's start and are still running form the active list (a few: one per
// communication stream); those starting inside the kernel follow in start order. The overlapped time comes from
// the merged communication intervals, so collectives overlapping each other count once.
void sweepDevice(const std::vector<Span>& comm, const std::vector<Span>& comp, RankKernelOverlap& out) {
    std::vector<Interval> iv(comm.size());
    for (size_t i = 0; i < comm.size(); ++i) iv[i] = {comm[i].s, comm[i].e};
    const std::vector<Interval> merged = mergeSortedIntervals(iv);
    std::vector<size_t> active;
    size_t next = 0, m = 0;
    for (const Span& k : comp) {
        while (next < comm.size() && comm[next].s <= k.s) active.push_back(next++);
        std::erase_if(active, [&](size_t j) { return comm[j].e <= k.s; });
        KernelOverlap ko;
        ko.row = k.row;
        ko.start = k.s;
        ko.end = k.e;
        ko.firstComm = static_cast<uint32_t>(out.comms.size());
        auto add = [&](size_t j) {
            const TimeNs ov = std::min(k.e, comm[j].e) - std::max(k.s, comm[j].s);
            if (ov > 0) out.comms.push_back({comm[j].row, ov});
        };
        for (size_t j : active) add(j);
        for (size_t j = next; j < comm.size() && comm[j].s < k.e; ++j) add(j);
        ko.commCount = static_cast<uint32_t>(out.comms.size() - ko.firstComm);
        while (m < merged.size() && merged[m].end <= k.s) ++m;
        for (size_t q = m; q < merged.size() && merged[q].start < k.e; ++q)
            ko.overlappedNs += std::max<TimeNs>(0, std::min(k.e, merged[q].end) - std::max(k.s, merged[q].start));
        out.kernels.push_back(ko);
    }
}

}  // namespace

RankKernelOverlap kernelOverlapOf(const RankWindow& w) {
    RankKernelOverlap out;
    out.rank = w.rank;
    out.rankIndex = w.rankIndex;
    out.data = w.data;
    if (!w.data) return out;
    const auto& device = w.data->gpu.device;
    const bool hasDevice = device.size() == w.data->gpu.size();
    // Per device (in the window's start order): its communication and computation kernels.
    std::map<int, std::pair<std::vector<Span>, std::vector<Span>>> byDevice;
    for (size_t i = 0; i < w.size(); ++i) {
        const HtaType t = w.type[i];
        if (t != HtaType::Communication && t != HtaType::Computation) continue;
        auto& lists = byDevice[hasDevice ? int(device[w.row[i]]) : 0];
        (t == HtaType::Communication ? lists.first : lists.second).push_back({w.start[i], w.end[i], w.row[i]});
    }
    for (const auto& [dev, lists] : byDevice) sweepDevice(lists.first, lists.second, out);
    if (byDevice.size() > 1)
        std::stable_sort(out.kernels.begin(), out.kernels.end(), [](const KernelOverlap& a, const KernelOverlap& b) {
            return a.start != b.start ? a.start < b.start : a.end < b.end;
        });
    return out;
}

Result<std::vector<RankKernelOverlap>> kernelOverlap(AnalysisContext& ctx, const WindowSpec& window) {
    auto sel = ctx.select(window);
    if (!sel) return sel.error();
    std::vector<RankKernelOverlap> out;
    for (const RankWindow& w : sel.value()->ranks) out.push_back(kernelOverlapOf(w));
    return out;
}

namespace {

struct KernelOverlapAcc {
    uint64_t instances = 0;
    TimeNs totalNs = 0, overlappedNs = 0;
    std::vector<double> alone, overlapped;  // durations
};

struct Config {
    std::string key;
    std::map<std::string, std::string> parameters;
    size_t steps = 0;  // kept steps over its repeats
    std::map<std::string, KernelOverlapAcc> groups;
};

// The window of one run: everything, or its steps after the first `skip` (numbers over all ranks).
struct RunWindow {
    WindowSpec spec;
    size_t steps = 1;
    bool ok = true;
};

RunWindow windowOf(AnalysisContext& ctx, const std::string& label, int skip, std::vector<std::string>& messages) {
    RunWindow out;
    std::set<int64_t> numbers;
    for (size_t ri = 0; ri < ctx.rankCount(); ++ri)
        for (const auto& s : ctx.steps(ri)) numbers.insert(s.number);
    if (numbers.empty()) {
        messages.push_back(fmt::format("{}: no ProfilerStep#N found; the whole run counts as one step", label));
        return out;
    }
    std::vector<int64_t> kept(numbers.begin(), numbers.end());
    kept.erase(kept.begin(), kept.begin() + std::min<ptrdiff_t>(skip, ptrdiff_t(kept.size())));
    if (kept.empty()) {
        messages.push_back(fmt::format("{}: --skip-steps {} leaves none of its {} steps", label, skip, numbers.size()));
        out.ok = false;
        return out;
    }
    out.steps = kept.size();
    if (skip > 0) out.spec = WindowSpec::stepList(std::move(kept));
    return out;
}

bool keeps(const KernelOverlapOptions& o, const RankData& r, uint32_t row) {
    if (!o.category) return true;
    return r.gpu.category.size() == r.gpu.size() && r.gpu.category[row] == *o.category;
}

std::optional<double> meanOf(const std::vector<double>& v) {
    if (v.empty()) return std::nullopt;
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

std::optional<double> medianOf(std::vector<double>& v) {
    if (v.empty()) return std::nullopt;
    std::sort(v.begin(), v.end());
    return stats::quantile(std::span<const double>(v), 0.5);
}

std::optional<double> ratio(const std::optional<double>& a, const std::optional<double>& b) {
    if (!a || !b || *b <= 0) return std::nullopt;
    return *a / *b;
}

OverlapGroupRow groupRow(const std::string& group, const Config& c, KernelOverlapAcc& a) {
    OverlapGroupRow row;
    row.group = group;
    row.config = c.key;
    row.parameters = c.parameters;
    row.instances = a.instances;
    row.overlappedInstances = a.overlapped.size();
    row.perStepNs = c.steps ? static_cast<double>(a.totalNs) / static_cast<double>(c.steps) : 0.0;
    row.totalNs = a.totalNs;
    row.overlappedNs = a.overlappedNs;
    row.overlappedShare = a.totalNs > 0 ? static_cast<double>(a.overlappedNs) / static_cast<double>(a.totalNs) : 0.0;
    row.meanOverlappedNs = meanOf(a.overlapped);
    row.meanAloneNs = meanOf(a.alone);
    row.medianOverlappedNs = medianOf(a.overlapped);
    row.medianAloneNs = medianOf(a.alone);
    row.slowdown = ratio(row.medianOverlappedNs, row.medianAloneNs);
    row.slowdownMean = ratio(row.meanOverlappedNs, row.meanAloneNs);
    return row;
}

// HTA's overlap of every rank of one run, pooled into its configuration's rows.
void poolRanks(const Table& t, size_t config, const Config& c, std::map<std::pair<size_t, int>, OverlapRankRow>& out) {
    for (size_t i = 0; i < t.rows.size(); ++i) {
        const int rank = static_cast<int>(Table::number(t.at(i, col::kRank), -1));
        OverlapRankRow& r = out[{config, rank}];
        r.config = c.key;
        r.parameters = c.parameters;
        r.rank = rank;
        ++r.runs;
        r.commNs += static_cast<TimeNs>(Table::number(t.at(i, col::kCommNs)));
        r.compNs += static_cast<TimeNs>(Table::number(t.at(i, col::kCompNs)));
        r.overlapNs += static_cast<TimeNs>(Table::number(t.at(i, col::kOverlapNs)));
    }
}

struct Pass {
    std::vector<Config> configs;
    std::vector<size_t> configOf;    // per run: index into configs (SIZE_MAX: skipped)
    std::vector<WindowSpec> window;  // per run
    std::map<std::pair<size_t, int>, OverlapRankRow> ranks;
};

// First pass: per configuration and group, the instances' durations and overlapped time; per rank, HTA's overlap.
Status accumulate(const RunSet& runs, const KernelOverlapOptions& o, const CancelToken* cancel,
                  Pass& p, std::vector<std::string>& messages) {
    p.configOf.assign(runs.size(), SIZE_MAX);
    p.window.resize(runs.size());
    for (size_t ri = 0; ri < runs.size(); ++ri) {
        if (cancel && cancel->cancelled()) return Error("cancelled");
        const RunEntry& run = runs[ri];
        if (!run.dataset) continue;
        auto ctx = AnalysisContext::of(run.dataset);
        const RunWindow rw = windowOf(*ctx, run.label, o.skipSteps, messages);
        if (!rw.ok) continue;
        auto ranks = kernelOverlap(*ctx, rw.spec);
        if (!ranks) return ranks.error();
        auto hta = commCompOverlap(*ctx, rw.spec);
        if (!hta) return hta.error();
        const std::string key = run.key();
        auto it = std::find_if(p.configs.begin(), p.configs.end(), [&](const Config& c) { return c.key == key; });
        if (it == p.configs.end()) it = p.configs.insert(p.configs.end(), Config{key, parameterTexts(run.parameters), 0, {}});
        const size_t ci = static_cast<size_t>(it - p.configs.begin());
        p.configOf[ri] = ci;
        p.window[ri] = rw.spec;
        it->steps += rw.steps;
        KernelGrouper grouper(o.groupBy, o.groupRegex);
        for (const RankKernelOverlap& r : ranks.value()) {
            for (const KernelOverlap& k : r.kernels) {
                if (!keeps(o, *r.data, k.row)) continue;
                KernelOverlapAcc& a = it->groups[grouper.of(*r.data, k.row)];
                ++a.instances;
                a.totalNs += k.dur();
                a.overlappedNs += k.overlappedNs;
                (k.overlappedNs > 0 ? a.overlapped : a.alone).push_back(static_cast<double>(k.dur()));
            }
        }
        poolRanks(hta.value(), ci, *it, p.ranks);
        for (const auto& m : hta->messages) messages.push_back(run.label + ": " + m);
    }
    return Ok{};
}

// The kept groups, largest time per step (in any configuration) first.
std::vector<std::string> keptGroups(const Pass& p, const KernelOverlapOptions& o, std::vector<std::string>& messages) {
    std::map<std::string, double> weight;
    for (const Config& c : p.configs)
        for (const auto& [g, a] : c.groups)
            weight[g] = std::max(weight[g], c.steps ? double(a.totalNs) / double(c.steps) : 0.0);
    if (!o.group.empty()) {
        if (weight.count(o.group)) return {o.group};
        messages.push_back(fmt::format("no kernel group named '{}' among the {}", o.group,
                                       o.category ? fmt::format("{} kernels", toString(*o.category))
                                                  : std::string("computation kernels")));
        return {};
    }
    std::vector<std::pair<double, std::string>> order;
    for (const auto& [g, w] : weight) order.emplace_back(-w, g);
    std::sort(order.begin(), order.end());
    if (o.top > 0 && order.size() > size_t(o.top)) order.resize(size_t(o.top));
    std::vector<std::string> out;
    for (auto& [w, g] : order) out.push_back(std::move(g));
    return out;
}

void listInstances(const RunSet& runs, const KernelOverlapOptions& o, const Pass& p,
                   const std::set<std::string>& kept, SweepKernelOverlap& out) {
    for (size_t ri = 0; ri < runs.size(); ++ri) {
        if (p.configOf[ri] == SIZE_MAX) continue;
        auto ranks = kernelOverlap(*AnalysisContext::of(runs[ri].dataset), p.window[ri]);
        if (!ranks) continue;
        KernelGrouper grouper(o.groupBy, o.groupRegex);
        for (const RankKernelOverlap& r : ranks.value()) {
            for (const KernelOverlap& k : r.kernels) {
                if (!keeps(o, *r.data, k.row)) continue;
                const std::string& g = grouper.of(*r.data, k.row);
                if (!kept.count(g)) continue;
                OverlapInstanceRow row{g, ri, p.configs[p.configOf[ri]].key, r.rank, k.start, k.dur(), k.overlappedNs, {}};
                for (const CommOverlap& c : r.commsOf(k))
                    row.collectives.push_back({r.data->strings.view(r.data->gpu.name[c.row]), c.overlapNs});
                out.instances.push_back(std::move(row));
            }
        }
    }
}

}  // namespace

Result<SweepKernelOverlap> sweepKernelOverlap(const RunSet& runs, const KernelOverlapOptions& o,
                                              const CancelToken* cancel) {
    SweepKernelOverlap out;
    Pass p;
    if (auto s = accumulate(runs, o, cancel, p, out.messages); !s) return s.error();
    const std::vector<std::string> groups = keptGroups(p, o, out.messages);
    for (const std::string& g : groups)
        for (Config& c : p.configs) {
            auto it = c.groups.find(g);
            if (it != c.groups.end() && it->second.instances > 0) out.groups.push_back(groupRow(g, c, it->second));
        }
    if (o.instances) {
        if (cancel && cancel->cancelled()) return Error("cancelled");
        listInstances(runs, o, p, std::set<std::string>(groups.begin(), groups.end()), out);
    }
    for (auto& [key, r] : p.ranks) {
        if (r.commNs > 0) r.overlapPct = 100.0 * static_cast<double>(r.overlapNs) / static_cast<double>(r.commNs);
        out.ranks.push_back(std::move(r));
    }
    return out;
}

RunSet pooledBy(RunSet runs, const std::vector<std::string>& keys) {
    for (size_t i = 0; i < runs.size(); ++i) runs[i].configurationKey = i < keys.size() ? keys[i] : runs[i].label;
    return runs;
}

}  // namespace strobe::core
