// Memory timeline from Kineto's [memory] events (core/analysis/memory_timeline). Every expected number comes from an
// independent replay of the events in Python, kept beside this test:
//   /usr/bin/python3 tests/core/memory_timeline_replay.py tests/data/kineto/memory/tracelens_normalization_layer_test_profile_memory.json.gz
//   /usr/bin/python3 tests/core/memory_timeline_replay.py tests/data/kineto/hta/df_index_resolver/df_index_resolver.json.gz
//   /usr/bin/python3 tests/core/memory_timeline_replay.py tests/data/small/memory_pre_trace_frees.json
#include "core/analysis/memory_timeline.h"

#include <map>
#include <string>

#include <gtest/gtest.h>

#include "core/engine/run_loader.h"
#include "tests/core/test_data_loader.h"
#include "tests/test_paths.h"

using namespace strobe::core;

namespace {

DatasetPtr loadMemoryTrace(const std::string& rel) { return testutil::loadTestData(rel); }

// The allocated curve in event order as one order-sensitive checksum: Σ (k + 1)·allocated_k mod 2^61 − 1 (the replay
// prints the same).
__extension__ using MtU128 = unsigned __int128;  // GCC and clang
uint64_t curveChecksum(const MemoryDevice& d) {
    const MtU128 mod = (uint64_t{1} << 61) - 1;
    MtU128 sum = 0;
    for (size_t k = 0; k < d.events.size(); ++k)
        sum = (sum + MtU128(k + 1) * MtU128(uint64_t(d.events[k].allocated))) % mod;
    return uint64_t(sum);
}

// Live bytes at the peak per (innermost op, outermost op).
std::map<std::pair<std::string, std::string>, int64_t> liveByOp(const RankData& r, const LiveAtPeak& live) {
    std::map<std::pair<std::string, std::string>, int64_t> out;
    auto name = [&](int32_t s) { return s < 0 ? std::string() : r.strings.str(r.slices.name[size_t(s)]); };
    for (const LiveBlock& b : live.blocks) out[{name(b.op), name(b.topOp)}] += b.bytes;
    return out;
}

}  // namespace

// TraceLens's normalization test trace (MI300X, profile_memory=True): the GPU's peak is the events' Total Allocated,
// 8,154,624 B; a running sum of Bytes misses the 665,600 B allocated before the trace and gives 7,489,024 B.
TEST(MemoryTimeline, NormalizationTracePeakIsTotalAllocatedNotARunningSum) {
    auto ds = loadMemoryTrace("kineto/memory/tracelens_normalization_layer_test_profile_memory.json.gz");
    ASSERT_EQ(ds->ranks.size(), 1u);
    const RankData& r = *ds->ranks[0];
    const MemoryTimeline tl = memoryTimeline(r);
    EXPECT_EQ(tl.unreadable, 0u);
    ASSERT_EQ(tl.devices.size(), 2u);
    const MemoryDevice& cpu = tl.devices[0];
    EXPECT_EQ(memoryDeviceTypeName(cpu.deviceType), "cpu");
    EXPECT_EQ(cpu.device, -1);
    EXPECT_EQ(cpu.events.size(), 60u);
    EXPECT_EQ(cpu.peakEvent().allocated, 32);
    EXPECT_EQ(cpu.peakEvent().ts, 3545056902622794);

    const MemoryDevice& gpu = tl.devices[1];
    EXPECT_EQ(memoryDeviceTypeName(gpu.deviceType), "hip");
    EXPECT_EQ(gpu.device, 0);
    EXPECT_EQ(gpu.events.size(), 415u);
    EXPECT_EQ(gpu.allocs, 213);
    EXPECT_EQ(gpu.frees, 202);
    EXPECT_EQ(gpu.peakEvent().allocated, 8154624);
    EXPECT_EQ(gpu.runningSumPeak, 7489024);
    EXPECT_EQ(gpu.peakEvent().ts, 3545057582937663);
    EXPECT_EQ(gpu.peakReserved, 8388608);
    EXPECT_EQ(gpu.events.back().allocated, 1852416);
    EXPECT_EQ(curveChecksum(gpu), 389666864640u);
    EXPECT_EQ(curveChecksum(cpu), 26208u);

    const LiveAtPeak live = liveAtPeak(r, gpu);
    EXPECT_EQ(live.blocks.size(), 44u);
    EXPECT_EQ(live.liveBytes, 7489024);
    EXPECT_EQ(live.preTraceBytes, 8154624 - 7489024);
    EXPECT_EQ(live.preTraceFrees, 0);
    const auto byOp = liveByOp(r, live);
    using Key = std::pair<std::string, std::string>;
    EXPECT_EQ(byOp.at(Key("aten::empty", "aten::group_norm")), 1050624);
    EXPECT_EQ(byOp.at(Key("aten::empty", "aten::layer_norm")), 1050624);
    EXPECT_EQ(byOp.at(Key("aten::empty", "aten::rms_norm")), 1049600);
    EXPECT_EQ(byOp.at(Key("aten::mse_loss", "aten::mse_loss")), 1048576);
    EXPECT_EQ(byOp.at(Key("aten::empty", "aten::instance_norm")), 526848);
    const LiveAtPeak cpuLive = liveAtPeak(r, cpu);
    EXPECT_EQ(cpuLive.blocks.size(), 3u);
    EXPECT_EQ(liveByOp(r, cpuLive).at(Key("aten::cat", "aten::instance_norm")), 16);
}

// HTA's df_index_resolver trace (V100, rank 1 of 2): 26,770 CUDA events over five ProfilerSteps, the same churn in each.
TEST(MemoryTimeline, HtaTraceCudaPeakLiveBlocksAndChurnPerStep) {
    auto ds = loadMemoryTrace("kineto/hta/df_index_resolver/df_index_resolver.json.gz");
    ASSERT_EQ(ds->ranks.size(), 1u);
    const RankData& r = *ds->ranks[0];
    const MemoryTimeline tl = memoryTimeline(r);
    ASSERT_EQ(tl.devices.size(), 2u);
    EXPECT_EQ(tl.devices[0].events.size(), 1240u);
    EXPECT_EQ(tl.devices[0].peakEvent().allocated, 8);
    const MemoryDevice& gpu = tl.devices[1];
    EXPECT_EQ(memoryDeviceTypeName(gpu.deviceType), "cuda");
    EXPECT_EQ(gpu.device, 1);
    EXPECT_EQ(gpu.events.size(), 26770u);
    EXPECT_EQ(gpu.peakEvent().allocated, 6629508096);
    EXPECT_EQ(gpu.peakEvent().ts, 1669783687579130000);
    EXPECT_EQ(gpu.peakReserved, 12782141440);
    EXPECT_EQ(gpu.runningSumPeak, 2532893696);
    EXPECT_EQ(curveChecksum(gpu), 2040653307572454400u);
    EXPECT_EQ(curveChecksum(tl.devices[0]), 3075200u);
    const LiveAtPeak live = liveAtPeak(r, gpu);
    EXPECT_EQ(live.blocks.size(), 725u);
    EXPECT_EQ(live.liveBytes, 2532893696);
    EXPECT_EQ(live.preTraceBytes, 6629508096 - 2532893696);
    const auto byOp = liveByOp(r, live);
    using Key = std::pair<std::string, std::string>;
    EXPECT_EQ(byOp.at(Key("aten::mm", "autograd::engine::evaluate_function: CompiledFunctionBackward")), 1037459456);
    EXPECT_EQ(byOp.at(Key("aten::add", "CompiledFunction")), 591224832);
    EXPECT_EQ(byOp.at(Key("aten::addmm", "CompiledFunction")), 428302336);
    const auto churn = memoryChurnPerStep(r, gpu);
    ASSERT_EQ(churn.size(), 5u);
    for (size_t k = 0; k < churn.size(); ++k) {
        EXPECT_EQ(churn[k].step, int64_t(k) + 2);
        EXPECT_EQ(churn[k].allocs, 2677);
        EXPECT_EQ(churn[k].allocBytes, 10493824000);
        EXPECT_EQ(churn[k].peakAllocated, 6629508096);
    }
    const auto cpuChurn = memoryChurnPerStep(r, tl.devices[0]);
    ASSERT_EQ(cpuChurn.size(), 5u);
    EXPECT_EQ(cpuChurn[0].allocs, 124);
    EXPECT_EQ(cpuChurn[0].allocBytes, 992);
}

// A hand-built trace (tests/data/small/memory_pre_trace_frees.json): a free of a block from before the trace
// (512 B at address 100: Total Allocated 1024 → 512), two allocations (256 B, 1024 B → peak 1,792 at 121 µs), a free
// of the first, an event whose Bytes is not a number (skipped, said), one allocation after the step.
// Running sum of Bytes: −512, −256, 768, 512, 640: its peak 768. Live at the peak: 256 + 1024 = 1,280 B; the other
// 512 B of the peak were allocated before the trace.
TEST(MemoryTimeline, FreesOfBlocksFromBeforeTheTraceAreCounted) {
    auto ds = loadMemoryTrace("small/memory_pre_trace_frees.json");
    ASSERT_EQ(ds->ranks.size(), 1u);
    const RankData& r = *ds->ranks[0];
    const MemoryTimeline tl = memoryTimeline(r);
    EXPECT_EQ(tl.unreadable, 1u);
    EXPECT_NE(tl.firstUnreadable.find("\"Bytes\" is not an integer"), std::string::npos) << tl.firstUnreadable;
    ASSERT_EQ(tl.devices.size(), 1u);
    const MemoryDevice& d = tl.devices[0];
    EXPECT_EQ(d.events.size(), 5u);
    EXPECT_EQ(d.peakEvent().allocated, 1792);
    EXPECT_EQ(d.peakEvent().ts, 121000);
    EXPECT_EQ(d.peakReserved, 6144);
    EXPECT_EQ(d.runningSumPeak, 768);
    EXPECT_EQ(curveChecksum(d), 21888u);
    const LiveAtPeak live = liveAtPeak(r, d);
    ASSERT_EQ(live.blocks.size(), 2u);
    EXPECT_EQ(live.liveBytes, 1280);
    EXPECT_EQ(live.preTraceBytes, 512);
    EXPECT_EQ(live.preTraceFrees, 1);
    EXPECT_EQ(live.preTraceFreeBytes, 512);
    EXPECT_EQ(r.strings.view(r.slices.name[size_t(live.blocks[1].op)]), "aten::empty");
    EXPECT_EQ(r.strings.view(r.slices.name[size_t(live.blocks[1].topOp)]), "aten::layer_norm");
    const auto churn = memoryChurnPerStep(r, d);
    ASSERT_EQ(churn.size(), 1u);
    EXPECT_EQ(churn[0].step, 7);
    EXPECT_EQ(churn[0].allocs, 2);
    EXPECT_EQ(churn[0].allocBytes, 1280);
    EXPECT_EQ(churn[0].frees, 2);
    EXPECT_EQ(churn[0].freeBytes, 768);

    AnalysisContext ctx(ds);
    auto t = runAnalysis(ctx, "memory-timeline", AnalysisRequest{});
    ASSERT_TRUE(t.ok()) << t.error().toString();
    ASSERT_EQ(t->rows.size(), 1u);
    EXPECT_EQ(Table::text(t->at(0, "device_type")), "cuda");
    EXPECT_EQ(Table::number(t->at(0, "peak_allocated_bytes")), 1792);
    EXPECT_EQ(Table::number(t->at(0, "pre_trace_bytes_at_peak")), 512);
}
