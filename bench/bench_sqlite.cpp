// nsys SQLite export loading: Strobe's loader vs Python's sqlite3 module reading the same tables, in the same run.
//   /usr/bin/python3 bench/gen_nsys_sqlite.py /tmp/nsys.sqlite 1000      # ~1 GB, not committed
//   STROBE_BENCH_NSYS_SQLITE=/tmp/nsys.sqlite build/release/bench/bench_sqlite --benchmark_repetitions=3
// Counters: rows_per_s (kernel + runtime rows), MBps (file bytes / s), rss_ratio (peak RSS growth ÷ file size,
// measured once in a forked child).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "bench/proc_status.h"
#include "core/formats/nsys_sqlite.h"
#include "core/io/sqlite_db.h"

namespace {

std::string benchFile() {
    const char* p = std::getenv("STROBE_BENCH_NSYS_SQLITE");
    return p ? p : "";
}

double fileBytes(const std::string& p) {
    std::error_code ec;
    auto n = std::filesystem::file_size(p, ec);
    return ec ? 0 : static_cast<double>(n);
}

bool loadOnce(const std::string& path, size_t& rows, std::string& err) {
    auto db = strobe::core::SqliteDb::open(path);
    if (!db) {
        err = db.error().toString();
        return false;
    }
    auto r = strobe::core::loadNsysSqliteDb(*db, {});
    if (!r) {
        err = r.error().toString();
        return false;
    }
    rows = 0;
    for (const auto& rank : r.value()) rows += rank->gpu.size() + rank->slices.size();
    return true;
}

void BM_StrobeNsysSqlite(benchmark::State& state) {
    const std::string path = benchFile();
    if (path.empty()) return state.SkipWithError("set STROBE_BENCH_NSYS_SQLITE (bench/gen_nsys_sqlite.py)");
    size_t rows = 0;
    double seconds = 0;
    for (auto _ : state) {
        std::string err;
        const auto t0 = std::chrono::steady_clock::now();
        if (!loadOnce(path, rows, err)) return state.SkipWithError(err.c_str());
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        state.SetIterationTime(seconds);
    }
    const double bytes = fileBytes(path);
    // Measured once per process (the first repetition), not per repetition.
    static const auto rss = strobe::bench::measureInChild([&](std::string& err) {
        size_t n = 0;
        return loadOnce(path, n, err);
    });
    state.counters["rows"] = static_cast<double>(rows);
    state.counters["rows_per_s"] = benchmark::Counter(static_cast<double>(rows) * state.iterations(),
                                                      benchmark::Counter::kIsRate);
    state.counters["MBps"] = benchmark::Counter(bytes / 1e6 * state.iterations(), benchmark::Counter::kIsRate);
    if (rss.ok) state.counters["rss_ratio"] = rss.peakDeltaBytes / bytes;
}

void BM_PythonSqlite3(benchmark::State& state) {
    const std::string path = benchFile();
    if (path.empty()) return state.SkipWithError("set STROBE_BENCH_NSYS_SQLITE (bench/gen_nsys_sqlite.py)");
    const std::string script = std::string(STROBE_BENCH_SOURCE_DIR) + "/read_nsys_sqlite.py";
    double rows = 0, rss = 0;
    for (auto _ : state) {
        const std::string cmd = "/usr/bin/python3 '" + script + "' '" + path + "'";
        FILE* p = popen(cmd.c_str(), "r");
        if (!p) return state.SkipWithError("cannot run /usr/bin/python3");
        double secs = 0;
        const int n = std::fscanf(p, "%lf %lf %lf", &rows, &secs, &rss);
        pclose(p);
        if (n != 3) return state.SkipWithError("read_nsys_sqlite.py printed nothing usable");
        state.SetIterationTime(secs);  // the script's own read time (interpreter start-up excluded)
    }
    const double bytes = fileBytes(path);
    state.counters["rows"] = rows;
    state.counters["rows_per_s"] = benchmark::Counter(rows * state.iterations(), benchmark::Counter::kIsRate);
    state.counters["MBps"] = benchmark::Counter(bytes / 1e6 * state.iterations(), benchmark::Counter::kIsRate);
    state.counters["rss_ratio"] = rss / bytes;  // whole-process peak (interpreter included)
}

}  // namespace

// One load per repetition: run with --benchmark_repetitions=3 and read the _median rows.
BENCHMARK(BM_StrobeNsysSqlite)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_PythonSqlite3)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_MAIN();
