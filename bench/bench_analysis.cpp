// Analyses on an 8-rank run of 1 M GPU activities in total, built in memory with the shape of real training
// traces (compute, communication and copy streams; a runtime call and CPU op per launch; ten ProfilerSteps;
// ~200 kernel names; the merge's derived columns filled). Each analysis is timed cold (a fresh context: the
// window selection, sort and interval merges included) and warm (the context's cached selection reused, as when
// one analysis follows another). Run: build/dev/bench/bench_analysis --benchmark_repetitions=5
//   --benchmark_report_aggregates_only=true   (the median is the figure to read).
#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <string>

#include "core/analysis/context.h"
#include "core/analysis/registry.h"

using namespace strobe::core;

namespace {

constexpr int kRanks = 8;
constexpr size_t kActivitiesPerRank = 125000;

std::shared_ptr<const RankData> makeRank(int rank) {
    auto r = std::make_unique<RankData>();
    r->rank = rank;
    r->info.distributed.present = true;
    r->info.distributed.rank = rank;
    r->info.distributed.worldSize = kRanks;
    std::mt19937_64 rng(1234 + static_cast<uint64_t>(rank));
    std::vector<StrId> names;
    std::vector<KernelCategory> cats;
    for (int i = 0; i < 200; ++i) {
        std::string n;
        KernelCategory c;
        switch (i % 5) {
        case 0: n = "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_" + std::to_string(i); c = KernelCategory::Gemm; break;
        case 1: n = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>_" + std::to_string(i); c = KernelCategory::Elementwise; break;
        case 2: n = "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4>>_" + std::to_string(i); c = KernelCategory::Attention; break;
        case 3: n = "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float>>_" + std::to_string(i); c = KernelCategory::Reduction; break;
        default: n = "triton_poi_fused_add_mul_" + std::to_string(i); c = KernelCategory::Other; break;
        }
        names.push_back(r->strings.intern(n));
        cats.push_back(c);
    }
    const StrId nccl = r->strings.intern("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
    const StrId h2d = r->strings.intern("Memcpy HtoD (Pinned -> Device)");
    const StrId memset = r->strings.intern("Memset (Device)");
    const StrId launch = r->strings.intern("cudaLaunchKernel");
    const StrId op = r->strings.intern("aten::linear");
    const StrId catKernel = r->strings.intern("kernel"), catMemcpy = r->strings.intern("gpu_memcpy"),
                catMemset = r->strings.intern("gpu_memset"), catRt = r->strings.intern("cuda_runtime"),
                catOp = r->strings.intern("cpu_op"), catAnn = r->strings.intern("user_annotation");
    auto& g = r->gpu;
    auto& s = r->slices;
    auto addSlice = [&](StrId name, StrId cat, EventKind k, TimeNs ts, TimeNs dur, int64_t corr) {
        s.ts.push_back(ts);
        s.dur.push_back(dur);
        s.name.push_back(name);
        s.cat.push_back(cat);
        s.kind.push_back(k);
        s.phase.push_back('X');
        s.track.push_back(0);
        s.externalId.push_back(kNone);
        s.correlation.push_back(corr);
        s.sequence.push_back(kNone);
        s.args.push_back(kEmptyStr);
        return static_cast<int32_t>(s.ts.size() - 1);
    };
    const size_t perStep = kActivitiesPerRank / 10;
    TimeNs cpu = 1'000'000, gpuCompute = 1'050'000, gpuComm = 1'050'000;
    int32_t opSlice = -1;
    for (size_t i = 0; i < kActivitiesPerRank; ++i) {
        if (i % perStep == 0) {
            const TimeNs stepLen = static_cast<TimeNs>(perStep) * 9000;
            addSlice(r->strings.intern("ProfilerStep#" + std::to_string(i / perStep)), catAnn, EventKind::UserAnnotation,
                     cpu, stepLen, kNone);
        }
        if (i % 2 == 0) opSlice = addSlice(op, catOp, EventKind::CpuOp, cpu, 8000, kNone);
        const int64_t corr = static_cast<int64_t>(i + 1);
        const int32_t rt = addSlice(launch, catRt, EventKind::Runtime, cpu + 500, 3000, corr);
        cpu += 4000 + static_cast<TimeNs>(rng() % 1000);
        const unsigned kind = static_cast<unsigned>(rng() % 100);
        StrId name;
        EventKind k = EventKind::Kernel;
        KernelCategory cat;
        int32_t stream = 7;
        TimeNs dur = 2000 + static_cast<TimeNs>(rng() % 20000), ts;
        if (kind < 5) {
            name = nccl, cat = KernelCategory::Communication, stream = 20, dur *= 5;
            ts = std::max(gpuComm, cpu);
            gpuComm = ts + dur;
        } else {
            if (kind < 8) name = h2d, k = EventKind::Memcpy, cat = KernelCategory::Memcpy, stream = 8;
            else if (kind < 9) name = memset, k = EventKind::Memset, cat = KernelCategory::Memset;
            else {
                size_t n = rng() % names.size();
                name = names[n], cat = cats[n];
            }
            ts = std::max(gpuCompute + 1000, cpu);
            gpuCompute = ts + dur;
        }
        g.ts.push_back(ts);
        g.dur.push_back(dur);
        g.name.push_back(name);
        g.cat.push_back(k == EventKind::Kernel ? catKernel : k == EventKind::Memcpy ? catMemcpy : catMemset);
        g.kind.push_back(k);
        g.track.push_back(1);
        g.device.push_back(0);
        g.stream.push_back(stream);
        g.queue.push_back(-1);
        g.correlation.push_back(corr);
        g.externalId.push_back(kNone);
        for (auto* c : {&g.gridX, &g.gridY, &g.gridZ, &g.blockX, &g.blockY, &g.blockZ, &g.registers, &g.sharedMemory})
            c->push_back(1);
        g.bytes.push_back(k == EventKind::Kernel ? 0 : 1 << 20);
        g.args.push_back(kEmptyStr);
        g.runtime.push_back(rt);
        g.cpuOp.push_back(opSlice);
        g.step.push_back(static_cast<int32_t>(i / perStep));
        g.annotation.push_back(-1);
        g.category.push_back(cat);
        g.collective.push_back(cat == KernelCategory::Communication ? Collective::AllReduce : Collective::None);
        g.copyDirection.push_back(k == EventKind::Memcpy ? CopyDirection::HtoD : CopyDirection::None);
    }
    // Step table as the merge fills it.
    for (size_t i = 0; i < s.size(); ++i) {
        std::string_view n = r->strings.view(s.name[i]);
        if (n.rfind("ProfilerStep#", 0) != 0) continue;
        r->steps.number.push_back(std::stoll(std::string(n.substr(13))));
        r->steps.start.push_back(s.ts[i]);
        r->steps.end.push_back(s.ts[i] + s.dur[i]);
        r->steps.slice.push_back(static_cast<int32_t>(i));
    }
    return std::shared_ptr<const RankData>(std::move(r));
}

DatasetPtr dataset() {
    static DatasetPtr ds = [] {
        auto d = std::make_shared<Dataset>();
        d->generation = nextGeneration();
        for (int r = 0; r < kRanks; ++r) d->ranks.push_back(makeRank(r));
        return DatasetPtr(d);
    }();
    return ds;
}

void runOne(benchmark::State& state, const std::string& name, const std::string& window, bool warm) {
    DatasetPtr ds = dataset();
    AnalysisRequest req;
    req.window = WindowSpec::parse(window).value();
    AnalysisContext shared(ds);
    if (warm) (void)shared.select(req.window);
    size_t rows = 0;
    for (auto _ : state) {
        if (warm) {
            auto t = runAnalysis(shared, name, req);
            rows = t.ok() ? t->rows.size() : 0;
        } else {
            AnalysisContext ctx(ds);
            auto t = runAnalysis(ctx, name, req);
            rows = t.ok() ? t->rows.size() : 0;
        }
        benchmark::DoNotOptimize(rows);
    }
    state.counters["rows"] = static_cast<double>(rows);
}

const bool kRegistered = [] {
    for (const char* window : {"all", "hta"}) {
        for (const auto& a : analysisRegistry()) {
            for (bool warm : {false, true}) {
                std::string n = "analysis/" + a.name + "/" + window + (warm ? "/warm" : "/cold");
                benchmark::RegisterBenchmark(n.c_str(), [name = a.name, window, warm](benchmark::State& st) {
                    runOne(st, name, window, warm);
                })->Unit(benchmark::kMillisecond);
            }
        }
    }
    return true;
}();

}  // namespace

BENCHMARK_MAIN();
