#include "core/analysis/context.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/analysis/window.h"
#include "core/model/profiler_step.h"

namespace strobe::core {

// ---------------------------------------------------------------------------------------------------------
// HTA kernel types

std::string_view toString(HtaType t) {
    switch (t) {
    case HtaType::Computation: return "COMPUTATION";
    case HtaType::Communication: return "COMMUNICATION";
    case HtaType::Memory: return "MEMORY";
    default: return "OTHER";
    }
}

HtaType htaKernelType(std::string_view n) {
    auto starts = [&](std::string_view p) { return n.substr(0, p.size()) == p; };
    auto has = [&](std::string_view p) { return n.find(p) != std::string_view::npos; };
    if (starts("nccl") || starts("hip") || starts("hccl") || has("ncclKernel")) return HtaType::Communication;
    if (starts("Memcpy") || starts("hipMemcpy") || starts("Memset") || starts("hipMemset") || starts("dma"))
        return HtaType::Memory;
    bool nonCompute = has("Memcpy") || has("Memset") || has("dma") || has("Sync") || starts("Stream Wait Event") ||
                      (starts("cuda") && n.find("LaunchKernel", 4) != std::string_view::npos) ||
                      starts("runFunction");
    // ^nccl, ^hip and ^hccl were already taken by COMMUNICATION above.
    return nonCompute ? HtaType::Other : HtaType::Computation;
}

// ---------------------------------------------------------------------------------------------------------
// Intervals

std::vector<Interval> mergeSortedIntervals(std::span<const Interval> in) {
    std::vector<Interval> out;
    if (in.empty()) return out;
    out.reserve(in.size() / 4 + 1);
    TimeNs maxEnd = in[0].end;
    out.push_back(in[0]);
    for (size_t i = 1; i < in.size(); ++i) {
        const Interval& iv = in[i];
        if (iv.start > maxEnd) {
            out.push_back(iv);
        } else if (iv.end > out.back().end) {
            out.back().end = iv.end;
        }
        maxEnd = std::max(maxEnd, iv.end);
    }
    return out;
}

TimeNs totalLength(std::span<const Interval> merged) {
    TimeNs t = 0;
    for (const auto& iv : merged) t += iv.end - iv.start;
    return t;
}

TimeNs intersectionLength(std::span<const Interval> a, std::span<const Interval> b) {
    size_t i = 0, j = 0;
    TimeNs t = 0;
    while (i < a.size() && j < b.size()) {
        TimeNs s = std::max(a[i].start, b[j].start);
        TimeNs e = std::min(a[i].end, b[j].end);
        if (e > s) t += e - s;
        if (a[i].end < b[j].end)
            ++i;
        else
            ++j;
    }
    return t;
}

// ---------------------------------------------------------------------------------------------------------
// Window specs

namespace {
bool parseInt(std::string_view s, int64_t& out) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    if (s.empty()) return false;
    auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}
}  // namespace

WindowSpec WindowSpec::stepList(std::vector<int64_t> steps) {
    WindowSpec w;
    w.kind = WindowKind::StepList;
    std::sort(steps.begin(), steps.end());
    steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
    w.steps = std::move(steps);
    return w;
}

Result<WindowSpec> WindowSpec::parse(std::string_view window, std::string_view steps) {
    if (!steps.empty()) {
        std::vector<int64_t> list;
        size_t pos = 0;
        while (pos <= steps.size()) {
            size_t comma = steps.find(',', pos);
            std::string_view item = steps.substr(pos, comma == std::string_view::npos ? std::string_view::npos
                                                                                      : comma - pos);
            int64_t a = 0, b = 0;
            size_t dash = item.find('-', 1);
            if (dash != std::string_view::npos && parseInt(item.substr(0, dash), a) &&
                parseInt(item.substr(dash + 1), b) && a <= b && b - a < 1000000) {
                for (int64_t s = a; s <= b; ++s) list.push_back(s);
            } else if (parseInt(item, a)) {
                list.push_back(a);
            } else {
                return Error(fmt::format("--steps: expected step numbers like 3,4,5 or 3-5, got '{}'", steps));
            }
            if (comma == std::string_view::npos) break;
            pos = comma + 1;
        }
        return stepList(std::move(list));
    }
    WindowSpec w;
    if (window.empty() || window == "all") return w;
    static constexpr std::pair<std::string_view, WindowKind> kKeywords[] = {
        {"steps", WindowKind::Steps}, {"hta", WindowKind::Hta}, {"hta-include-last", WindowKind::HtaIncludeLast},
        {"auto", WindowKind::Auto}};
    for (const auto& [keyword, kind] : kKeywords) {
        if (window != keyword) continue;
        w.kind = kind;
        return w;
    }
    size_t colon = window.find(':');
    if (colon != std::string_view::npos) {
        int64_t a = 0, b = 0;
        if (parseInt(window.substr(0, colon), a) && parseInt(window.substr(colon + 1), b)) {
            if (b <= a)
                return Error(fmt::format("--window {}: the end ({}) must be after the start ({})", window, b, a));
            w.kind = WindowKind::Range;
            w.from = a;
            w.to = b;
            return w;
        }
    }
    return Error(fmt::format("--window: expected all, steps, hta, hta-include-last, auto or FROM_NS:TO_NS, got '{}'",
                             window));
}

std::string WindowSpec::toString() const {
    switch (kind) {
    case WindowKind::All: return "all";
    case WindowKind::Steps: return "steps";
    case WindowKind::Hta: return "hta";
    case WindowKind::HtaIncludeLast: return "hta-include-last";
    case WindowKind::Auto: return "auto";
    case WindowKind::Range: return fmt::format("{}:{}", from, to);
    case WindowKind::StepList: return fmt::format("steps={}", fmt::join(steps, ","));
    }
    return "all";
}

// ---------------------------------------------------------------------------------------------------------
// HTA's timestamp rounding. HTA (commit f4d0062, the version behind tests/data/expected/hta) rounds traces
// whose timestamps are fractional µs: start = ceil(ts), end = floor(ts + dur), computed in double precision
// on the µs values, dur = end − start. Without this its sums lose about 1 µs per event against the exact
// ones, so the `hta` windows reproduce it to agree with HTA; every other window keeps exact nanoseconds.

namespace {
double toUs(TimeNs ns) { return static_cast<double>(static_cast<long double>(ns) / 1000.0L); }
TimeNs htaStart(TimeNs ts) { return static_cast<TimeNs>(std::ceil(toUs(ts))) * 1000; }
TimeNs htaEnd(TimeNs ts, TimeNs dur) { return static_cast<TimeNs>(std::floor(toUs(ts) + toUs(dur))) * 1000; }

bool rankHasFractionalUs(const RankData& r) {
    for (TimeNs t : r.gpu.ts)
        if (t % 1000 != 0) return true;
    for (TimeNs t : r.slices.ts)
        if (t % 1000 != 0) return true;
    return false;
}

// CPU-side events as HTA keeps them: complete events (ph X) with a category other than "Trace".
bool htaKeepsSlice(const RankData& r, size_t i) {
    if (r.slices.phase.size() > i && r.slices.phase[i] != 'X') return false;
    StrId cat = r.slices.cat.size() > i ? r.slices.cat[i] : kEmptyStr;
    if (cat == kEmptyStr) return false;
    return r.strings.view(cat) != "Trace";
}

}  // namespace

TimeNs RankWindow::runtimeStart(size_t i) const {
    int32_t r = runtime[i];
    if (r < 0 || data == nullptr || static_cast<size_t>(r) >= data->slices.size()) return INT64_MIN;
    TimeNs ts = data->slices.ts[static_cast<size_t>(r)];
    return htaRounded ? htaStart(ts) : ts;
}

// ---------------------------------------------------------------------------------------------------------
// AnalysisContext

AnalysisContext::AnalysisContext(DatasetPtr dataset) : m_owned(std::move(dataset)) {
    if (!m_owned) m_owned = std::make_shared<const Dataset>();
    m_data = m_owned.get();
    m_ranks = std::make_unique<RankCache[]>(m_data->ranks.size());
}

AnalysisContext::AnalysisContext(Shared, const Dataset* dataset) : m_data(dataset) {
    m_ranks = std::make_unique<RankCache[]>(m_data->ranks.size());
}

AnalysisContext::~AnalysisContext() = default;

std::shared_ptr<AnalysisContext> AnalysisContext::of(const DatasetPtr& dataset) {
    if (!dataset) return nullptr;
    const Dataset* d = dataset.get();
    AnalysisContext* ctx = dataset->analysisCache.getOrCreate<AnalysisContext>(
        [d] { return new AnalysisContext(Shared{}, d); });
    // Aliasing: whoever holds the context holds the dataset, which holds the context (no cycle: the context
    // keeps only a plain pointer to its dataset).
    return std::shared_ptr<AnalysisContext>(dataset, ctx);
}

namespace {
// Window selections a context keeps (least recently used go; holders keep theirs). One selection holds ~25 bytes
// per GPU activity (25 MB for 1 M kernels); the windows in use at once are few (auto, all, steps, hta, a step list).
constexpr size_t kMaxSelections = 6;
}  // namespace

uint64_t AnalysisContext::selectionsBuilt() const {
    std::lock_guard lock(m_mutex);
    return m_selectionsBuilt;
}

int AnalysisContext::rankNumber(size_t i) const {
    const auto& r = m_data->ranks[i];
    return r && r->rank >= 0 ? r->rank : static_cast<int>(i);
}

const std::vector<StepSpan>& AnalysisContext::steps(size_t ri) {
    RankCache& c = m_ranks[ri];
    std::call_once(c.stepsOnce, [&] {
        const RankData& r = *m_data->ranks[ri];
        if (r.steps.size() > 0) {
            for (size_t i = 0; i < r.steps.size(); ++i)
                c.steps.push_back({r.steps.number[i], r.steps.start[i], r.steps.end[i],
                                   r.steps.slice.size() > i ? r.steps.slice[i] : -1});
        } else {
            // The merge has not filled the step table: find CPU-side ProfilerStep#N slices ourselves.
            for (size_t i = 0; i < r.slices.size(); ++i) {
                EventKind k = r.slices.kind.size() > i ? r.slices.kind[i] : EventKind::Unknown;
                const int64_t n = isProfilerStepKind(k) ? profilerStepNumber(r.strings.view(r.slices.name[i])) : -1;
                if (n < 0) continue;
                c.steps.push_back({n, r.slices.ts[i], r.slices.ts[i] + r.slices.dur[i], static_cast<int32_t>(i)});
            }
            std::sort(c.steps.begin(), c.steps.end(),
                      [](const StepSpan& a, const StepSpan& b) { return a.start < b.start; });
        }
    });
    return c.steps;
}

const std::vector<int32_t>& AnalysisContext::runtimeOf(size_t ri) {
    RankCache& c = m_ranks[ri];
    std::call_once(c.runtimeOnce, [&] {
        const RankData& r = *m_data->ranks[ri];
        const size_t n = r.gpu.size();
        if (r.gpu.runtime.size() == n && n > 0) {
            c.runtime.assign(r.gpu.runtime.begin(), r.gpu.runtime.end());
        } else {
            // No merge column: match by correlation ourselves (CPU-side slices that carry a correlation id, the
            // runtime/driver calls). When several slices share an id the last one wins, as in HTA.
            c.runtime.assign(n, -1);
            std::vector<std::pair<int64_t, int32_t>> cpu;
            for (size_t i = 0; i < r.slices.size(); ++i) {
                int64_t corr = r.slices.correlation.size() > i ? r.slices.correlation[i] : kNone;
                if (corr == kNone || !htaKeepsSlice(r, i)) continue;
                cpu.emplace_back(corr, static_cast<int32_t>(i));
            }
            std::stable_sort(cpu.begin(), cpu.end(),
                             [](const auto& a, const auto& b) { return a.first < b.first; });
            for (size_t g = 0; g < n; ++g) {
                int64_t corr = r.gpu.correlation.size() > g ? r.gpu.correlation[g] : kNone;
                if (corr == kNone) continue;
                auto it = std::upper_bound(cpu.begin(), cpu.end(), corr,
                                           [](int64_t v, const auto& p) { return v < p.first; });
                if (it != cpu.begin() && std::prev(it)->first == corr) c.runtime[g] = std::prev(it)->second;
            }
        }
    });
    return c.runtime;
}

const std::vector<HtaType>& AnalysisContext::htaTypeByName(size_t ri) {
    RankCache& c = m_ranks[ri];
    std::call_once(c.typesOnce, [&] {
        const RankData& r = *m_data->ranks[ri];
        // Classify only the names GPU activities use (kernel names are few; the pool also holds CPU names).
        c.types.assign(r.strings.size(), HtaType::Other);
        std::vector<uint8_t> done(r.strings.size(), 0);
        for (StrId id : r.gpu.name) {
            if (id >= done.size() || done[id]) continue;
            done[id] = 1;
            c.types[id] = htaKernelType(r.strings.view(id));
        }
    });
    return c.types;
}

const std::vector<uint8_t>& AnalysisContext::stepNameIds(size_t ri) {
    RankCache& c = m_ranks[ri];
    std::call_once(c.stepNamesOnce, [&] {
        const RankData& r = *m_data->ranks[ri];
        c.stepNames.assign(r.strings.size(), 0);
        std::vector<uint8_t> done(r.strings.size(), 0);
        for (StrId id : r.slices.name) {
            if (id >= done.size() || done[id]) continue;
            done[id] = 1;
            c.stepNames[id] = r.strings.view(id).find("ProfilerStep") != std::string_view::npos;
        }
    });
    return c.stepNames;
}

Result<WindowSelectionPtr> AnalysisContext::select(const WindowSpec& spec) {
    std::string key = spec.toString();
    std::shared_ptr<SelectionEntry> entry;
    {
        std::lock_guard lock(m_mutex);
        auto it = m_selections.find(key);
        if (it != m_selections.end()) {
            entry = it->second;
            m_lru.remove(key);
        } else {
            entry = std::make_shared<SelectionEntry>();
            m_selections.emplace(key, entry);
            while (m_lru.size() >= kMaxSelections) {  // the least recently used go; their holders keep them
                m_selections.erase(m_lru.back());
                m_lru.pop_back();
            }
        }
        m_lru.push_front(key);
    }
    // Built once, outside the lock: other windows build in parallel, the same window waits for this one.
    std::call_once(entry->once, [&] {
        entry->result = build(spec);
        std::lock_guard lock(m_mutex);
        ++m_selectionsBuilt;
    });
    return *entry->result;
}

Result<WindowSelectionPtr> AnalysisContext::build(const WindowSpec& specIn) {
    auto sel = std::make_shared<WindowSelection>();
    WindowSpec spec = specIn;
    sel->description = spec.toString();
    if (spec.kind == WindowKind::Auto) {
        SteadyState ss = findSteadyState(*this);
        if (ss.kept.empty()) {
            sel->messages.push_back("auto window: " + ss.reason + "; analysing every event instead");
            spec = WindowSpec{};
            sel->description = "all (auto: no steps)";
        } else {
            sel->messages.push_back("auto window: " + ss.reason);
            spec = WindowSpec::stepList(ss.kept);
            sel->description = fmt::format("auto = steps {}", fmt::join(ss.kept, ","));
        }
    }
    sel->spec = spec;

    bool htaFilter = false;
    if (spec.kind == WindowKind::Hta || spec.kind == WindowKind::HtaIncludeLast) {
        // HTA filters only when the run (all ranks together) has two or more distinct ProfilerStep names.
        std::vector<std::string> names;
        for (size_t ri = 0; ri < rankCount(); ++ri) {
            const RankData& r = *m_data->ranks[ri];
            const auto& isStep = stepNameIds(ri);
            std::vector<uint8_t> seen(r.strings.size(), 0);
            for (size_t i = 0; i < r.slices.size(); ++i) {
                StrId id = r.slices.name[i];
                if (id >= seen.size() || seen[id] || !isStep[id] || !htaKeepsSlice(r, i)) continue;
                seen[id] = 1;
                names.emplace_back(r.strings.view(id));
            }
        }
        std::sort(names.begin(), names.end());
        names.erase(std::unique(names.begin(), names.end()), names.end());
        htaFilter = names.size() >= 2;
        sel->htaFiltered = htaFilter;
        if (!htaFilter)
            sel->messages.push_back(fmt::format(
                "{} window: the run has {} distinct ProfilerStep names (HTA filters only with two or more): "
                "every GPU activity is kept, as HTA does",
                spec.toString(), names.size()));
    }
    if (spec.kind == WindowKind::Steps || spec.kind == WindowKind::StepList) {
        bool anySteps = false;
        for (size_t ri = 0; ri < rankCount(); ++ri) anySteps = anySteps || !steps(ri).empty();
        if (!anySteps)
            sel->messages.push_back("the trace has no ProfilerStep#N annotations: the step window is empty");
    }
    sel->ranks.resize(rankCount());
    for (size_t ri = 0; ri < rankCount(); ++ri)
        buildRank(*sel, ri, spec, htaFilter, spec.kind == WindowKind::HtaIncludeLast);
    return WindowSelectionPtr(sel);
}

void AnalysisContext::buildRank(WindowSelection& sel, size_t ri, const WindowSpec& spec, bool htaFilter,
                                bool htaIncludeLast) {
    RankWindow& w = sel.ranks[ri];
    const RankData& r = *m_data->ranks[ri];
    w.rank = rankNumber(ri);
    w.rankIndex = ri;
    w.data = &r;
    const size_t n = r.gpu.size();
    const std::vector<int32_t>& rt = runtimeOf(ri);
    const std::vector<HtaType>& types = htaTypeByName(ri);
    const bool hta = spec.kind == WindowKind::Hta || spec.kind == WindowKind::HtaIncludeLast;
    w.htaRounded = hta && rankHasFractionalUs(r);

    auto startOf = [&](size_t g) { return w.htaRounded ? htaStart(r.gpu.ts[g]) : r.gpu.ts[g]; };
    auto endOf = [&](size_t g) {
        return w.htaRounded ? htaEnd(r.gpu.ts[g], r.gpu.dur[g]) : r.gpu.ts[g] + r.gpu.dur[g];
    };
    auto launchTs = [&](size_t g) {
        int32_t s = rt[g];
        return s >= 0 ? r.slices.ts[static_cast<size_t>(s)] : r.gpu.ts[g];
    };

    // Which activities the window keeps.
    std::vector<uint8_t> keep(n, 1);
    switch (spec.kind) {
    case WindowKind::All:
    case WindowKind::Auto: break;
    case WindowKind::Hta:
    case WindowKind::HtaIncludeLast: {
        if (!htaFilter) break;
        // The last ProfilerStep of this rank among HTA's CPU-side events (every slice with a duration,
        // gpu_user_annotation included, exactly as HTA sees them), on HTA's rounded µs.
        bool found = false;
        TimeNs lastStart = INT64_MIN, lastEnd = INT64_MIN;
        const auto& isStep = stepNameIds(ri);
        for (size_t i = 0; i < r.slices.size(); ++i) {
            if (!isStep[r.slices.name[i]] || !htaKeepsSlice(r, i)) continue;
            TimeNs s = w.htaRounded ? htaStart(r.slices.ts[i]) : r.slices.ts[i];
            TimeNs e = w.htaRounded ? htaEnd(r.slices.ts[i], r.slices.dur[i]) : r.slices.ts[i] + r.slices.dur[i];
            lastStart = std::max(lastStart, s);
            lastEnd = std::max(lastEnd, e);
            found = true;
        }
        if (!found)
            sel.messages.push_back(fmt::format(
                "rank {}: no ProfilerStep on this rank while others have some: HTA keeps none of its GPU "
                "activities",
                w.rank));
        for (size_t g = 0; g < n; ++g) {
            int32_t s = rt[g];
            if (!found || s < 0) {
                keep[g] = 0;  // HTA drops activities without a matching CPU-side event
                continue;
            }
            TimeNs ts = w.htaRounded ? htaStart(r.slices.ts[static_cast<size_t>(s)]) : r.slices.ts[static_cast<size_t>(s)];
            keep[g] = htaIncludeLast ? ts <= lastEnd : ts < lastStart;
        }
        break;
    }
    case WindowKind::Steps: {
        const auto& st = steps(ri);
        if (st.empty()) {
            std::fill(keep.begin(), keep.end(), 0);
            break;
        }
        TimeNs a = INT64_MAX, b = INT64_MIN;
        for (const auto& s : st) {
            a = std::min(a, s.start);
            b = std::max(b, s.end);
        }
        for (size_t g = 0; g < n; ++g) {
            TimeNs t = launchTs(g);
            keep[g] = t >= a && t < b;
        }
        break;
    }
    case WindowKind::StepList: {
        std::vector<StepSpan> chosen;
        for (const auto& s : steps(ri))
            if (std::binary_search(spec.steps.begin(), spec.steps.end(), s.number)) chosen.push_back(s);
        if (chosen.empty() && !steps(ri).empty())
            sel.messages.push_back(fmt::format("rank {}: none of the steps {} is in this rank's trace", w.rank,
                                               fmt::join(spec.steps, ",")));
        // chosen is sorted by start (steps() is); a launch belongs to the step whose span holds it.
        for (size_t g = 0; g < n; ++g) {
            TimeNs t = launchTs(g);
            auto it = std::upper_bound(chosen.begin(), chosen.end(), t,
                                       [](TimeNs v, const StepSpan& s) { return v < s.start; });
            keep[g] = it != chosen.begin() && t < std::prev(it)->end;
        }
        break;
    }
    case WindowKind::Range: {
        w.clipFrom = spec.from;
        w.clipTo = spec.to;
        for (size_t g = 0; g < n; ++g) keep[g] = r.gpu.ts[g] < spec.to && r.gpu.ts[g] + r.gpu.dur[g] > spec.from;
        break;
    }
    }

    struct Item {
        TimeNs s, e;
        uint32_t g;
    };
    std::vector<Item> items;
    items.reserve(n);
    for (size_t g = 0; g < n; ++g)
        if (keep[g]) items.push_back({std::max(startOf(g), w.clipFrom), std::min(endOf(g), w.clipTo), static_cast<uint32_t>(g)});
    auto less = [](const Item& a, const Item& b) {
        return a.s != b.s ? a.s < b.s : (a.e != b.e ? a.e < b.e : a.g < b.g);
    };
    if (!std::is_sorted(items.begin(), items.end(), less)) std::sort(items.begin(), items.end(), less);
    std::vector<uint32_t> idx(items.size());
    for (size_t i = 0; i < items.size(); ++i) idx[i] = items[i].g;
    w.row = std::move(idx);
    const size_t m = w.row.size();
    w.start.resize(m);
    w.end.resize(m);
    w.type.resize(m);
    w.runtime.resize(m);
    std::vector<Interval> all(m);
    std::vector<Interval> byType[static_cast<size_t>(HtaType::Count)];
    for (size_t i = 0; i < m; ++i) {
        const Item& it = items[i];
        w.start[i] = it.s;
        w.end[i] = it.e;
        StrId name = r.gpu.name[it.g];
        w.type[i] = name < types.size() ? types[name] : HtaType::Other;
        w.runtime[i] = rt[it.g];
        all[i] = {it.s, it.e};
        byType[static_cast<size_t>(w.type[i])].push_back(all[i]);
    }
    w.mergedAll = mergeSortedIntervals(all);
    for (size_t t = 0; t < static_cast<size_t>(HtaType::Count); ++t) w.mergedByType[t] = mergeSortedIntervals(byType[t]);

    if (n == 0)
        sel.messages.push_back(fmt::format("rank {}: the trace has no GPU activities (kernel, memcpy, memset): "
                                           "a CPU-only trace",
                                           w.rank));
    else if (m == 0)
        sel.messages.push_back(fmt::format("rank {}: the window {} holds none of its {} GPU activities", w.rank,
                                           sel.description, n));
}

// ---------------------------------------------------------------------------------------------------------
// Statistics

namespace stats {
template <class T>
double quantileT(std::span<const T> v, double q) {
    if (v.empty()) return std::nan("");
    if (v.size() == 1) return static_cast<double>(v[0]);
    q = std::clamp(q, 0.0, 1.0);
    double pos = q * static_cast<double>(v.size() - 1);
    auto lo = static_cast<size_t>(std::floor(pos));
    size_t hi = std::min(lo + 1, v.size() - 1);
    double frac = pos - static_cast<double>(lo);
    return static_cast<double>(v[lo]) + (static_cast<double>(v[hi]) - static_cast<double>(v[lo])) * frac;
}
double quantile(std::span<const double> sorted, double q) { return quantileT(sorted, q); }
double quantile(std::span<const TimeNs> sorted, double q) { return quantileT(sorted, q); }

std::vector<double> quantilesUnsorted(std::vector<TimeNs>& v, std::span<const double> qs) {
    std::vector<double> out;
    for (double q : qs) {
        if (v.empty()) {
            out.push_back(std::nan(""));
            continue;
        }
        q = std::clamp(q, 0.0, 1.0);
        double pos = q * static_cast<double>(v.size() - 1);
        auto lo = static_cast<size_t>(std::floor(pos));
        std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(lo), v.end());
        double a = static_cast<double>(v[lo]);
        double frac = pos - static_cast<double>(lo);
        if (frac > 0 && lo + 1 < v.size()) {
            double b = static_cast<double>(*std::min_element(v.begin() + static_cast<std::ptrdiff_t>(lo) + 1, v.end()));
            a += (b - a) * frac;
        }
        out.push_back(a);
    }
    return out;
}

double mean(std::span<const TimeNs> v) {
    if (v.empty()) return std::nan("");
    long double s = 0;
    for (TimeNs x : v) s += static_cast<long double>(x);
    return static_cast<double>(s / static_cast<long double>(v.size()));
}

double stddev(std::span<const TimeNs> v) {
    if (v.size() < 2) return 0.0;
    long double m = 0;
    for (TimeNs x : v) m += static_cast<long double>(x);
    m /= static_cast<long double>(v.size());
    long double ss = 0;
    for (TimeNs x : v) {
        long double d = static_cast<long double>(x) - m;
        ss += d * d;
    }
    return static_cast<double>(std::sqrt(ss / static_cast<long double>(v.size() - 1)));
}
}  // namespace stats

}  // namespace strobe::core
