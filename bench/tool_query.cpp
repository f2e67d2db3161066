// strobe-query: strobe-cli query's tables (core/query) on a large in-memory run, each query beside the same query on
// a native SQLite table holding a copy of the same columns, in the same process. Medians of REPEATS.
//
//   strobe-query [KERNELS_TOTAL=10000000] [RANKS=8] [REPEATS=3]
//
// Queries: count + sum over every kernel; GROUP BY name; a time range holding about 1 % of the rows (pushed down:
// binary search over the rank's time order) beside the same range hidden from the pushdown (a full scan).
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/synthetic_dataset.h"
#include "core/query/sql_query.h"

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

template <class F>
double timed(int repeats, F&& f) {
    std::vector<double> t;
    for (int i = 0; i < repeats; ++i) {
        const auto a = Clock::now();
        f();
        t.push_back(std::chrono::duration<double>(Clock::now() - a).count());
    }
    return median(t);
}

// The same columns, copied into a plain SQLite table (what a user would get by exporting first).
sqlite3* nativeCopy(const strobe::core::Dataset& d) {
    sqlite3* db = nullptr;
    sqlite3_open(":memory:", &db);
    sqlite3_exec(db, "CREATE TABLE kernels(run TEXT, rank INTEGER, ts_ns INTEGER, dur_ns INTEGER, name TEXT, kind TEXT, "
                     "stream INTEGER)", nullptr, nullptr, nullptr);
    sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
    sqlite3_stmt* ins = nullptr;
    sqlite3_prepare_v2(db, "INSERT INTO kernels VALUES ('run', ?, ?, ?, ?, 'kernel', ?)", -1, &ins, nullptr);
    for (const auto& r : d.ranks) {
        for (size_t i = 0; i < r->gpu.size(); ++i) {
            const auto name = r->strings.view(r->gpu.name[i]);
            sqlite3_bind_int64(ins, 1, r->rank);
            sqlite3_bind_int64(ins, 2, r->gpu.ts[i]);
            sqlite3_bind_int64(ins, 3, r->gpu.dur[i]);
            sqlite3_bind_text(ins, 4, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
            sqlite3_bind_int64(ins, 5, r->gpu.stream[i]);
            sqlite3_step(ins);
            sqlite3_reset(ins);
        }
    }
    sqlite3_finalize(ins);
    sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
    return db;
}

size_t nativeRows(sqlite3* db, const std::string& sql) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
        fmt::print(stderr, "native: {}\n", sqlite3_errmsg(db));
        std::exit(1);
    }
    size_t n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) ++n;
    sqlite3_finalize(st);
    return n;
}

}  // namespace

int main(int argc, char** argv) {
    const size_t total = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000'000;
    const int ranks = argc > 2 ? std::atoi(argv[2]) : 8;
    const int repeats = argc > 3 ? std::atoi(argv[3]) : 3;
    fmt::print("building {} kernels on {} ranks in memory...\n", total, ranks);
    auto run = strobe::plots::testdata::syntheticRun(ranks, total / size_t(ranks));
    size_t rows = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const auto& r : run->ranks) {
        rows += r->gpu.size();
        for (size_t i = 0; i < r->gpu.size(); ++i) lo = std::min(lo, r->gpu.ts[i]), hi = std::max(hi, r->gpu.ts[i]);
    }
    auto engine = strobe::core::QueryEngine::open({{"run", run}});
    if (!engine) {
        fmt::print(stderr, "{}\n", engine.error().toString());
        return 1;
    }
    auto q = [&](const std::string& sql) {
        auto r = (*engine)->run(sql);
        if (!r) {
            fmt::print(stderr, "{}: {}\n", sql, r.error().toString());
            std::exit(1);
        }
        return r->rows.size();
    };
    fmt::print("copying into a native SQLite table...\n");
    const auto c0 = Clock::now();
    sqlite3* native = nativeCopy(*run);
    fmt::print("native copy: {:.2f} s (not counted below)\n\n", std::chrono::duration<double>(Clock::now() - c0).count());

    const int64_t a = lo + (hi - lo) / 2, b = a + (hi - lo) / 100;  // ~1 % of the span, in the middle
    const std::string range = fmt::format("ts_ns BETWEEN {} AND {}", a, b);
    const std::string rangeScan = fmt::format("ts_ns + 0 BETWEEN {} AND {}", a, b);
    struct Row {
        std::string what;
        double strobe, other;
        std::string otherName;
    };
    std::vector<Row> out;
    const std::string count = "SELECT count(*), sum(dur_ns) FROM kernels";
    out.push_back({count, timed(repeats, [&] { q(count); }), timed(repeats, [&] { nativeRows(native, count); }),
                   "native table"});
    const std::string group = "SELECT name, count(*), sum(dur_ns) FROM kernels GROUP BY name";
    out.push_back({group, timed(repeats, [&] { q(group); }), timed(repeats, [&] { nativeRows(native, group); }),
                   "native table"});
    const std::string r1 = "SELECT count(*), sum(dur_ns) FROM kernels WHERE " + range;
    const std::string r2 = "SELECT count(*), sum(dur_ns) FROM kernels WHERE " + rangeScan;
    (void)q(r1);  // the time order is built once per rank, on the first time-constrained query
    out.push_back({"1 % time range, pushed down", timed(repeats, [&] { q(r1); }), timed(repeats, [&] { q(r2); }),
                   "the same range as a full scan"});
    fmt::print("{} rows; medians of {}\n", rows, repeats);
    fmt::print("| query | Strobe tables | beside | ratio |\n|---|---|---|---|\n");
    for (const auto& r : out)
        fmt::print("| `{}` | {:.3f} s | {:.3f} s ({}) | {:.2f}× |\n", r.what, r.strobe, r.other, r.otherName,
                   r.strobe / r.other);
    sqlite3_close(native);
    return 0;
}
