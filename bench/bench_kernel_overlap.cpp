// Kernel overlap (core/analysis/kernel_overlap) on bench/synthetic_dataset.h's run shaped like a training step:
// 8 ranks x 125,000 kernels (1 M in all), every 20th a collective on its own stream overlapping compute.
//   kernel_overlap/warm      the sweep over one window's sorted intervals, all ranks (selection cached)
//   sweep_overlap/N          sweepKernelOverlap over N runs (configurations) of that run: top 5 GEMM groups, the
//                            per-rank HTA overlap; /instances also lists every instance of those groups
// Run: build/dev/bench/bench_kernel_overlap --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "bench/synthetic_dataset.h"
#include "core/analysis/kernel_overlap.h"

using namespace strobe;

namespace {

core::DatasetPtr run() {
    static core::DatasetPtr ds = plots::testdata::syntheticRun(8, 125'000);
    return ds;
}

void kernelOverlapWarm(benchmark::State& state) {
    core::AnalysisContext ctx(run());
    (void)ctx.select(core::WindowSpec{});
    size_t kernels = 0;
    for (auto _ : state) {
        auto r = core::kernelOverlap(ctx, core::WindowSpec{});
        kernels = 0;
        for (const auto& rank : r.value()) kernels += rank.kernels.size();
        benchmark::DoNotOptimize(kernels);
    }
    state.counters["kernels"] = double(kernels);
}
BENCHMARK(kernelOverlapWarm)->Name("kernel_overlap/warm")->Unit(benchmark::kMillisecond);

void sweepOverlap(benchmark::State& state, bool instances) {
    core::RunSet runs;
    for (int i = 0; i < state.range(0); ++i)
        runs.push_back(core::RunEntry{"run" + std::to_string(i), run(), {{"x", static_cast<long long>(i)}}});
    core::KernelOverlapOptions o;
    o.instances = instances;
    size_t rows = 0;
    for (auto _ : state) {
        auto s = core::sweepKernelOverlap(runs, o);
        rows = s->groups.size() + s->instances.size();
        benchmark::DoNotOptimize(rows);
    }
    state.counters["rows"] = double(rows);
}
BENCHMARK_CAPTURE(sweepOverlap, groups, false)->Name("sweep_overlap")->Arg(1)->Arg(4)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(sweepOverlap, instances, true)->Name("sweep_overlap/instances")->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
