// The memory timeline from sources other than Kineto's [memory] events (issue 27; core/analysis/memory_timeline.h):
// rocprofv3 memory-allocation traces and the smi samplers' used memory, on the clock of the kernels. Every expected
// number comes from an independent replay with Python's csv module, kept beside the data:
//   /usr/bin/python3 tests/data/expected/memory_sources.py   (output: tests/data/expected/memory_sources.txt)
#include "core/analysis/memory_timeline.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "core/analysis/context.h"
#include "core/analysis/sweep_compare.h"
#include "core/engine/run_loader.h"
#include "core/formats/nsys_sqlite.h"
#include "core/formats/rocprofv3_csv.h"
#include "core/sweep/sweep_discovery.h"
#include "tests/core/test_data_loader.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

using namespace strobe;
using namespace strobe::core;

namespace {

DatasetPtr loadData(const std::string& rel) { return testutil::loadTestData(rel); }

}  // namespace

// rocprofiler-sdk's documented memory_allocation_trace.csv: two 1024 B allocations on "Agent 0", then their frees
// (size 0, no agent: matched by address). Replay: curve [1024, 2048, 1024, 0], peak 2048 at 816098791350331.
TEST(MemorySources, Rocprofv3AllocationTraceIsARunningSumOfLiveBlocks) {
    auto ds = loadData("rocprof/docs-2025/memory_allocation_trace.csv");
    ASSERT_EQ(ds->ranks.size(), 1u);
    const RankData& r = *ds->ranks[0];
    const MemoryTimeline tl = memoryTimeline(r);
    EXPECT_EQ(tl.unreadable, 0u);
    EXPECT_EQ(tl.unmatchedFrees, 0u);
    ASSERT_EQ(tl.devices.size(), 1u);
    const MemoryDevice& d = tl.devices[0];
    EXPECT_EQ(d.source, MemorySource::Rocprofv3);
    EXPECT_EQ(memoryDeviceTypeName(d.deviceType), "agent");  // no agent_info beside it
    EXPECT_EQ(d.device, 0);
    ASSERT_EQ(d.events.size(), 4u);
    const int64_t curve[] = {1024, 2048, 1024, 0};
    for (size_t k = 0; k < 4; ++k) {
        EXPECT_EQ(d.events[k].allocated, curve[k]) << k;
        EXPECT_EQ(d.events[k].reserved, curve[k]) << k;
    }
    EXPECT_EQ(d.peakEvent().allocated, 2048);
    EXPECT_EQ(d.peakEvent().ts, 816098791350331);
    EXPECT_EQ(d.allocs, 2);
    EXPECT_EQ(d.frees, 2);
    EXPECT_FALSE(d.hasReserved());
    const LiveAtPeak live = liveAtPeak(r, d);
    EXPECT_EQ(live.blocks.size(), 2u);
    EXPECT_EQ(live.liveBytes, 2048);
    EXPECT_EQ(live.preTraceBytes, 0);

    // The analysis: one row, source rocprofv3.
    AnalysisContext ctx(ds);
    AnalysisRequest req;
    auto t = runAnalysis(ctx, "memory-timeline", req);
    ASSERT_TRUE(t.ok()) << t.error().toString();
    ASSERT_EQ(t->rows.size(), 1u);
    EXPECT_EQ(Table::text(t->at(0, "source")), "rocprofv3");
    EXPECT_EQ(Table::text(t->at(0, "device_type")), "agent");
    EXPECT_EQ(Table::number(t->at(0, "peak_allocated_bytes")), 2048);
    EXPECT_EQ(Table::number(t->at(0, "peak_ts_ns")), 816098791350331.0);
}

// Hand-built rows (edge cases, not a recording): a free of an address the trace never allocated (the block predates
// the trace) is counted, not drawn; an unreadable address is skipped and said.
TEST(MemorySources, Rocprofv3FreeOfAnUnknownBlockIsCounted) {
    const std::string csv =
        "\"Kind\",\"Operation\",\"Agent_Id\",\"Allocation_Size\",\"Address\",\"Correlation_Id\",\"Start_Timestamp\","
        "\"End_Timestamp\"\n"
        "\"MEMORY_ALLOCATION\",\"MEMORY_ALLOCATION_FREE\",\"\",0,\"0x10\",1,100,110\n"
        "\"MEMORY_ALLOCATION\",\"MEMORY_ALLOCATION_ALLOCATE\",\"Agent 2\",64,\"0x20\",2,200,210\n"
        "\"MEMORY_ALLOCATION\",\"MEMORY_ALLOCATION_ALLOCATE\",\"Agent 2\",32,\"not-an-address\",3,300,310\n";
    auto loaded = loadRocprofv3CsvText(csv, "hand_memory_allocation_trace.csv");
    ASSERT_TRUE(loaded.ok());
    const MemoryTimeline tl = memoryTimeline(*loaded.value()[0]);
    EXPECT_EQ(tl.unmatchedFrees, 1u);
    EXPECT_EQ(tl.unreadable, 1u);
    ASSERT_EQ(tl.devices.size(), 1u);
    EXPECT_EQ(tl.devices[0].device, 2);
    EXPECT_EQ(tl.devices[0].peakEvent().allocated, 64);
}

// nvidia-smi --query-gpu samples (V100S, 1 Hz): the device's used memory, MiB × 2^20. Replay: 107 samples, peak
// 1147142144 B at 1749774489204000000, first and last 1048576 B, sum 89434095616 B.
TEST(MemorySources, SmiUsedMemoryIsTheDevicesSeries) {
    auto ds = loadData("telemetry/nvidia-smi/v100s_gpu_log.csv");
    ASSERT_EQ(ds->hosts.size(), 1u);
    ASSERT_EQ(ds->hosts[0].sources.size(), 1u);
    const MemoryTimeline tl = memoryTimeline(*ds->hosts[0].sources[0]);
    ASSERT_EQ(tl.devices.size(), 1u);
    const MemoryDevice& d = tl.devices[0];
    EXPECT_EQ(d.source, MemorySource::Smi);
    EXPECT_EQ(memoryDeviceTypeName(d.deviceType), "cuda");
    EXPECT_EQ(d.device, 0);
    ASSERT_EQ(d.events.size(), 107u);
    EXPECT_EQ(d.peakEvent().allocated, 1147142144);
    EXPECT_EQ(d.peakEvent().ts, 1749774489204000000);
    EXPECT_EQ(d.events.front().allocated, 1048576);
    EXPECT_EQ(d.events.back().allocated, 1048576);
    int64_t sum = 0;
    for (const MemoryEvent& e : d.events) sum += e.allocated;
    EXPECT_EQ(sum, 89434095616);
    EXPECT_EQ(d.allocs + d.frees, 0);

    AnalysisContext ctx(ds);
    AnalysisRequest req;
    auto t = runAnalysis(ctx, "memory-timeline", req);
    ASSERT_TRUE(t.ok()) << t.error().toString();
    ASSERT_EQ(t->rows.size(), 1u);
    EXPECT_EQ(Table::text(t->at(0, "source")), "smi");
    EXPECT_EQ(Table::number(t->at(0, "rank")), -1);
    EXPECT_EQ(Table::number(t->at(0, "peak_allocated_bytes")), 1147142144.0);
}

// A sweep composed of copies of two real memory traces (model=df: the HTA V100 trace, 5 ProfilerSteps; model=norm:
// TraceLens's MI300X normalization test, no steps: one step). Replay (memory_sources.py): df's per-step peaks are all
// 6,629,508,096 B (memory held from before each step included); norm's one step peaks at 8,154,624 B.
TEST(MemorySources, SweepShowsEachConfigurationsPerStepPeak) {
    test::TempDir dir("strobe-sweep-memory");
    const std::string data = STROBE_TEST_DATA_DIR;
    std::filesystem::create_directories(dir.path() / "model=df" / "rep0");
    std::filesystem::create_directories(dir.path() / "model=norm" / "rep0");
    std::filesystem::copy_file(data + "/kineto/hta/df_index_resolver/df_index_resolver.json.gz",
                               dir.path() / "model=df" / "rep0" / "trace.json.gz");
    std::filesystem::copy_file(data + "/kineto/memory/tracelens_normalization_layer_test_profile_memory.json.gz",
                               dir.path() / "model=norm" / "rep0" / "trace.json.gz");
    RunSet runs;
    RunLoadOptions options;
    options.useCache = false;
    for (const auto& run : sweep::discoverSweep({dir.path().string()}).runs) {
        auto loaded = loadRun(run.paths, options);
        ASSERT_TRUE(static_cast<bool>(loaded)) << run.path();
        RunEntry entry = run;
        entry.dataset = *loaded;
        runs.push_back(std::move(entry));
    }
    ASSERT_EQ(runs.size(), 2u);
    const SweepComparison c = compareSweep(runs, SweepCompareOptions{});
    ASSERT_EQ(c.memoryRows.size(), 2u);
    std::map<std::string, const SweepMemoryRow*> byModel;
    for (const auto& m : c.memoryRows) byModel[m.parameters.at("model")] = &m;
    ASSERT_TRUE(byModel.count("df") && byModel.count("norm"));
    EXPECT_EQ(byModel["df"]->steps, 5u);
    EXPECT_EQ(byModel["df"]->runs, 1u);
    EXPECT_DOUBLE_EQ(byModel["df"]->medianBytes, 6629508096.0);
    EXPECT_DOUBLE_EQ(byModel["df"]->maxBytes, 6629508096.0);
    EXPECT_EQ(byModel["norm"]->steps, 1u);
    EXPECT_DOUBLE_EQ(byModel["norm"]->maxBytes, 8154624.0);
}

// nsys's CUDA_GPU_MEMORY_USAGE_EVENTS (nsys --cuda-memory-usage=true) in a small export hand-built from the documented
// schema (tests/data/sqlite/make_nsys_memory_sample.py says why: no real export with the table is at hand). Replay
// (`/usr/bin/python3 tests/data/sqlite/make_nsys_memory_sample.py --replay`):
//   rows of other memory kinds: 2; unmatched frees: 1
//   cuda:0: 7 events, peak 236978176 B at 2000050000 ns, final 2097152 B,
//           allocated values [2097152, 69206016, 203423744, 136314880, 236978176, 102760448, 2097152]
//   cuda:1: 4 events, peak 51380224 B at 2000090000 ns, final 51380224 B,
//           allocated values [33554432, 34603008, 1048576, 51380224]
TEST(MemorySources, NsysMemoryUsageEventsAreARunningSumOfLiveBlocks) {
    auto ds = loadData("sqlite/nsys_memory_usage.sqlite");
    ASSERT_EQ(ds->ranks.size(), 1u);
    const RankData& r = *ds->ranks[0];
    EXPECT_EQ(r.gpu.size(), 4u) << "the kernels are read as before";
    const MemoryTimeline tl = memoryTimeline(r);
    EXPECT_EQ(tl.unreadable, 0u);
    EXPECT_EQ(tl.unmatchedFrees, 1u);
    ASSERT_EQ(tl.devices.size(), 2u);
    const std::vector<std::vector<int64_t>> curves = {
        {2097152, 69206016, 203423744, 136314880, 236978176, 102760448, 2097152},
        {33554432, 34603008, 1048576, 51380224}};
    const int64_t peaks[] = {236978176, 51380224}, peakTs[] = {2000050000, 2000090000};
    for (size_t k = 0; k < 2; ++k) {
        SCOPED_TRACE(k);
        const MemoryDevice& d = tl.devices[k];
        EXPECT_EQ(d.source, MemorySource::Nsys);
        EXPECT_EQ(memoryDeviceTypeName(d.deviceType), "cuda");
        EXPECT_EQ(d.device, int64_t(k));
        EXPECT_FALSE(d.hasReserved());
        ASSERT_EQ(d.events.size(), curves[k].size());
        for (size_t i = 0; i < curves[k].size(); ++i) {
            EXPECT_EQ(d.events[i].allocated, curves[k][i]) << i;
            EXPECT_EQ(d.events[i].reserved, curves[k][i]) << i;
        }
        EXPECT_EQ(d.peakEvent().allocated, peaks[k]);
        EXPECT_EQ(d.peakEvent().ts, peakTs[k]);
    }
    // The host-side kinds (pinned, managed) are said, not drawn.
    bool said = false;
    for (const auto& dg : r.diagnostics) said = said || dg.message.find("2 memory usage row(s)") != std::string::npos;
    EXPECT_TRUE(said);

    AnalysisContext ctx(ds);
    AnalysisRequest req;
    auto t = runAnalysis(ctx, "memory-timeline", req);
    ASSERT_TRUE(t.ok()) << t.error().toString();
    ASSERT_EQ(t->rows.size(), 2u);
    EXPECT_EQ(Table::text(t->at(0, "source")), "nsys");
    EXPECT_EQ(Table::number(t->at(0, "peak_allocated_bytes")), 236978176.0);
    EXPECT_EQ(Table::number(t->at(1, "peak_allocated_bytes")), 51380224.0);
}

// Exports without the table read as before: no memory device, no memory slice.
TEST(MemorySources, NsysExportWithoutMemoryUsageHasNoMemoryTimeline) {
    auto ds = loadData("sqlite/nsys_fuser_h200.sqlite");
    for (const auto& r : ds->ranks) {
        EXPECT_TRUE(memoryTimeline(*r).devices.empty());
        EXPECT_FALSE(r->strings.find(kNsysMemoryCategory).has_value());
    }
}
