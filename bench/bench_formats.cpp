// Source-format loaders against Python's csv module on the same file, in the same run.
//
// A generated rocprofv3 kernel_trace.csv (bench/rocprofv3_gen.h; STROBE_BENCH_FORMATS_MB, default 1024 MB, written to
// STROBE_BENCH_DIR or /tmp once and reused) is loaded by Strobe's rocprofv3 CSV loader and read by
// bench/python_csv_read.py with /usr/bin/python3. Counters:
//   MBps        file MB per wall second
//   rss_ratio   peak resident memory the load added ÷ file size (Strobe: measured in a forked child; Python: the
//               interpreter's ru_maxrss, whole process)
//   rows        data rows read
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "bench/proc_status.h"
#include "bench/rocprofv3_gen.h"
#include "core/formats/rocprofv3_csv.h"

namespace {

namespace fs = std::filesystem;
using namespace strobe;

struct GeneratedFile {
    std::string path;
    uint64_t bytes = 0;
    std::string error;
};

const GeneratedFile& generated() {
    static const GeneratedFile g = [] {
        GeneratedFile out;
        const char* mb = std::getenv("STROBE_BENCH_FORMATS_MB");
        const uint64_t target = (mb ? std::strtoull(mb, nullptr, 10) : 1024ULL) << 20;
        const char* dir = std::getenv("STROBE_BENCH_DIR");
        out.path = std::string(dir ? dir : "/tmp") + "/strobe_bench_" + std::to_string(target >> 20) +
                   "MB_kernel_trace.csv";
        std::error_code ec;
        if (!fs::exists(out.path, ec) || fs::file_size(out.path, ec) < target) {
            if (!bench::writeRocprofv3KernelTrace(out.path, target)) out.error = "cannot write " + out.path;
        }
        out.bytes = fs::file_size(out.path, ec);
        return out;
    }();
    return g;
}

void BM_StrobeRocprofv3KernelTraceCsv(benchmark::State& state) {
    const GeneratedFile& g = generated();
    if (!g.error.empty()) { state.SkipWithError(g.error.c_str()); return; }
    const core::SourceGroup group{"rocprofv3-csv", g.path, {g.path}, {}};
    size_t rows = 0;
    for (auto _ : state) {
        auto r = core::loadRocprofv3Csv(group);
        if (!r) { state.SkipWithError(r.error().toString().c_str()); return; }
        rows = r->front()->gpu.size();
        benchmark::DoNotOptimize(rows);
    }
    state.SetBytesProcessed(static_cast<int64_t>(g.bytes) * state.iterations());
    state.counters["rows"] = static_cast<double>(rows);
    state.counters["MBps"] = benchmark::Counter(static_cast<double>(g.bytes) / 1e6, benchmark::Counter::kIsIterationInvariantRate);
    const bench::ChildMeasure m = bench::measureInChild([&](std::string& err) {
        auto r = core::loadRocprofv3Csv(group);
        if (!r) err = r.error().toString();
        return r.ok();
    });
    if (m.ok) state.counters["rss_ratio"] = m.peakDeltaBytes / static_cast<double>(g.bytes);
}

void BM_PythonCsvReader(benchmark::State& state) {
    const GeneratedFile& g = generated();
    if (!g.error.empty()) { state.SkipWithError(g.error.c_str()); return; }
    const std::string script = std::string(STROBE_BENCH_SOURCE_DIR) + "/python_csv_read.py";
    double rows = 0, rss = 0;
    for (auto _ : state) {
        const std::string cmd = "/usr/bin/python3 " + script + " '" + g.path + "'";
        std::FILE* p = popen(cmd.c_str(), "r");
        if (!p) { state.SkipWithError("cannot run /usr/bin/python3"); return; }
        double seconds = 0;
        if (std::fscanf(p, "%lf %lf %lf", &seconds, &rows, &rss) != 3) {
            pclose(p);
            state.SkipWithError("python3 csv reader failed");
            return;
        }
        pclose(p);
        state.SetIterationTime(seconds);
    }
    state.SetBytesProcessed(static_cast<int64_t>(g.bytes) * state.iterations());
    state.counters["rows"] = rows;
    state.counters["MBps"] = benchmark::Counter(static_cast<double>(g.bytes) / 1e6, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["rss_ratio"] = rss / static_cast<double>(g.bytes);
}

}  // namespace

// One load per repetition: run with --benchmark_repetitions=3 and read the _median rows (a 1 GB load per iteration
// makes repetitions, not iterations, the unit; both readers then get the same count).
BENCHMARK(BM_StrobeRocprofv3KernelTraceCsv)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_PythonCsvReader)->Unit(benchmark::kSecond)->Iterations(1)->UseManualTime();

BENCHMARK_MAIN();
