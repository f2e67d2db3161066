// A sweep of 16 configurations (nccl_channels {4, 8, 16, 32} × threads {128, 256, 384, 512}) × 8 ranks of ~10 MB
// generated Kineto traces each (bench/kineto_gen.h, a seed per file), as issue 9 asks: the first open (discovery +
// every run loaded, the load cache written), the cached reopen, `sweep compare` on cached runs (load + top-10
// comparison against the first configuration) and `sweep report` on cached runs (load + the whole HTML page).
// Wall-clock times (UseRealTime). Run:
//   build/release/bench/bench_plots_sweep --benchmark_repetitions=3 --benchmark_report_aggregates_only
// STROBE_BENCH_SWEEP_RANK_MB (default 10) and STROBE_BENCH_SWEEP_CONFIGS (default 16, at most 16) size it; the
// sweep is generated once under $TMPDIR/strobe-bench-sweep-<configs>x8-<MB>MB and kept.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/kineto_gen.h"
#include "bench/qt_bench_main.h"
#include "core/analysis/sweep_compare.h"
#include "core/engine/run_loader.h"
#include "core/sweep/sweep_discovery.h"
#include "plots/report/sweep_report.h"

using namespace strobe;
namespace fs = std::filesystem;

namespace {

constexpr int kRanks = 8;

long envLong(const char* name, long fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::strtol(v, nullptr, 10) : fallback;
}

struct SweepFixture {
    fs::path dir, cache;
    bool ok = false;
    static SweepFixture& get() {
        static SweepFixture f = [] {
            SweepFixture x;
            const long mb = std::max(1L, envLong("STROBE_BENCH_SWEEP_RANK_MB", 10));
            const long configs = std::clamp(envLong("STROBE_BENCH_SWEEP_CONFIGS", 16), 1L, 16L);
            x.dir = fs::temp_directory_path() / fmt::format("strobe-bench-sweep-{}x{}-{}MB", configs, kRanks, mb);
            x.cache = x.dir / ".cache";
            const int channels[] = {4, 8, 16, 32}, threads[] = {128, 256, 384, 512};
            x.ok = true;
            for (long c = 0; c < configs && x.ok; ++c)
                for (int r = 0; r < kRanks && x.ok; ++r) {
                    const fs::path file = x.dir / "sweep" / fmt::format("nccl_channels={}", channels[c / 4]) /
                                          fmt::format("threads={}", threads[c % 4]) / fmt::format("rank{}.json", r);
                    if (fs::exists(file)) continue;
                    fs::create_directories(file.parent_path());
                    bench::KinetoGenOptions o;
                    o.targetBytes = uint64_t(mb) * 1'000'000;
                    o.seed = uint64_t(c * 100 + r + 1);
                    o.rank = r;
                    o.worldSize = kRanks;
                    bench::FileGenSink sink(file.string());
                    bench::KinetoGenerator gen(o, sink);
                    x.ok = sink.ok() && gen.run() && sink.close();
                }
            return x;
        }();
        return f;
    }
    // Discovers the runs and loads each (through the load cache in `cache`).
    core::RunSet load(bool useCache) const {
        const auto found = core::sweep::discoverSweep({(dir / "sweep").string()}, "");
        core::RunLoadOptions o;
        o.useCache = useCache;
        o.cacheDir = cache;
        core::RunSet runs;
        for (core::RunEntry run : found.runs) {
            auto d = core::loadRun(run.paths, o);
            if (!d) return {};
            run.dataset = *d;
            runs.push_back(std::move(run));
        }
        return runs;
    }
};

void BM_SweepFirstOpen(benchmark::State& state) {
    auto& f = SweepFixture::get();
    if (!f.ok) return state.SkipWithError("could not generate the sweep");
    size_t runs = 0;
    for (auto _ : state) {
        state.PauseTiming();
        fs::remove_all(f.cache);
        state.ResumeTiming();
        runs = f.load(true).size();
    }
    state.counters["runs"] = double(runs);
}
BENCHMARK(BM_SweepFirstOpen)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);

void BM_SweepCachedReopen(benchmark::State& state) {
    auto& f = SweepFixture::get();
    if (!f.ok) return state.SkipWithError("could not generate the sweep");
    f.load(true);  // the cache exists
    for (auto _ : state) benchmark::DoNotOptimize(f.load(true));
}
BENCHMARK(BM_SweepCachedReopen)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

void BM_SweepCompareCached(benchmark::State& state) {
    auto& f = SweepFixture::get();
    if (!f.ok) return state.SkipWithError("could not generate the sweep");
    f.load(true);
    size_t rows = 0;
    for (auto _ : state) {
        const auto runs = f.load(true);
        core::SweepCompareOptions o;
        o.top = 10;
        o.baseline = runs.empty() ? "" : runs.front().label;
        rows = core::compareSweep(runs, o).rows.size();
    }
    state.counters["rows"] = double(rows);
}
BENCHMARK(BM_SweepCompareCached)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

void BM_SweepReportCached(benchmark::State& state) {
    auto& f = SweepFixture::get();
    if (!f.ok) return state.SkipWithError("could not generate the sweep");
    f.load(true);
    size_t bytes = 0;
    for (auto _ : state) {
        const auto runs = f.load(true);
        bytes = plots::buildSweepReport(runs, {}).html.size();
    }
    state.counters["html_bytes"] = double(bytes);
}
BENCHMARK(BM_SweepReportCached)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

}  // namespace

int main(int argc, char** argv) { return strobe::bench::runQtBenchmarks(argc, argv); }
