#include "core/analysis/summary.h"

#include <algorithm>
#include <array>
#include <limits>

#include <fmt/format.h>

namespace strobe::core {

namespace {

constexpr size_t kCategoryCount = static_cast<size_t>(KernelCategory::Count);
constexpr uint32_t kNoSlot = std::numeric_limits<uint32_t>::max();

// Running [first start, last end] over every timed column of a rank.
class SpanAccumulator {
public:
    void add(TimeNs start, TimeNs end) {
        if (end < start) end = start;
        if (!m_any) {
            m_start = start;
            m_end = end;
            m_any = true;
            return;
        }
        m_start = std::min(m_start, start);
        m_end = std::max(m_end, end);
    }
    void addSlices(const Column<TimeNs>& ts, const Column<TimeNs>& dur) {
        const size_t n = ts.size();
        const bool haveDur = dur.size() == n;
        for (size_t i = 0; i < n; ++i) add(ts[i], haveDur ? endOf(ts[i], dur[i]) : ts[i]);
    }
    void addPoints(const Column<TimeNs>& ts) {
        for (TimeNs t : ts) add(t, t);
    }
    bool any() const { return m_any; }
    TimeNs start() const { return m_start; }
    TimeNs end() const { return m_end; }

    static TimeNs endOf(TimeNs ts, TimeNs dur) {
        TimeNs e = 0;
        if (dur <= 0) return ts;
        if (__builtin_add_overflow(ts, dur, &e)) return std::numeric_limits<TimeNs>::max();
        return e;
    }

private:
    bool m_any = false;
    TimeNs m_start = 0;
    TimeNs m_end = 0;
};

KernelCategory fallbackCategory(EventKind kind) {
    switch (kind) {
    case EventKind::Memcpy: return KernelCategory::Memcpy;
    case EventKind::Memset: return KernelCategory::Memset;
    default: return KernelCategory::Other;
    }
}

void countRawCategories(const RankData& rank, RankSummary& s) {
    const StringPool& pool = rank.strings;
    if (!rank.stats.eventsByCategory.empty()) {
        s.eventsByCategory.reserve(rank.stats.eventsByCategory.size());
        for (const auto& [cat, n] : rank.stats.eventsByCategory) s.eventsByCategory.emplace_back(pool.str(cat), n);
    } else {
        // A loader that did not record its counts: count what the tables hold (metadata events are not there).
        std::vector<uint64_t> perId(pool.size(), 0);
        auto countColumn = [&](const Column<StrId>& cats) {
            for (StrId c : cats)
                if (c < perId.size()) ++perId[c];
        };
        countColumn(rank.slices.cat);
        countColumn(rank.gpu.cat);
        countColumn(rank.flows.cat);
        for (StrId id = 0; id < perId.size(); ++id)
            if (perId[id] != 0) s.eventsByCategory.emplace_back(pool.str(id), perId[id]);
        if (rank.counters.size() != 0) s.eventsByCategory.emplace_back("(counter rows)", rank.counters.size());
    }
    std::sort(s.eventsByCategory.begin(), s.eventsByCategory.end());
    if (s.events == 0)
        for (const auto& [cat, n] : s.eventsByCategory) s.events += n;
}

}  // namespace

RankSummary summarizeRank(const RankData& rank, size_t topN) {
    RankSummary s;
    s.rank = rank.rank;
    s.rankSource = rank.rankSource;
    s.path = rank.path;
    s.format = rank.info.format;
    s.worldSize = rank.info.distributed.worldSize;
    s.platform = rank.info.platform;
    if (s.platform == Platform::Unknown && !rank.info.devices.empty()) s.platform = detectPlatform(rank.info);
    s.gpuName = rank.info.gpuName();
    s.gpuCount = static_cast<uint32_t>(rank.info.devices.size());
    s.cpuOnly = s.gpuCount == 0 && rank.gpu.size() == 0;
    s.events = rank.stats.events;
    s.skippedEvents = rank.stats.skippedEvents;
    s.truncated = rank.stats.truncated;
    s.fromCache = rank.stats.fromCache;
    countRawCategories(rank, s);

    // GPU activities: totals by kind, by Strobe category and by kernel name, in one pass.
    const GpuTable& gpu = rank.gpu;
    const size_t n = gpu.size();
    const bool haveCategory = gpu.category.size() == n;
    const bool haveKind = gpu.kind.size() == n;
    const bool haveName = gpu.name.size() == n;
    std::array<TimeNs, kCategoryCount> catTime{};
    std::array<uint64_t, kCategoryCount> catCount{};
    std::vector<uint32_t> slotOfName(haveName ? rank.strings.size() : 0, kNoSlot);
    std::vector<KernelTotal> perName;
    std::vector<StrId> perNameId;
    uint64_t negativeDurations = 0;
    for (size_t i = 0; i < n; ++i) {
        TimeNs d = gpu.dur[i];
        if (d < 0) {
            ++negativeDurations;
            d = 0;
        }
        const EventKind kind = haveKind ? gpu.kind[i] : EventKind::Kernel;
        auto cat = haveCategory ? gpu.category[i] : fallbackCategory(kind);
        if (static_cast<size_t>(cat) >= kCategoryCount) cat = KernelCategory::Other;
        catTime[static_cast<size_t>(cat)] += d;
        ++catCount[static_cast<size_t>(cat)];
        if (kind == EventKind::Memcpy) {
            ++s.memcpyCount;
            s.memcpyTimeNs += d;
            continue;
        }
        if (kind == EventKind::Memset) {
            ++s.memsetCount;
            s.memsetTimeNs += d;
            continue;
        }
        if (kind != EventKind::Kernel) continue;
        ++s.kernelCount;
        s.kernelTimeNs += d;
        if (!haveName) continue;
        const StrId id = gpu.name[i];
        if (id >= slotOfName.size()) continue;
        uint32_t& slot = slotOfName[id];
        if (slot == kNoSlot) {
            slot = static_cast<uint32_t>(perName.size());
            perName.push_back(KernelTotal{{}, cat, 0, 0, d, d});
            perNameId.push_back(id);
        }
        KernelTotal& k = perName[slot];
        ++k.count;
        k.totalNs += d;
        k.minNs = std::min(k.minNs, d);
        k.maxNs = std::max(k.maxNs, d);
    }
    for (size_t c = 0; c < kCategoryCount; ++c) {
        if (catCount[c] == 0) continue;
        s.timeByCategory.emplace_back(static_cast<KernelCategory>(c), catTime[c]);
        s.countByCategory.emplace_back(static_cast<KernelCategory>(c), catCount[c]);
    }

    // Top kernels: order slots by total time (ties by name, so the output is stable), keep topN.
    std::vector<uint32_t> order(perName.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    const size_t keep = std::min(topN, order.size());
    auto byTotal = [&](uint32_t a, uint32_t b) {
        if (perName[a].totalNs != perName[b].totalNs) return perName[a].totalNs > perName[b].totalNs;
        return rank.strings.view(perNameId[a]) < rank.strings.view(perNameId[b]);
    };
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep), order.end(), byTotal);
    s.topKernels.reserve(keep);
    for (size_t i = 0; i < keep; ++i) {
        KernelTotal k = perName[order[i]];
        k.name = rank.strings.str(perNameId[order[i]]);
        s.topKernels.push_back(std::move(k));
    }

    // Time span over every timed event.
    SpanAccumulator span;
    span.addSlices(rank.slices.ts, rank.slices.dur);
    span.addSlices(gpu.ts, gpu.dur);
    span.addPoints(rank.flows.ts);
    span.addPoints(rank.counters.ts);
    if (span.any()) {
        s.spanStart = span.start();
        s.spanEnd = span.end();
    }

    // Steps, in time order (the merge sorts StepTable by start).
    const StepTable& st = rank.steps;
    s.steps.reserve(st.size());
    s.stepSpans.reserve(st.size());
    for (size_t i = 0; i < st.size(); ++i) {
        s.steps.push_back(st.number[i]);
        s.stepSpans.push_back(StepRange{st.number[i], st.start[i], st.end[i]});
    }

    for (const Diagnostic& d : rank.diagnostics)
        if (d.severity != Severity::Info) s.warnings.push_back(d.toString());
    if (negativeDurations != 0)
        s.warnings.push_back(fmt::format("{}: {} GPU activities with a negative duration were counted as 0 ns",
                                         rank.path, negativeDurations));
    return s;
}

RunSummary summarizeRun(const Dataset& dataset, size_t topN) {
    RunSummary run;
    run.ranks.reserve(dataset.ranks.size());
    for (const auto& r : dataset.ranks)
        if (r) run.ranks.push_back(summarizeRank(*r, topN));
    for (const Diagnostic& d : dataset.diagnostics)
        if (d.severity != Severity::Info) run.warnings.push_back(d.toString());
    return run;
}

}  // namespace strobe::core
