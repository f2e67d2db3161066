#include "core/analysis/kernel_types.h"
#include "core/analysis/columns.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

namespace strobe::core {

namespace {
constexpr std::array<HtaType, 3> kTypes = {HtaType::Computation, HtaType::Communication, HtaType::Memory};

std::string maskLabel(unsigned mask) {
    std::string s;
    for (size_t i = 0; i < kTypes.size(); ++i) {
        if (!(mask & (1u << i))) continue;
        if (!s.empty()) s += " overlapping ";
        s += toString(kTypes[i]);
    }
    return s;
}

// Time per combination mask (index = mask, 1..7) for one rank. Each type's merged intervals are sorted and
// disjoint, so one linear k-way walk over their boundaries replaces a sort of all edges.
// HTA's own sweep, used when a merged interval is inverted (end < start: a sub-µs kernel after HTA's rounding
// of fractional timestamps, start up and end down): every boundary is an edge of ±(1 << type), sorted by
// time; the running sum's bits name the types. Inverted intervals then subtract where HTA subtracts.
std::array<TimeNs, 8> sweepEdges(const RankWindow& w, size_t typeCount) {
    struct Edge {
        TimeNs t;
        int delta;
    };
    std::vector<Edge> edges;
    for (size_t i = 0; i < typeCount; ++i)
        for (const auto& iv : w.merged(kTypes[i])) {
            edges.push_back({iv.start, 1 << i});
            edges.push_back({iv.end, -(1 << i)});
        }
    std::stable_sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.t < b.t; });
    std::array<TimeNs, 8> out{};
    int running = 0;
    for (size_t i = 0; i + 1 < edges.size(); ++i) {
        running += edges[i].delta;
        if (running > 0 && (running & 7) != 0) out[static_cast<size_t>(running & 7)] += edges[i + 1].t - edges[i].t;
    }
    return out;
}

std::array<TimeNs, 8> sweep(const RankWindow& w, size_t typeCount) {
    for (size_t t = 0; t < typeCount; ++t)
        for (const auto& iv : w.merged(kTypes[t]))
            if (iv.end < iv.start) return sweepEdges(w, typeCount);
    std::array<TimeNs, 8> out{};
    const std::vector<Interval>* lists[3] = {nullptr, nullptr, nullptr};
    size_t pos[3] = {0, 0, 0};
    bool inside[3] = {false, false, false};
    for (size_t t = 0; t < typeCount; ++t) lists[t] = &w.merged(kTypes[t]);
    unsigned mask = 0;
    TimeNs now = 0;
    bool started = false;
    for (;;) {
        // The next boundary among the types: an end if inside an interval, else the next start.
        size_t best = typeCount;
        TimeNs bestT = 0;
        for (size_t t = 0; t < typeCount; ++t) {
            if (pos[t] >= lists[t]->size()) continue;
            const Interval& iv = (*lists[t])[pos[t]];
            TimeNs at = inside[t] ? iv.end : iv.start;
            if (best == typeCount || at < bestT) {
                best = t;
                bestT = at;
            }
        }
        if (best == typeCount) break;
        if (started && mask != 0) out[mask] += bestT - now;
        now = bestT;
        started = true;
        if (inside[best]) {
            inside[best] = false;
            mask &= ~(1u << best);
            ++pos[best];
        } else {
            inside[best] = true;
            mask |= 1u << best;
        }
    }
    return out;
}

struct NameStats {
    std::string name;
    int64_t count = 0;
    TimeNs sum = 0, max = 0, min = 0;
    double mean = 0, stddev = 0;
};
// Statistics of the durations `vals` (not empty) of `count` activities.
NameStats nameStats(std::string name, int64_t count, const std::vector<TimeNs>& vals) {
    NameStats s;
    s.name = std::move(name);
    s.count = count;
    for (TimeNs v : vals) s.sum += v;
    s.max = *std::max_element(vals.begin(), vals.end());
    s.min = *std::min_element(vals.begin(), vals.end());
    s.mean = stats::mean(vals);
    s.stddev = stats::stddev(vals);
    return s;
}
}  // namespace

Result<Table> kernelTypeBreakdown(AnalysisContext& ctx, const WindowSpec& window, const KernelTypeOptions& o) {
    auto sel = ctx.select(window);
    if (!sel) return sel.error();
    const size_t typeCount = o.includeMemory ? 3 : 2;
    Table t;
    t.columns = kKernelTypeColumns;
    std::array<TimeNs, 8> total{};
    auto emit = [&](const Cell& rank, const std::array<TimeNs, 8>& times) {
        TimeNs sum = 0;
        for (TimeNs v : times) sum += v;
        std::vector<unsigned> masks;
        for (unsigned m = 1; m < 8; ++m)
            if (times[m] > 0) masks.push_back(m);
        std::stable_sort(masks.begin(), masks.end(), [&](unsigned a, unsigned b) { return times[a] > times[b]; });
        for (unsigned m : masks)
            t.addRow({rank, maskLabel(m), times[m], 100.0 * static_cast<double>(times[m]) / static_cast<double>(sum)});
    };
    for (const RankWindow& w : sel.value()->ranks) {
        auto times = sweep(w, typeCount);
        for (size_t m = 0; m < 8; ++m) total[m] += times[m];
        bool any = false;
        for (TimeNs v : times) any = any || v > 0;
        if (!any) {
            t.messages.push_back(fmt::format("kernel-types: rank {} has no computation, communication{} kernel in the window",
                                             w.rank, o.includeMemory ? " or memory" : ""));
            continue;
        }
        emit(int64_t{w.rank}, times);
    }
    if (sel.value()->ranks.size() > 1) emit(std::string("all"), total);
    return t;
}

Result<Table> kernelTypeTopKernels(AnalysisContext& ctx, const WindowSpec& window, const KernelTypeOptions& o) {
    auto sel = ctx.select(window);
    if (!sel) return sel.error();
    const size_t typeCount = o.includeMemory ? 3 : 2;
    const size_t topK = o.topK > 0 ? static_cast<size_t>(o.topK) : 0;
    struct Row {
        int rank;
        HtaType type;
        NameStats s;
    };
    std::vector<Row> rows;
    for (const RankWindow& w : sel.value()->ranks) {
        const RankData& r = *w.data;
        for (size_t ti = 0; ti < typeCount; ++ti) {
            // Durations grouped by name id.
            std::vector<std::pair<StrId, TimeNs>> durs;
            for (size_t i = 0; i < w.size(); ++i)
                if (w.type[i] == kTypes[ti]) durs.emplace_back(r.gpu.name[w.row[i]], w.end[i] - w.start[i]);
            if (durs.empty()) continue;
            std::sort(durs.begin(), durs.end());
            std::vector<NameStats> groups;
            std::vector<TimeNs> vals;
            for (size_t i = 0; i < durs.size();) {
                size_t j = i;
                vals.clear();
                while (j < durs.size() && durs[j].first == durs[i].first) vals.push_back(durs[j++].second);
                groups.push_back(nameStats(r.strings.str(durs[i].first), static_cast<int64_t>(vals.size()), vals));
                i = j;
            }
            std::stable_sort(groups.begin(), groups.end(),
                             [](const NameStats& a, const NameStats& b) { return a.sum > b.sum; });
            if (topK > 0 && groups.size() > topK) {
                std::vector<double> cum(groups.size());
                double run = 0;
                for (size_t i = 0; i < groups.size(); ++i) cum[i] = run += static_cast<double>(groups[i].sum);
                std::vector<double> sorted = cum;  // already ascending
                double q = stats::quantile(sorted, o.durationRatio);
                std::vector<NameStats> kept;
                std::vector<TimeNs> folded;
                int64_t foldedCount = 0;
                for (size_t i = 0; i < groups.size(); ++i) {
                    if (cum[i] > q || i >= topK) {
                        folded.push_back(groups[i].sum);
                        foldedCount += groups[i].count;
                    } else {
                        kept.push_back(groups[i]);
                    }
                }
                if (!folded.empty()) {
                    kept.push_back(nameStats("others", foldedCount, folded));
                }
                groups = std::move(kept);
            }
            for (auto& g : groups) rows.push_back({w.rank, kTypes[ti], std::move(g)});
        }
    }
    // HTA's order: type, name, rank.
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        std::string_view ta = toString(a.type), tb = toString(b.type);
        if (ta != tb) return ta < tb;
        if (a.s.name != b.s.name) return a.s.name < b.s.name;
        return a.rank < b.rank;
    });
    Table t;
    t.columns = kKernelTypeKernelColumns;
    for (const Row& r : rows)
        t.addRow({int64_t{r.rank}, std::string(toString(r.type)), r.s.name, r.s.count, r.s.sum, r.s.max, r.s.min,
                  r.s.mean, r.s.stddev});
    if (rows.empty()) t.messages.push_back("kernel-types: no computation or communication kernel in the window");
    return t;
}

namespace {
const EnumParam kView = EnumParam{"view", "view", "types: time per type/overlap; kernels: per-kernel statistics",
                                  "types"}.choices({"types", "kernels"});
const BoolParam kIncludeMemory{"include-memory", "include-memory", "include MEMORY (memcpy/memset) as a type", true};
const IntParam kTopK{"top-k", "top-k", "kernels view: names kept per rank and type before 'others'", 10};
const DoubleParam kDurationRatio{"duration-ratio", "duration-ratio",
                                 "kernels view: keep names within this share of the cumulative time", 0.8};
// --view types|kernels with the kernels view's options.
Result<Table> runKernelTypes(AnalysisContext& ctx, const AnalysisRequest& req) {
    KernelTypeOptions o;
    o.includeMemory = req.get(kIncludeMemory);
    o.topK = req.get(kTopK);
    o.durationRatio = req.get(kDurationRatio);
    if (req.get(kView) == "kernels") return kernelTypeTopKernels(ctx, req.window, o);
    return kernelTypeBreakdown(ctx, req.window, o);
}
}  // namespace

AnalysisInfo kernelTypesAnalysisInfo() {
    return AnalysisInfo("kernel-types",
                        "GPU time by HTA kernel type and their overlaps; --view kernels: top kernels per type (HTA)",
                        {kView.spec(), kIncludeMemory.spec(), kTopK.spec(), kDurationRatio.spec()}, kKernelTypeColumns,
                        runKernelTypes);
}

}  // namespace strobe::core
