#pragma once
// SQL over loaded runs: SQLite virtual tables that read a Dataset's columns in place (no copy into SQLite), a
// standard library of views, and the guards that keep a query read-only.
//
// Tables (one row per entry of the rank's columnar table; every table starts with `run` and `rank`):
//   kernels   GPU activities (kind 'kernel', 'memcpy', 'memset'), with the step, category, collective and the
//             launching runtime call's start (launch_ts_ns) and CPU operator derived by the merge
//   slices    CPU-side events: operators, runtime/driver calls, annotations, Python functions, OS runtime calls
//   flows     flow events (s/t/f) linking CPU work to GPU work
//   counters  Kineto counter events (ph C)
//   samples   telemetry samples (ranks' own and each host's sources; host sources have rank NULL)
//   steps     ProfilerStep#N ranges
//   ranks     one row per rank: path, platform, GPU, world size, kernel and event counts
//   runs      one row per run: label, sources, rank count
// Times are nanoseconds on the rank's own clock as loaded (`ts_ns`, `end_ns`, `dur_ns`). Names are resolved from
// the string pool. Constraints on run, rank, ts_ns and name (and kernels.kind, kernels.stream) are pushed down (xBestIndex): a
// time range is found by binary search over a per-rank time order, a name by its interned id.
//
// Safety: one statement per query; the statement must be read-only; an authorizer allows only reading (SELECT,
// column reads, functions, recursive CTEs) — ATTACH, DETACH, PRAGMA, CREATE, INSERT, ... are denied; defensive
// mode on; extension loading off. Errors carry SQLite's message and the byte offset in the SQL where SQLite
// knows it (sqlite3_error_offset).
//
// core/query reads Dataset columns only; it never includes core/engine.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/io/error.h"
#include "core/model/dataset.h"

namespace strobe::core {

struct QueryRun {
    std::string label;  // the `run` column
    DatasetPtr dataset;
};

using QueryValue = std::variant<std::monostate, int64_t, double, std::string>;

struct QueryResult {
    std::vector<std::string> columns;
    std::vector<std::vector<QueryValue>> rows;
    std::vector<std::string> messages;
    bool truncated = false;  // stopped at maxRows
};

struct QueryColumnDoc {
    std::string name, type, doc;
};
struct QueryTableDoc {
    std::string name, doc;
    std::vector<QueryColumnDoc> columns;
};
struct QueryViewDoc {
    std::string name, doc, sql;
};

class QueryEngine {
public:
    // An engine over these runs (each with its label); an Error when SQLite cannot be set up.
    static Result<std::unique_ptr<QueryEngine>> open(std::vector<QueryRun> runs);
    ~QueryEngine();
    QueryEngine(const QueryEngine&) = delete;
    QueryEngine& operator=(const QueryEngine&) = delete;

    // Runs one read-only statement. maxRows 0: all rows. An Error's `where.byteOffset` is the offset in `sql`
    // SQLite reported (-1 when it did not), `where.file` is "query".
    Result<QueryResult> run(std::string_view sql, size_t maxRows = 0);
    // Stops the statement running now (any thread): sqlite3_interrupt.
    void interrupt();
    // Stops any statement after about this many SQLite virtual-machine steps (0: no limit), with an error saying
    // so. The fuzz target sets it, so that a runaway recursive query cannot keep it busy.
    void setMaxSteps(uint64_t steps);
    // The longest string or blob a statement may make (SQLite's SQLITE_LIMIT_LENGTH; default 100 MB).
    void setMaxValueBytes(int bytes);

    static const std::vector<QueryTableDoc>& tables();
    static const std::vector<QueryViewDoc>& views();

    struct Impl;

private:
    explicit QueryEngine(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

// "kernels: run TEXT, rank INTEGER, ..." one line per table and view (the CLI's help and the README).
std::string queryCatalogText();

}  // namespace strobe::core
