// Critical path of one step holding 1 M kernels (issue 26: <= 2 s, graph build included): an in-memory rank of
// 1 M kernels on one stream, each launched by a cudaLaunchKernel call nested under two CPU operators (3 M CPU
// slices), one ProfilerStep around all of it. Each iteration makes a fresh AnalysisContext, so the per-rank
// runtime links are found again, then builds the graph and takes its longest path, its length and its classes; the
// Listed variants also list its named segments (what the CLI's --json and the timeline ask for, made lazily).
//   build/release/bench/bench_critical_path --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "bench/synthetic_dataset.h"
#include "core/analysis/critical_path.h"

namespace {

using namespace strobe;

core::DatasetPtr cpDataset() {
    static core::DatasetPtr ds = [] {
        constexpr int64_t kKernels = 1'000'000;
        std::vector<plots::testdata::K> ks;
        ks.reserve(kKernels);
        for (int64_t i = 0; i < kKernels; ++i)
            ks.push_back({1000 + i * 10'000, 8'000, i % 3 == 0 ? "ampere_sgemm_128x64_nn" : "elementwise_kernel", 7,
                          i % 3 == 0 ? core::KernelCategory::Gemm : core::KernelCategory::Elementwise});
        auto r = plots::testdata::makeRank(0, ks, {{1, 0, 1000 + kKernels * 10'000 + 10'000}});
        plots::testdata::addCpuStacks(*r, 2);
        return plots::testdata::makeDataset({r});
    }();
    return ds;
}

void runCp(benchmark::State& state, core::CpDefinition def, bool list) {
    auto ds = cpDataset();
    for (auto _ : state) {
        core::AnalysisContext ctx(ds);
        core::CpRequest req;
        req.definition = def;
        req.step = 1;
        auto r = core::criticalPath(ctx, req);
        if (!r) state.SkipWithError(r.error().message.c_str());
        benchmark::DoNotOptimize(r);
        if (!r) continue;
        state.counters["length_ms"] = static_cast<double>(r->lengthNs) / 1e6;
        state.counters["edges"] = static_cast<double>(r->edges);
        state.counters["path_edges"] = static_cast<double>(r->path.edgeCount());
        if (list) state.counters["segments"] = static_cast<double>(r->path.size());
    }
}

void BM_CriticalPath1MKernelsStrobe(benchmark::State& state) { runCp(state, core::CpDefinition::Strobe, false); }
void BM_CriticalPath1MKernelsHta(benchmark::State& state) { runCp(state, core::CpDefinition::Hta, false); }
void BM_CriticalPath1MKernelsStrobeListed(benchmark::State& state) { runCp(state, core::CpDefinition::Strobe, true); }
BENCHMARK(BM_CriticalPath1MKernelsStrobe)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_CriticalPath1MKernelsHta)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_CriticalPath1MKernelsStrobeListed)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
