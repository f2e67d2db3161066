#include "core/query/sql_query.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <mutex>

#include <fmt/format.h>

namespace strobe::core {

namespace query_detail {

// One place a table's rows come from: a rank, or (samples only) a host's telemetry source.
struct QuerySource {
    size_t run = 0;
    const RankData* rank = nullptr;
    bool host = false;
};

}  // namespace query_detail
using query_detail::QuerySource;

struct QueryEngine::Impl {
    std::vector<QueryRun> runs;
    std::vector<QuerySource> ranks;       // every rank of every run
    std::vector<QuerySource> withHosts;   // the ranks, then each run's host telemetry sources
    std::vector<QuerySource> runRows;     // one per run (rank NULL)
    // What each table's module is given: this engine and the table's definition.
    std::deque<std::pair<Impl*, const void*>> moduleAux;
    sqlite3* db = nullptr;
    std::mutex cacheMutex;
    // Per (source, table): row order by time (empty: the table is in time order already).
    std::map<std::pair<const RankData*, const void*>, std::vector<uint32_t>> timeOrder;
    std::map<const RankData*, std::vector<StrId>> threadNames;  // thread name per track
    uint64_t maxSteps = 0;   // progress-handler budget per statement (0: none)
    uint64_t stepsUsed = 0;

    const std::vector<uint32_t>& orderFor(const RankData& r, const void* table, const Column<TimeNs>& ts) {
        std::lock_guard lock(cacheMutex);
        auto [it, fresh] = timeOrder.try_emplace({&r, table});
        if (fresh && !std::is_sorted(ts.begin(), ts.end())) {
            it->second.resize(ts.size());
            for (uint32_t i = 0; i < ts.size(); ++i) it->second[i] = i;
            std::stable_sort(it->second.begin(), it->second.end(), [&](uint32_t a, uint32_t b) { return ts[a] < ts[b]; });
        }
        return it->second;
    }
    const std::vector<StrId>& threadNamesOf(const RankData& r) {
        std::lock_guard lock(cacheMutex);
        auto [it, fresh] = threadNames.try_emplace(&r);
        if (fresh) {
            it->second.assign(r.tracks.size(), kEmptyStr);
            for (const ThreadMeta& t : r.threads)
                if (t.track < it->second.size()) it->second[t.track] = t.name;
        }
        return it->second;
    }
};

namespace {

using Impl = QueryEngine::Impl;

struct Cell {
    Impl& engine;
    const QuerySource& source;
    uint32_t row;
    const RankData& r() const { return *source.rank; }
};
using Getter = void (*)(const Cell&, sqlite3_context*);

struct ColumnDef {
    const char* name;
    const char* type;
    const char* doc;
    Getter get;
};

enum class RowsOf : uint8_t { Table, Rank, Run };

struct TableDef {
    const char* name = "";
    const char* doc = "";
    RowsOf rowsOf = RowsOf::Table;
    bool hosts = false;  // samples: host telemetry sources too
    size_t (*count)(const RankData&) = nullptr;
    const Column<TimeNs>* (*ts)(const RankData&) = nullptr;  // pushdown of ts_ns ranges
    const Column<StrId>* (*names)(const RankData&) = nullptr;  // pushdown of name =
    const void* (*identity)(const RankData&) = nullptr;       // the table object (time-order cache key)
    std::vector<ColumnDef> columns;                           // after `run` and `rank`
};

// ---- cell helpers
void textOf(sqlite3_context* c, std::string_view s) {
    sqlite3_result_text(c, s.data(), static_cast<int>(s.size()), SQLITE_STATIC);
}
void strOf(const Cell& x, sqlite3_context* c, StrId id) { textOf(c, x.r().strings.view(id)); }
template <class T>
bool has(const Column<T>& col, uint32_t row) {
    return row < col.size();
}
void intOrNull(sqlite3_context* c, bool present, int64_t v) {
    if (present) sqlite3_result_int64(c, v);
    else sqlite3_result_null(c);
}

std::string_view gpuKindText(EventKind k) {
    switch (k) {
        case EventKind::Memcpy: return "memcpy";
        case EventKind::Memset: return "memset";
        case EventKind::Kernel: return "kernel";
        default: return toString(k);
    }
}

// ---- tables
std::vector<ColumnDef> kernelColumns() {
    return {
        {"row", "INTEGER", "row of the activity in its rank's table", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.row); }},
        {"ts_ns", "INTEGER", "start, ns on the rank's clock", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.r().gpu.ts[x.row]); }},
        {"dur_ns", "INTEGER", "duration, ns", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.r().gpu.dur[x.row]); }},
        {"end_ns", "INTEGER", "ts_ns + dur_ns", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.r().gpu.ts[x.row] + x.r().gpu.dur[x.row]); }},
        {"name", "TEXT", "kernel name, or the memcpy/memset's", [](const Cell& x, sqlite3_context* c) { strOf(x, c, x.r().gpu.name[x.row]); }},
        {"kind", "TEXT", "kernel, memcpy or memset", [](const Cell& x, sqlite3_context* c) { textOf(c, gpuKindText(x.r().gpu.kind[x.row])); }},
        {"category", "TEXT", "Strobe's kernel category (gemm, attention, communication, ...)", [](const Cell& x, sqlite3_context* c) {
             if (has(x.r().gpu.category, x.row)) textOf(c, toString(x.r().gpu.category[x.row]));
             else sqlite3_result_null(c);
         }},
        {"collective", "TEXT", "allreduce, allgather, ... for communication kernels, else NULL", [](const Cell& x, sqlite3_context* c) {
             if (has(x.r().gpu.collective, x.row) && x.r().gpu.collective[x.row] != Collective::None)
                 textOf(c, toString(x.r().gpu.collective[x.row]));
             else sqlite3_result_null(c);
         }},
        {"device", "INTEGER", "GPU index", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.r().gpu.device[x.row]); }},
        {"stream", "INTEGER", "stream", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.r().gpu.stream[x.row]); }},
        {"queue", "INTEGER", "hardware queue (rocprof sources), else NULL", [](const Cell& x, sqlite3_context* c) {
             intOrNull(c, has(x.r().gpu.queue, x.row) && x.r().gpu.queue[x.row] >= 0, has(x.r().gpu.queue, x.row) ? x.r().gpu.queue[x.row] : 0);
         }},
        {"correlation", "INTEGER", "correlation id with the launching call, NULL when none", [](const Cell& x, sqlite3_context* c) {
             intOrNull(c, x.r().gpu.correlation[x.row] != kNone, x.r().gpu.correlation[x.row]);
         }},
        {"step", "INTEGER", "ProfilerStep number it ran in, NULL outside every step", [](const Cell& x, sqlite3_context* c) {
             const RankData& r = x.r();
             const int32_t s = has(r.gpu.step, x.row) ? r.gpu.step[x.row] : -1;
             intOrNull(c, s >= 0 && size_t(s) < r.steps.size(), s >= 0 && size_t(s) < r.steps.size() ? r.steps.number[size_t(s)] : 0);
         }},
        {"grid_x", "INTEGER", "grid size x (0 when not recorded)", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.r().gpu.gridX[x.row]); }},
        {"grid_y", "INTEGER", "grid size y", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.r().gpu.gridY[x.row]); }},
        {"grid_z", "INTEGER", "grid size z", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.r().gpu.gridZ[x.row]); }},
        {"block_x", "INTEGER", "block size x", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.r().gpu.blockX[x.row]); }},
        {"block_y", "INTEGER", "block size y", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.r().gpu.blockY[x.row]); }},
        {"block_z", "INTEGER", "block size z", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.r().gpu.blockZ[x.row]); }},
        {"bytes", "INTEGER", "memcpy/memset bytes, 0 for kernels", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.r().gpu.bytes[x.row]); }},
        {"launch_ts_ns", "INTEGER", "start of the runtime/driver call that launched it, NULL when unknown", [](const Cell& x, sqlite3_context* c) {
             const RankData& r = x.r();
             const int32_t s = has(r.gpu.runtime, x.row) ? r.gpu.runtime[x.row] : -1;
             intOrNull(c, s >= 0 && size_t(s) < r.slices.size(), s >= 0 && size_t(s) < r.slices.size() ? r.slices.ts[size_t(s)] : 0);
         }},
        {"op", "TEXT", "innermost CPU operator that launched it, NULL when unknown", [](const Cell& x, sqlite3_context* c) {
             const RankData& r = x.r();
             const int32_t s = has(r.gpu.cpuOp, x.row) ? r.gpu.cpuOp[x.row] : -1;
             if (s >= 0 && size_t(s) < r.slices.size()) strOf(x, c, r.slices.name[size_t(s)]);
             else sqlite3_result_null(c);
         }},
    };
}

int64_t trackPid(const RankData& r, uint32_t track) { return track < r.tracks.size() ? r.tracks[track].pid : 0; }
int64_t trackTid(const RankData& r, uint32_t track) { return track < r.tracks.size() ? r.tracks[track].tid : 0; }

std::vector<ColumnDef> sliceColumns() {
    return {
        {"row", "INTEGER", "row of the slice in its rank's table (what `parent` refers to)", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.row); }},
        {"ts_ns", "INTEGER", "start, ns", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.r().slices.ts[x.row]); }},
        {"dur_ns", "INTEGER", "duration, ns (0 for instants)", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.r().slices.dur[x.row]); }},
        {"end_ns", "INTEGER", "ts_ns + dur_ns", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.r().slices.ts[x.row] + std::max<TimeNs>(0, x.r().slices.dur[x.row])); }},
        {"name", "TEXT", "name", [](const Cell& x, sqlite3_context* c) { strOf(x, c, x.r().slices.name[x.row]); }},
        {"cat", "TEXT", "category as written", [](const Cell& x, sqlite3_context* c) { strOf(x, c, x.r().slices.cat[x.row]); }},
        {"kind", "TEXT", "cpu_op, user_annotation, runtime, driver, python_function, os_runtime, ...", [](const Cell& x, sqlite3_context* c) { textOf(c, toString(x.r().slices.kind[x.row])); }},
        {"pid", "INTEGER", "process id", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, trackPid(x.r(), x.r().slices.track[x.row])); }},
        {"tid", "INTEGER", "thread id", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, trackTid(x.r(), x.r().slices.track[x.row])); }},
        {"thread", "TEXT", "thread name, NULL when the source names none", [](const Cell& x, sqlite3_context* c) {
             const auto& names = x.engine.threadNamesOf(x.r());
             const uint32_t t = x.r().slices.track[x.row];
             if (t < names.size() && names[t] != kEmptyStr) strOf(x, c, names[t]);
             else sqlite3_result_null(c);
         }},
        {"depth", "INTEGER", "nesting depth on its thread (0: top level)", [](const Cell& x, sqlite3_context* c) {
             intOrNull(c, has(x.r().slices.depth, x.row), has(x.r().slices.depth, x.row) ? x.r().slices.depth[x.row] : 0);
         }},
        {"parent", "INTEGER", "row of the enclosing slice on the same thread, NULL at top level", [](const Cell& x, sqlite3_context* c) {
             const int32_t p = has(x.r().slices.parent, x.row) ? x.r().slices.parent[x.row] : -1;
             intOrNull(c, p >= 0, p);
         }},
        {"correlation", "INTEGER", "correlation id (runtime/driver calls), NULL when none", [](const Cell& x, sqlite3_context* c) {
             intOrNull(c, x.r().slices.correlation[x.row] != kNone, x.r().slices.correlation[x.row]);
         }},
        {"external_id", "INTEGER", "External id, NULL when none", [](const Cell& x, sqlite3_context* c) {
             intOrNull(c, x.r().slices.externalId[x.row] != kNone, x.r().slices.externalId[x.row]);
         }},
    };
}

std::vector<ColumnDef> flowColumns() {
    return {
        {"id", "INTEGER", "flow id", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.r().flows.id[x.row]); }},
        {"ts_ns", "INTEGER", "time, ns", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.r().flows.ts[x.row]); }},
        {"phase", "TEXT", "s (start), t (step) or f (end)", [](const Cell& x, sqlite3_context* c) { textOf(c, std::string_view(&x.r().flows.phase[x.row], 1)); }},
        {"name", "TEXT", "name", [](const Cell& x, sqlite3_context* c) { strOf(x, c, x.r().flows.name[x.row]); }},
        {"cat", "TEXT", "category", [](const Cell& x, sqlite3_context* c) { strOf(x, c, x.r().flows.cat[x.row]); }},
        {"pid", "INTEGER", "process id", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, trackPid(x.r(), x.r().flows.track[x.row])); }},
        {"tid", "INTEGER", "thread id (or stream)", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, trackTid(x.r(), x.r().flows.track[x.row])); }},
    };
}

std::vector<ColumnDef> counterColumns() {
    return {
        {"ts_ns", "INTEGER", "time, ns", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.r().counters.ts[x.row]); }},
        {"name", "TEXT", "counter event name", [](const Cell& x, sqlite3_context* c) { strOf(x, c, x.r().counters.name[x.row]); }},
        {"series", "TEXT", "series (argument key)", [](const Cell& x, sqlite3_context* c) { strOf(x, c, x.r().counters.series[x.row]); }},
        {"value", "REAL", "value", [](const Cell& x, sqlite3_context* c) { sqlite3_result_double(c, x.r().counters.value[x.row]); }},
    };
}

std::vector<ColumnDef> sampleColumns() {
    return {
        {"ts_ns", "INTEGER", "time, ns", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.r().samples.ts[x.row]); }},
        {"device", "INTEGER", "GPU index, -1 for host metrics", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.r().samples.device[x.row]); }},
        {"name", "TEXT", "metric", [](const Cell& x, sqlite3_context* c) { strOf(x, c, x.r().samples.metric[x.row]); }},
        {"value", "REAL", "value", [](const Cell& x, sqlite3_context* c) { sqlite3_result_double(c, x.r().samples.value[x.row]); }},
        {"source", "TEXT", "file the sample came from", [](const Cell& x, sqlite3_context* c) {
             textOf(c, x.r().path.empty() ? std::string_view(x.r().info.path) : std::string_view(x.r().path));
         }},
    };
}

std::vector<ColumnDef> stepColumns() {
    return {
        {"number", "INTEGER", "N of ProfilerStep#N", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.r().steps.number[x.row]); }},
        {"ts_ns", "INTEGER", "start, ns", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.r().steps.start[x.row]); }},
        {"end_ns", "INTEGER", "end, ns", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.r().steps.end[x.row]); }},
        {"dur_ns", "INTEGER", "end_ns - ts_ns", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, x.r().steps.end[x.row] - x.r().steps.start[x.row]); }},
    };
}

std::vector<ColumnDef> rankColumns() {
    return {
        {"path", "TEXT", "the rank's file", [](const Cell& x, sqlite3_context* c) {
             textOf(c, x.r().path.empty() ? std::string_view(x.r().info.path) : std::string_view(x.r().path));
         }},
        {"platform", "TEXT", "NVIDIA, AMD or unknown", [](const Cell& x, sqlite3_context* c) { textOf(c, toString(x.r().info.platform)); }},
        {"gpu", "TEXT", "GPU name, NULL when the source names none", [](const Cell& x, sqlite3_context* c) {
             const std::string g = x.r().info.gpuName();
             if (g.empty()) sqlite3_result_null(c);
             else sqlite3_result_text(c, g.data(), static_cast<int>(g.size()), SQLITE_TRANSIENT);
         }},
        {"world_size", "INTEGER", "world size from the trace, NULL when not said", [](const Cell& x, sqlite3_context* c) {
             intOrNull(c, x.r().info.distributed.worldSize > 0, x.r().info.distributed.worldSize);
         }},
        {"kernels", "INTEGER", "GPU activities of kind kernel", [](const Cell& x, sqlite3_context* c) {
             sqlite3_result_int64(c, std::count(x.r().gpu.kind.begin(), x.r().gpu.kind.end(), EventKind::Kernel));
         }},
        {"gpu_activities", "INTEGER", "rows of `kernels` (kernels, memcpy, memset)", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, static_cast<int64_t>(x.r().gpu.size())); }},
        {"slices", "INTEGER", "rows of `slices`", [](const Cell& x, sqlite3_context* c) { sqlite3_result_int64(c, static_cast<int64_t>(x.r().slices.size())); }},
    };
}

std::vector<ColumnDef> runColumns() {
    return {
        {"sources", "TEXT", "what was opened, one per line", [](const Cell& x, sqlite3_context* c) {
             std::string s;
             for (const auto& p : x.engine.runs[x.source.run].dataset->sources) s += (s.empty() ? "" : "\n") + p;
             sqlite3_result_text(c, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
         }},
        {"ranks", "INTEGER", "number of ranks", [](const Cell& x, sqlite3_context* c) {
             sqlite3_result_int64(c, static_cast<int64_t>(x.engine.runs[x.source.run].dataset->ranks.size()));
         }},
    };
}

const std::vector<TableDef>& tableDefs() {
    static const std::vector<TableDef> defs = [] {
        std::vector<TableDef> d;
        TableDef k;
        k.name = "kernels";
        k.doc = "GPU activities: kernels, memcpy and memset";
        k.count = [](const RankData& r) { return r.gpu.size(); };
        k.ts = [](const RankData& r) { return &r.gpu.ts; };
        k.names = [](const RankData& r) { return &r.gpu.name; };
        k.identity = [](const RankData& r) -> const void* { return &r.gpu; };
        k.columns = kernelColumns();
        d.push_back(std::move(k));
        TableDef s;
        s.name = "slices";
        s.doc = "CPU-side events: operators, runtime and driver calls, annotations, Python functions, OS runtime calls";
        s.count = [](const RankData& r) { return r.slices.size(); };
        s.ts = [](const RankData& r) { return &r.slices.ts; };
        s.names = [](const RankData& r) { return &r.slices.name; };
        s.identity = [](const RankData& r) -> const void* { return &r.slices; };
        s.columns = sliceColumns();
        d.push_back(std::move(s));
        TableDef f;
        f.name = "flows";
        f.doc = "flow events linking CPU work to GPU work";
        f.count = [](const RankData& r) { return r.flows.size(); };
        f.ts = [](const RankData& r) { return &r.flows.ts; };
        f.identity = [](const RankData& r) -> const void* { return &r.flows; };
        f.columns = flowColumns();
        d.push_back(std::move(f));
        TableDef c;
        c.name = "counters";
        c.doc = "counter events of the trace (ph C)";
        c.count = [](const RankData& r) { return r.counters.size(); };
        c.ts = [](const RankData& r) { return &r.counters.ts; };
        c.names = [](const RankData& r) { return &r.counters.name; };
        c.identity = [](const RankData& r) -> const void* { return &r.counters; };
        c.columns = counterColumns();
        d.push_back(std::move(c));
        TableDef m;
        m.name = "samples";
        m.doc = "telemetry samples: the ranks' own, then each host's sources (rank NULL)";
        m.hosts = true;
        m.count = [](const RankData& r) { return r.samples.size(); };
        m.ts = [](const RankData& r) { return &r.samples.ts; };
        m.names = [](const RankData& r) { return &r.samples.metric; };
        m.identity = [](const RankData& r) -> const void* { return &r.samples; };
        m.columns = sampleColumns();
        d.push_back(std::move(m));
        TableDef st;
        st.name = "steps";
        st.doc = "ProfilerStep#N ranges";
        st.count = [](const RankData& r) { return r.steps.size(); };
        st.ts = [](const RankData& r) { return &r.steps.start; };
        st.identity = [](const RankData& r) -> const void* { return &r.steps; };
        st.columns = stepColumns();
        d.push_back(std::move(st));
        TableDef rk;
        rk.name = "ranks";
        rk.doc = "one row per rank";
        rk.rowsOf = RowsOf::Rank;
        rk.columns = rankColumns();
        d.push_back(std::move(rk));
        TableDef rn;
        rn.name = "runs";
        rn.doc = "one row per run";
        rn.rowsOf = RowsOf::Run;
        rn.columns = runColumns();
        d.push_back(std::move(rn));
        return d;
    }();
    return defs;
}

const std::vector<QueryViewDoc>& viewDefs() {
    static const std::vector<QueryViewDoc> v = {
        {"kernel_time_per_step", "kernel count and time per step and category, per rank",
         "SELECT run, rank, step, category, count(*) AS kernels, sum(dur_ns) AS kernel_ns FROM kernels "
         "WHERE kind = 'kernel' AND step IS NOT NULL GROUP BY run, rank, step, category"},
        {"launch_latency", "per kernel: the start of its launching call, and the time from that call to the kernel",
         "SELECT run, rank, name, ts_ns, launch_ts_ns, ts_ns - launch_ts_ns AS latency_ns FROM kernels "
         "WHERE kind = 'kernel' AND launch_ts_ns IS NOT NULL"},
        {"collective_arrival", "each rank's collective kernels numbered per (rank, collective) in time order",
         "SELECT run, rank, collective, name, ts_ns, end_ns, "
         "row_number() OVER (PARTITION BY run, rank, collective ORDER BY ts_ns) - 1 AS instance "
         "FROM kernels WHERE collective IS NOT NULL"},
        {"collective_skew", "per collective instance across ranks: first and last arrival and the skew between them",
         "SELECT run, collective, instance, count(*) AS ranks, min(ts_ns) AS first_arrival_ns, "
         "max(ts_ns) AS last_arrival_ns, max(ts_ns) - min(ts_ns) AS skew_ns FROM collective_arrival "
         "GROUP BY run, collective, instance"},
        // One sweep per (run, rank, step) over the kernels' start (+1) and end (-1) events: the running sums say how
        // many communication and computation kernels are active after each instant; the time to the next instant
        // counts as communication when one is, and as exposed when no computation kernel runs beside it.
        {"exposed_communication",
         "per rank and step: merged communication kernel time, and the part of it no computation kernel overlaps",
         "WITH ev(run, rank, step, t, dc, dk) AS ("
         "SELECT run, rank, step, ts_ns, category IS 'communication', category IS NOT 'communication' "
         "FROM kernels WHERE kind = 'kernel' UNION ALL "
         "SELECT run, rank, step, end_ns, -(category IS 'communication'), -(category IS NOT 'communication') "
         "FROM kernels WHERE kind = 'kernel'), "
         "seg AS (SELECT run, rank, step, t, sum(dc) OVER w AS comm, sum(dk) OVER w AS comp, "
         "lead(t) OVER (PARTITION BY run, rank, step ORDER BY t) AS next_t FROM ev "
         "WINDOW w AS (PARTITION BY run, rank, step ORDER BY t RANGE UNBOUNDED PRECEDING)) "
         "SELECT run, rank, step, sum(CASE WHEN comm > 0 THEN next_t - t ELSE 0 END) AS comm_ns, "
         "sum(CASE WHEN comp > 0 THEN next_t - t ELSE 0 END) AS compute_ns, "
         "sum(CASE WHEN comm > 0 AND comp = 0 THEN next_t - t ELSE 0 END) AS exposed_ns, "
         "100.0 * sum(CASE WHEN comm > 0 AND comp = 0 THEN next_t - t ELSE 0 END) / "
         "nullif(sum(CASE WHEN comm > 0 THEN next_t - t ELSE 0 END), 0) AS exposed_pct "
         "FROM seg WHERE next_t IS NOT NULL GROUP BY run, rank, step"},
    };
    return v;
}

// ---- the virtual table module

struct VTab : sqlite3_vtab {
    Impl* engine = nullptr;
    const TableDef* def = nullptr;
};

// One pushed-down constraint: field R(un) K(rank) T(ts) N(ame) D(kind) S(tream); op = > g(>=) < l(<=).
struct Pushed {
    char field, op;
};

struct Cursor : sqlite3_vtab_cursor {
    const std::vector<QuerySource>* sources = nullptr;
    size_t source = 0;  // index into *sources
    const std::vector<uint32_t>* order = nullptr;
    uint64_t pos = 0, end = 0;
    uint32_t row = 0;
    bool eof = true;
    // filters
    std::optional<std::string> runLabel;
    std::optional<int64_t> rank;
    bool hasTs = false;
    int64_t tsLo = INT64_MIN, tsHi = INT64_MAX;
    std::optional<std::string> name;
    StrId nameId = kEmptyStr;
    std::optional<std::string> kind;
    std::optional<int64_t> stream;
};

VTab* vtabOf(sqlite3_vtab_cursor* c) { return static_cast<VTab*>(c->pVtab); }

int xConnect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char**) {
    const auto* pair = static_cast<const std::pair<Impl*, const void*>*>(aux);
    const auto* def = static_cast<const TableDef*>(pair->second);
    std::string sql = "CREATE TABLE x(run TEXT, rank INTEGER";
    for (const auto& c : def->columns) sql += fmt::format(", {} {}", c.name, c.type);
    sql += ")";
    if (const int rc = sqlite3_declare_vtab(db, sql.c_str()); rc != SQLITE_OK) return rc;
    sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);  // reads columns, no side effect: usable in the views
    auto* v = new VTab();
    v->def = def;
    v->engine = pair->first;
    *out = v;
    return SQLITE_OK;
}
int xDisconnect(sqlite3_vtab* v) {
    delete static_cast<VTab*>(v);
    return SQLITE_OK;
}

int columnIndex(const TableDef& d, std::string_view name) {
    for (size_t i = 0; i < d.columns.size(); ++i)
        if (name == d.columns[i].name) return static_cast<int>(i) + 2;
    return -100;
}

int xBestIndex(sqlite3_vtab* vt, sqlite3_index_info* info) {
    const TableDef& d = *static_cast<VTab*>(vt)->def;
    const int tsCol = d.ts ? columnIndex(d, "ts_ns") : -100;
    const int nameCol = d.names ? columnIndex(d, "name") : -100;
    const bool kernels = d.rowsOf == RowsOf::Table && std::string_view(d.name) == "kernels";
    const int kindCol = kernels ? columnIndex(d, "kind") : -100;
    const int streamCol = kernels ? columnIndex(d, "stream") : -100;
    std::string codes;
    double cost = 1e6;
    int argv = 0;
    for (int i = 0; i < info->nConstraint; ++i) {
        const auto& c = info->aConstraint[i];
        if (!c.usable) continue;
        char field = 0, op = 0;
        switch (c.op) {
            case SQLITE_INDEX_CONSTRAINT_EQ: op = '='; break;
            case SQLITE_INDEX_CONSTRAINT_GT: op = '>'; break;
            case SQLITE_INDEX_CONSTRAINT_GE: op = 'g'; break;
            case SQLITE_INDEX_CONSTRAINT_LT: op = '<'; break;
            case SQLITE_INDEX_CONSTRAINT_LE: op = 'l'; break;
            default: continue;
        }
        if (c.iColumn == 0 && op == '=') field = 'R', cost *= 0.5;
        else if (c.iColumn == 1 && op == '=') field = 'K', cost *= 0.2;
        else if (c.iColumn == tsCol) field = 'T', cost *= op == '=' ? 0.001 : 0.3;
        else if (c.iColumn == nameCol && op == '=') field = 'N', cost *= 0.5;
        else if (c.iColumn == kindCol && op == '=') field = 'D', cost *= 0.8;
        else if (c.iColumn == streamCol && op == '=') field = 'S', cost *= 0.5;
        if (!field) continue;
        info->aConstraintUsage[i].argvIndex = ++argv;
        info->aConstraintUsage[i].omit = 0;  // SQLite checks again: the pushdown only narrows what is read
        codes += field;
        codes += op;
    }
    info->idxStr = sqlite3_mprintf("%s", codes.c_str());
    info->needToFreeIdxStr = 1;
    info->estimatedCost = cost;
    info->estimatedRows = static_cast<sqlite3_int64>(std::max(1.0, cost));
    return SQLITE_OK;
}

int xOpen(sqlite3_vtab*, sqlite3_vtab_cursor** out) {
    *out = new Cursor();
    return SQLITE_OK;
}
int xClose(sqlite3_vtab_cursor* c) {
    delete static_cast<Cursor*>(c);
    return SQLITE_OK;
}

// A time bound from an SQL value, or nothing when the value is not a number.
std::optional<double> numberOf(sqlite3_value* v) {
    const int t = sqlite3_value_numeric_type(v);
    if (t == SQLITE_INTEGER) return static_cast<double>(sqlite3_value_int64(v));
    if (t == SQLITE_FLOAT) return sqlite3_value_double(v);
    return std::nullopt;
}
int64_t clampToInt(double v) {
    if (!(v > -9.2e18)) return INT64_MIN;
    if (!(v < 9.2e18)) return INT64_MAX;
    return static_cast<int64_t>(v);
}

void applyTimeBound(Cursor& c, char op, sqlite3_value* v) {
    if (sqlite3_value_numeric_type(v) == SQLITE_INTEGER) {
        const int64_t x = sqlite3_value_int64(v);
        c.hasTs = true;
        if (op == '>' && x < INT64_MAX) c.tsLo = std::max(c.tsLo, x + 1);
        if (op == 'g' || op == '=') c.tsLo = std::max(c.tsLo, x);
        if (op == '<' && x > INT64_MIN) c.tsHi = std::min(c.tsHi, x - 1);
        if (op == 'l' || op == '=') c.tsHi = std::min(c.tsHi, x);
        return;
    }
    const auto d = numberOf(v);
    if (!d) return;  // text or NULL: SQLite's own check decides
    c.hasTs = true;
    if (op == '>') c.tsLo = std::max(c.tsLo, clampToInt(std::floor(*d)));
    if (op == 'g' || op == '=') c.tsLo = std::max(c.tsLo, clampToInt(std::floor(*d)));
    if (op == '<') c.tsHi = std::min(c.tsHi, clampToInt(std::ceil(*d)));
    if (op == 'l' || op == '=') c.tsHi = std::min(c.tsHi, clampToInt(std::ceil(*d)));
}

bool rowPasses(const Cursor& c, const TableDef& d, const RankData& r, uint32_t row) {
    if (c.name && d.names && (*d.names(r))[row] != c.nameId) return false;
    if (c.kind && gpuKindText(r.gpu.kind[row]) != *c.kind) return false;
    if (c.stream && r.gpu.stream[row] != *c.stream) return false;
    return true;
}

// Sets up the cursor on source `c.source` (or the next one that has rows); false at the end.
bool enterSource(Cursor& c, Impl& e, const TableDef& d) {
    for (; c.source < c.sources->size(); ++c.source) {
        const QuerySource& s = (*c.sources)[c.source];
        if (c.runLabel && e.runs[s.run].label != *c.runLabel) continue;
        if (c.rank && (!s.rank || s.host || s.rank->rank != *c.rank)) continue;
        if (d.rowsOf != RowsOf::Table) {
            c.order = nullptr;
            c.pos = 0;
            c.end = 1;
            return true;
        }
        const RankData& r = *s.rank;
        if (c.name) {
            auto id = r.strings.find(*c.name);
            if (!id) continue;  // the name is not in this rank at all
            c.nameId = *id;
        }
        c.order = nullptr;
        c.pos = 0;
        c.end = d.count(r);
        if (c.hasTs && d.ts) {
            const Column<TimeNs>& ts = *d.ts(r);
            const std::vector<uint32_t>& order = e.orderFor(r, d.identity(r), ts);
            auto at = [&](uint64_t p) { return order.empty() ? ts[p] : ts[order[p]]; };
            uint64_t lo = 0, hi = c.end;
            while (lo < hi) {  // first position with ts >= tsLo
                const uint64_t mid = (lo + hi) / 2;
                if (at(mid) < c.tsLo) lo = mid + 1;
                else hi = mid;
            }
            const uint64_t first = lo;
            hi = c.end;
            while (lo < hi) {  // first position with ts > tsHi
                const uint64_t mid = (lo + hi) / 2;
                if (at(mid) <= c.tsHi) lo = mid + 1;
                else hi = mid;
            }
            c.pos = first;
            c.end = lo;
            c.order = order.empty() ? nullptr : &order;
        }
        if (c.pos < c.end) return true;
    }
    return false;
}

// Moves to the next row that passes the pushed-down filters.
void advance(Cursor& c, Impl& e, const TableDef& d) {
    while (true) {
        if (c.pos >= c.end) {
            ++c.source;
            if (!enterSource(c, e, d)) {
                c.eof = true;
                return;
            }
        }
        const uint64_t p = c.pos++;
        c.row = static_cast<uint32_t>(c.order ? (*c.order)[p] : p);
        if (d.rowsOf != RowsOf::Table || rowPasses(c, d, *(*c.sources)[c.source].rank, c.row)) return;
    }
}

const std::vector<QuerySource>& sourcesFor(Impl& e, const TableDef& d) {
    if (d.rowsOf == RowsOf::Run) return e.runRows;
    return d.hosts ? e.withHosts : e.ranks;
}

int xFilter(sqlite3_vtab_cursor* cur, int, const char* idxStr, int argc, sqlite3_value** argv) {
    auto& c = *static_cast<Cursor*>(cur);
    VTab* vt = vtabOf(cur);
    const TableDef& d = *vt->def;
    c = Cursor{};
    c.pVtab = vt;
    const std::string_view codes = idxStr ? idxStr : "";
    for (int i = 0; i < argc && size_t(i) * 2 + 1 < codes.size(); ++i) {
        const char field = codes[size_t(i) * 2], op = codes[size_t(i) * 2 + 1];
        sqlite3_value* v = argv[i];
        auto text = [&]() -> std::optional<std::string> {
            if (sqlite3_value_type(v) != SQLITE_TEXT) return std::nullopt;
            return std::string(reinterpret_cast<const char*>(sqlite3_value_text(v)), size_t(sqlite3_value_bytes(v)));
        };
        if (field == 'R') c.runLabel = text();
        if (field == 'K' && sqlite3_value_numeric_type(v) == SQLITE_INTEGER) c.rank = sqlite3_value_int64(v);
        if (field == 'T') applyTimeBound(c, op, v);
        if (field == 'N') c.name = text();
        if (field == 'D') c.kind = text();
        if (field == 'S' && sqlite3_value_numeric_type(v) == SQLITE_INTEGER) c.stream = sqlite3_value_int64(v);
    }
    c.sources = &sourcesFor(*vt->engine, d);
    c.source = 0;
    c.eof = !enterSource(c, *vt->engine, d);
    if (!c.eof) advance(c, *vt->engine, d);  // onto the first row that passes the filters
    return SQLITE_OK;
}

int xNext(sqlite3_vtab_cursor* cur) {
    auto& c = *static_cast<Cursor*>(cur);
    advance(c, *vtabOf(cur)->engine, *vtabOf(cur)->def);
    return SQLITE_OK;
}
int xEof(sqlite3_vtab_cursor* cur) { return static_cast<Cursor*>(cur)->eof ? 1 : 0; }

int xColumn(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int col) {
    auto& c = *static_cast<Cursor*>(cur);
    VTab* vt = vtabOf(cur);
    Impl& e = *vt->engine;
    const QuerySource& s = (*c.sources)[c.source];
    if (col == 0) {
        textOf(ctx, e.runs[s.run].label);
        return SQLITE_OK;
    }
    if (col == 1) {
        intOrNull(ctx, s.rank && !s.host, s.rank ? s.rank->rank : 0);
        return SQLITE_OK;
    }
    const size_t k = size_t(col) - 2;
    if (k < vt->def->columns.size()) vt->def->columns[k].get(Cell{e, s, c.row}, ctx);
    else sqlite3_result_null(ctx);
    return SQLITE_OK;
}

int xRowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
    auto& c = *static_cast<Cursor*>(cur);
    *out = static_cast<sqlite3_int64>((uint64_t(c.source) << 40) | c.row);
    return SQLITE_OK;
}

sqlite3_module makeModule() {
    sqlite3_module m{};
    m.iVersion = 1;
    m.xCreate = nullptr;  // eponymous-only: the table exists under the module's name, no CREATE needed
    m.xConnect = xConnect;
    m.xBestIndex = xBestIndex;
    m.xDisconnect = xDisconnect;
    m.xDestroy = xDisconnect;
    m.xOpen = xOpen;
    m.xClose = xClose;
    m.xFilter = xFilter;
    m.xNext = xNext;
    m.xEof = xEof;
    m.xColumn = xColumn;
    m.xRowid = xRowid;
    return m;
}

const sqlite3_module& moduleDef() {
    static const sqlite3_module m = makeModule();
    return m;
}

// Reading only: SELECT, column reads, functions, recursive CTEs. Everything else (ATTACH, DETACH, PRAGMA,
// CREATE, INSERT, UPDATE, DELETE, transactions, ...) is denied.
int authorize(void*, int action, const char*, const char*, const char*, const char*) {
    switch (action) {
        case SQLITE_SELECT:
        case SQLITE_READ:
        case SQLITE_FUNCTION:
        case SQLITE_RECURSIVE: return SQLITE_OK;
        default: return SQLITE_DENY;
    }
}

bool onlySpaceOrComments(std::string_view s) {
    size_t i = 0;
    while (i < s.size()) {
        const char ch = s[i];
        if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == ';') ++i;
        else if (s.substr(i, 2) == "--") i = std::min(s.size(), s.find('\n', i) == std::string_view::npos ? s.size() : s.find('\n', i));
        else if (s.substr(i, 2) == "/*") {
            const size_t e = s.find("*/", i + 2);
            if (e == std::string_view::npos) return false;
            i = e + 2;
        } else return false;
    }
    return true;
}

Error queryError(std::string message, int64_t offset = -1) {
    Location where;
    where.file = "query";
    where.byteOffset = offset;
    return Error(where, std::move(message));
}

}  // namespace

QueryEngine::QueryEngine(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

QueryEngine::~QueryEngine() {
    if (m_impl && m_impl->db) sqlite3_close(m_impl->db);
}

Result<std::unique_ptr<QueryEngine>> QueryEngine::open(std::vector<QueryRun> runs) {
    auto impl = std::make_unique<Impl>();
    impl->runs = std::move(runs);
    for (size_t i = 0; i < impl->runs.size(); ++i) {
        if (!impl->runs[i].dataset) continue;
        for (const auto& r : impl->runs[i].dataset->ranks)
            if (r) impl->ranks.push_back({i, r.get(), false});
    }
    impl->withHosts = impl->ranks;
    for (size_t i = 0; i < impl->runs.size(); ++i) impl->runRows.push_back({i, nullptr, false});
    for (size_t i = 0; i < impl->runs.size(); ++i)
        if (impl->runs[i].dataset)
            for (const auto& h : impl->runs[i].dataset->hosts)
                for (const auto& s : h.sources)
                    if (s) impl->withHosts.push_back({i, s.get(), true});
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_MEMORY, nullptr) !=
        SQLITE_OK) {
        std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
        if (db) sqlite3_close(db);
        return queryError("cannot open SQLite: " + msg);
    }
    impl->db = db;
    auto engine = std::unique_ptr<QueryEngine>(new QueryEngine(std::move(impl)));
    Impl& e = *engine->m_impl;
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
    sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 100 * 1000 * 1000);
    for (const TableDef& d : tableDefs()) {
        e.moduleAux.emplace_back(&e, &d);
        if (sqlite3_create_module_v2(db, d.name, &moduleDef(), &e.moduleAux.back(), nullptr) != SQLITE_OK)
            return queryError(fmt::format("cannot register table {}: {}", d.name, sqlite3_errmsg(db)));
    }
    for (const QueryViewDoc& v : viewDefs()) {
        const std::string sql = fmt::format("CREATE TEMP VIEW {} AS {}", v.name, v.sql);
        char* err = nullptr;
        if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
            std::string msg = err ? err : "?";
            sqlite3_free(err);
            return queryError(fmt::format("cannot create view {}: {}", v.name, msg));
        }
    }
    // Connect every table now: the connection declares its schema with a CREATE TABLE, which the authorizer would
    // deny once set. Eponymous tables stay connected for the database's life.
    for (const TableDef& d : tableDefs()) {
        const std::string sql = fmt::format("SELECT 1 FROM {} LIMIT 0", d.name);
        if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK)
            return queryError(fmt::format("cannot connect table {}: {}", d.name, sqlite3_errmsg(db)));
    }
    sqlite3_set_authorizer(db, authorize, nullptr);
    return engine;
}

Result<QueryResult> QueryEngine::run(std::string_view sql, size_t maxRows) {
    sqlite3* db = m_impl->db;
    sqlite3_stmt* st = nullptr;
    const char* tail = nullptr;
    const int rc = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), 0, &st, &tail);
    if (rc != SQLITE_OK) {
        const int64_t off = sqlite3_error_offset(db);
        std::string msg = sqlite3_errmsg(db);
        if (sqlite3_errcode(db) == SQLITE_AUTH)
            msg += " (a query may only read: ATTACH, DETACH, PRAGMA, CREATE, writes and extensions are refused)";
        return queryError(msg, off);
    }
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> hold(st, sqlite3_finalize);
    if (!st) return queryError("the query is empty");
    size_t used = static_cast<size_t>(tail - sql.data());
    while (used < sql.size() && (sql[used] == ' ' || sql[used] == '\t' || sql[used] == '\n' || sql[used] == '\r')) ++used;
    if (!onlySpaceOrComments(sql.substr(used)))
        return queryError("one statement per query: a second statement starts here", static_cast<int64_t>(used));
    if (!sqlite3_stmt_readonly(st)) return queryError("a query may only read (the statement would write)", 0);
    m_impl->stepsUsed = 0;
    QueryResult out;
    const int n = sqlite3_column_count(st);
    for (int i = 0; i < n; ++i) out.columns.emplace_back(sqlite3_column_name(st, i) ? sqlite3_column_name(st, i) : "");
    while (true) {
        const int s = sqlite3_step(st);
        if (s == SQLITE_DONE) break;
        if (s != SQLITE_ROW) {
            const bool overBudget = s == SQLITE_INTERRUPT && m_impl->maxSteps && m_impl->stepsUsed > m_impl->maxSteps;
            const std::string msg = overBudget ? fmt::format("the query ran past its limit of {} steps", m_impl->maxSteps)
                                    : s == SQLITE_INTERRUPT ? std::string("the query was cancelled")
                                                            : std::string(sqlite3_errmsg(db));
            return queryError(msg, sqlite3_error_offset(db));
        }
        if (maxRows && out.rows.size() >= maxRows) {
            out.truncated = true;
            break;
        }
        std::vector<QueryValue> row;
        row.reserve(size_t(n));
        for (int i = 0; i < n; ++i) {
            switch (sqlite3_column_type(st, i)) {
                case SQLITE_INTEGER: row.emplace_back(static_cast<int64_t>(sqlite3_column_int64(st, i))); break;
                case SQLITE_FLOAT: row.emplace_back(sqlite3_column_double(st, i)); break;
                case SQLITE_NULL: row.emplace_back(std::monostate{}); break;
                default:
                    row.emplace_back(std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, i)),
                                                 size_t(sqlite3_column_bytes(st, i))));
            }
        }
        out.rows.push_back(std::move(row));
    }
    return out;
}

void QueryEngine::interrupt() { sqlite3_interrupt(m_impl->db); }

void QueryEngine::setMaxValueBytes(int bytes) { sqlite3_limit(m_impl->db, SQLITE_LIMIT_LENGTH, bytes); }

void QueryEngine::setMaxSteps(uint64_t steps) {
    m_impl->maxSteps = steps;
    constexpr int kEvery = 1000;
    if (steps == 0) {
        sqlite3_progress_handler(m_impl->db, 0, nullptr, nullptr);
        return;
    }
    sqlite3_progress_handler(
        m_impl->db, kEvery,
        [](void* p) -> int {
            auto* e = static_cast<Impl*>(p);
            e->stepsUsed += kEvery;
            return e->stepsUsed > e->maxSteps ? 1 : 0;
        },
        m_impl.get());
}

const std::vector<QueryTableDoc>& QueryEngine::tables() {
    static const std::vector<QueryTableDoc> docs = [] {
        std::vector<QueryTableDoc> out;
        for (const TableDef& d : tableDefs()) {
            QueryTableDoc t{d.name, d.doc, {}};
            t.columns.push_back({"run", "TEXT", "the run's label"});
            t.columns.push_back({"rank", "INTEGER", "rank number (NULL for a host's telemetry)"});
            for (const auto& c : d.columns) t.columns.push_back({c.name, c.type, c.doc});
            out.push_back(std::move(t));
        }
        return out;
    }();
    return docs;
}

const std::vector<QueryViewDoc>& QueryEngine::views() { return viewDefs(); }

std::string queryCatalogText() {
    std::string s;
    for (const auto& t : QueryEngine::tables()) {
        s += t.name + ": ";
        for (size_t i = 0; i < t.columns.size(); ++i) s += (i ? ", " : "") + t.columns[i].name;
        s += "\n";
    }
    for (const auto& v : QueryEngine::views()) s += v.name + " (view): " + v.doc + "\n";
    return s;
}

}  // namespace strobe::core
