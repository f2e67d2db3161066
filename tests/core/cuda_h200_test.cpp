// Real CUDA data from an NVIDIA H200 (tests/data/cuda, captured with tests/data/cuda/capture.sh): PyTorch 2.11's
// Kineto writes `ts` relative to "baseTimeNanoseconds", and a run directory holds nvidia-smi samples beside torch/.
// Expected values: python3 tests/data/expected/cuda_h200.py > tests/data/expected/cuda_h200.json (json/csv modules):
//   batch=8/rep1: 582 kernels, 12504002 ns of kernel time, 24 memcpy, 90 memset, ProfilerStep#4..#6,
//   base 1790857026000000000 ns; step starts by base + ts are 8-28 µs before strobe_torch's realtime anchors
//   1795792305916274494, 1795792305930183885, 1795792305944427939; nvidia_smi.csv: 127 samples.
#include <cstdlib>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "core/engine/run_loader.h"
#include "core/model/clock_rules.h"
#include "tests/test_paths.h"

using namespace strobe::core;

namespace {

const std::string kRun = std::string(STROBE_TEST_DATA_DIR) + "/cuda/sweep/batch=8/rep1";

RunLoadOptions noCache() {
    RunLoadOptions o;
    o.useCache = false;
    return o;
}

TEST(CudaH200, KinetoTimesAfterBaseTimeNanosecondsLandOnTheWallClock) {
    auto ds = loadRun({kRun + "/torch/rank0_trace.json.gz"}, noCache());
    ASSERT_TRUE(ds.ok()) << ds.error().toString();
    ASSERT_EQ((*ds)->ranks.size(), 1u);
    const RankData& r = *(*ds)->ranks[0];
    EXPECT_EQ(r.info.gpuName(), "NVIDIA H200");
    EXPECT_EQ(r.info.platform, Platform::Nvidia);
    size_t kernels = 0, memcpy = 0, memset = 0;
    int64_t kernelNs = 0;
    for (size_t i = 0; i < r.gpu.size(); ++i) {
        if (r.gpu.kind[i] == EventKind::Kernel) {
            ++kernels;
            kernelNs += r.gpu.dur[i];
        }
        memcpy += r.gpu.kind[i] == EventKind::Memcpy;
        memset += r.gpu.kind[i] == EventKind::Memset;
    }
    EXPECT_EQ(kernels, 582u);
    EXPECT_EQ(kernelNs, 12504002);
    EXPECT_EQ(memcpy, 24u);
    EXPECT_EQ(memset, 90u);

    ASSERT_TRUE(r.info.clock.anchored);
    EXPECT_EQ(r.info.clock.domain, ClockDomain::Realtime);
    EXPECT_EQ(r.info.clock.toRealtimeNs, 1790857026000000000);
    ASSERT_EQ(r.steps.size(), 3u);
    const int64_t anchor[3] = {1795792305916274494, 1795792305930183885, 1795792305944427939};
    for (size_t k = 0; k < 3; ++k) {
        EXPECT_EQ(r.steps.number[k], int64_t(4 + k));
        // The anchor is read right after prof.step() returns, a few tens of µs after the step's annotation opens.
        const int64_t lag = anchor[k] - overlayTime(r, r.steps.start[k]);
        EXPECT_GE(lag, 0) << "step " << r.steps.number[k];
        EXPECT_LT(lag, 1'000'000) << "step " << r.steps.number[k];
    }
}

// The run directory holds nvidia_smi.csv at its top and the trace under torch/: both are the run, the trace its one
// rank and the nvidia-smi samples its host's telemetry (never a rank).
TEST(CudaH200, ARunDirectoryWithTelemetryBesideTorchLoadsBoth) {
    auto ds = loadRun({kRun}, noCache());
    ASSERT_TRUE(ds.ok()) << ds.error().toString();
    ASSERT_EQ((*ds)->ranks.size(), 1u);
    ASSERT_EQ((*ds)->hosts.size(), 1u);
    ASSERT_EQ((*ds)->hosts[0].sources.size(), 1u);
    const RankData* trace = (*ds)->ranks[0].get();
    const RankData* smi = (*ds)->hosts[0].sources[0].get();
    EXPECT_EQ(trace->info.format, "kineto");
    EXPECT_EQ(smi->info.format, "nvidia-smi-csv");
    EXPECT_EQ(smi->rank, -1);
    EXPECT_EQ(trace->gpu.size(), 582u + 24u + 90u);
    std::set<int64_t> times(smi->samples.ts.begin(), smi->samples.ts.end());
    EXPECT_EQ(times.size(), 127u);
}

}  // namespace
