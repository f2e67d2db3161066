#include "core/model/validate.h"

#include <fmt/format.h>

namespace strobe::core {
namespace {

// Why the first failing check failed; the checks stop at the first problem.
class Checker {
public:
    bool ok() const { return m_error.empty(); }
    const std::string& error() const { return m_error; }

    // Every column of `table` has `rows` rows.
    template <class Table>
    void sameLength(const char* tableName, Table& table, size_t rows) {
        table.visitColumns([&](const char* column, const auto& col) {
            if (ok() && col.size() != rows)
                m_error = fmt::format("{}.{} has {} rows, the table has {}", tableName, column, col.size(), rows);
        });
    }
    // Every value of `col` lies in [low, limit).
    template <class T>
    void range(const char* tableName, const char* column, const Column<T>& col, int64_t low, int64_t limit,
               const char* what) {
        if (!ok()) return;
        const T* p = col.data();
        const size_t n = col.size();
        // Branch-free scan first (vectorises); find the row only when something is out of range.
        bool bad = false;
        for (size_t i = 0; i < n; ++i) {
            const auto v = static_cast<int64_t>(p[i]);
            bad |= (v < low) | (v >= limit);
        }
        if (!bad) return;
        for (size_t i = 0; i < n; ++i) {
            const auto v = static_cast<int64_t>(p[i]);
            if (v < low || v >= limit) {
                m_error = fmt::format("{}.{} row {}: {} is not {} ({}..{})", tableName, column, i, v, what, low,
                                      limit - 1);
                return;
            }
        }
    }
    template <class E>
    void enumRange(const char* tableName, const char* column, const Column<E>& col) {
        if (!ok()) return;
        const E* p = col.data();
        bool bad = false;
        for (size_t i = 0; i < col.size(); ++i) bad |= static_cast<uint8_t>(p[i]) >= static_cast<uint8_t>(E::Count);
        if (!bad) return;
        for (size_t i = 0; i < col.size(); ++i)
            if (static_cast<uint8_t>(p[i]) >= static_cast<uint8_t>(E::Count)) {
                m_error = fmt::format("{}.{} row {}: {} is not a known value", tableName, column, i,
                                      static_cast<int>(static_cast<uint8_t>(p[i])));
                return;
            }
    }
    // 0 <= dur <= kMaxDurationNs, start and end within ±kMaxTimeNs: readers compute ends, differences and sums
    // of durations unchecked.
    void spans(const char* tableName, const Column<TimeNs>& ts, const Column<TimeNs>& dur) {
        if (!ok() || ts.size() != dur.size()) return;
        for (size_t i = 0; i < ts.size(); ++i) {
            if (dur[i] < 0 || dur[i] > kMaxDurationNs || ts[i] < -kMaxTimeNs || ts[i] > kMaxTimeNs ||
                dur[i] > kMaxTimeNs - ts[i]) {
                m_error = fmt::format("{} row {}: ts {} ns, dur {} ns is not a valid interval", tableName, i, ts[i],
                                      dur[i]);
                return;
            }
        }
    }
    // The merge's steps: a ProfilerStep slice's start and end, so start within ±kMaxTimeNs and
    // 0 <= end - start <= kMaxDurationNs (analyses take differences of steps' ends and starts unchecked).
    void stepSpans(const Column<TimeNs>& start, const Column<TimeNs>& end) {
        if (!ok() || start.size() != end.size()) return;
        for (size_t i = 0; i < start.size(); ++i) {
            if (start[i] < -kMaxTimeNs || start[i] > kMaxTimeNs || end[i] < start[i] || end[i] > kMaxTimeNs ||
                end[i] > start[i] + kMaxDurationNs) {
                m_error = fmt::format("steps row {}: start {} ns, end {} ns is not a valid interval", i, start[i],
                                      end[i]);
                return;
            }
        }
    }
    void fail(std::string message) {
        if (ok()) m_error = std::move(message);
    }

private:
    std::string m_error;
};

}  // namespace

Status validateRankData(const RankData& rank) {
    Checker c;
    auto& r = const_cast<RankData&>(rank);  // visitColumns is non-const; nothing is modified
    const int64_t tracks = static_cast<int64_t>(rank.tracks.size());
    const int64_t slices = static_cast<int64_t>(rank.slices.size());
    const int64_t gpu = static_cast<int64_t>(rank.gpu.size());
    const int64_t steps = static_cast<int64_t>(rank.steps.size());
    const int64_t strings = static_cast<int64_t>(rank.strings.size());

    c.sameLength("slices", r.slices, rank.slices.size());
    c.sameLength("gpu", r.gpu, rank.gpu.size());
    c.sameLength("flows", r.flows, rank.flows.size());
    c.sameLength("counters", r.counters, rank.counters.size());
    c.sameLength("steps", r.steps, rank.steps.size());
    c.sameLength("kernelCounters", r.kernelCounters, rank.kernelCounters.size());
    c.sameLength("samples", r.samples, rank.samples.size());

    // Analyses keep per-string tables indexed by string id, so every id must be one of the pool's.
    auto str = [&](const char* where, size_t row, StrId id) {
        if (c.ok() && static_cast<int64_t>(id) >= strings)
            c.fail(fmt::format("{} row {}: string {} is not in the pool (0..{})", where, row, id, strings - 1));
    };
    for (size_t i = 0; c.ok() && i < rank.threads.size(); ++i) {
        if (static_cast<int64_t>(rank.threads[i].track) >= tracks)
            c.fail(fmt::format("threads row {}: track {} is not a track (0..{})", i, rank.threads[i].track, tracks - 1));
        str("threads.name", i, rank.threads[i].name);
    }
    for (size_t i = 0; c.ok() && i < rank.tracks.size(); ++i) {
        str("tracks.pidStr", i, rank.tracks[i].pidStr);
        str("tracks.tidStr", i, rank.tracks[i].tidStr);
    }
    for (size_t i = 0; c.ok() && i < rank.processes.size(); ++i) {
        str("processes.pidStr", i, rank.processes[i].pidStr);
        str("processes.name", i, rank.processes[i].name);
        str("processes.labels", i, rank.processes[i].labels);
    }
    for (const auto& [cat, n] : rank.stats.eventsByCategory) str("stats.eventsByCategory", 0, cat);
    c.range("slices", "name", rank.slices.name, 0, strings, "a string");
    c.range("slices", "cat", rank.slices.cat, 0, strings, "a string");
    c.range("slices", "args", rank.slices.args, 0, strings, "a string");
    c.range("gpu", "name", rank.gpu.name, 0, strings, "a string");
    c.range("gpu", "cat", rank.gpu.cat, 0, strings, "a string");
    c.range("gpu", "args", rank.gpu.args, 0, strings, "a string");
    c.range("flows", "cat", rank.flows.cat, 0, strings, "a string");
    c.range("flows", "name", rank.flows.name, 0, strings, "a string");
    c.range("counters", "name", rank.counters.name, 0, strings, "a string");
    c.range("counters", "series", rank.counters.series, 0, strings, "a string");
    c.range("kernelCounters", "name", rank.kernelCounters.name, 0, strings, "a string");
    c.range("samples", "metric", rank.samples.metric, 0, strings, "a string");

    const auto& s = rank.slices;
    c.range("slices", "track", s.track, 0, tracks, "a track");
    c.range("slices", "parent", s.parent, -1, slices, "a slice");
    c.range("slices", "byTrack", s.byTrack, 0, slices, "a slice");
    c.range("slices", "launchedGpu", s.launchedGpu, -1, gpu, "a GPU activity");
    c.enumRange("slices", "kind", s.kind);
    c.spans("slices", s.ts, s.dur);

    const auto& g = rank.gpu;
    c.range("gpu", "track", g.track, 0, tracks, "a track");
    c.range("gpu", "runtime", g.runtime, -1, slices, "a slice");
    c.range("gpu", "cpuOp", g.cpuOp, -1, slices, "a slice");
    c.range("gpu", "step", g.step, -1, steps, "a step");
    c.range("gpu", "annotation", g.annotation, -1, slices, "a slice");
    c.range("gpu", "byTrack", g.byTrack, 0, gpu, "a GPU activity");
    c.enumRange("gpu", "kind", g.kind);
    c.enumRange("gpu", "category", g.category);
    c.enumRange("gpu", "collective", g.collective);
    c.enumRange("gpu", "copyDirection", g.copyDirection);
    c.spans("gpu", g.ts, g.dur);

    c.range("flows", "track", rank.flows.track, 0, tracks, "a track");
    c.range("counters", "track", rank.counters.track, 0, tracks, "a track");
    c.range("steps", "slice", rank.steps.slice, -1, slices, "a slice");
    c.stepSpans(rank.steps.start, rank.steps.end);
    c.range("kernelCounters", "gpuRow", rank.kernelCounters.gpuRow, 0, gpu, "a GPU activity");

    if (!c.ok()) return Error(c.error());
    return Ok{};
}

}  // namespace strobe::core
