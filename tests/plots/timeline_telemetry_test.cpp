// Telemetry lanes of the GPU timeline on real nvidia-smi samples (tests/data/telemetry/nvidia-smi/v100s_gpu_log.csv).
// Expected: /usr/bin/python3 tests/data/expected/timeline_telemetry.py →
//   samples 107 temp 27.0 29.0 util 0.0 19.0 util_sum 393.0; second_offset_ns 1001000000
#include <optional>

#include <gtest/gtest.h>

#include "core/engine/run_loader.h"
#include "plots/builtin/timeline_model.h"
#include "plots/plot_registry.h"
#include "plots/render.h"
#include "tests/test_paths.h"

using namespace strobe;
using namespace strobe::plots;
using namespace strobe::plots::timeline;

namespace {

RunSet telemetryRun() {
    core::RunLoadOptions o;
    o.useCache = false;
    auto d = core::loadRun({std::string(STROBE_TEST_DATA_DIR) + "/telemetry/nvidia-smi/v100s_gpu_log.csv"}, o);
    EXPECT_TRUE(d.ok());
    return RunSet{RunEntry{"v100s", d.ok() ? d.value() : std::make_shared<core::Dataset>(), {}}};
}

TEST(TimelineTelemetry, LanesHoldEverySampleOfTheAskedMetrics) {
    const Plot* plot = PlotRegistry::instance().find("gpu-timeline");
    ASSERT_NE(plot, nullptr);
    auto runs = telemetryRun();
    auto values = resolveValues(plot->parameters(runs), {});
    ASSERT_TRUE(values.ok());
    auto prepared = plot->prepare(runs, *values, {}, {});
    ASSERT_TRUE(prepared.ok());
    const auto& p = dynamic_cast<const TimelinePrepared&>(**prepared);
    const Lane* temp = nullptr;
    const Lane* util = nullptr;
    for (const auto& l : p.lanes) {
        ASSERT_EQ(l.kind, LaneKind::Telemetry);
        if (l.metric == "temp_c") temp = &l;
        if (l.metric == "util_pct") util = &l;
    }
    ASSERT_TRUE(temp && util);
    EXPECT_EQ(p.lanes.size(), 2u);  // power and clocks are not in this log
    EXPECT_EQ(temp->value.size(), 107u);
    EXPECT_EQ(temp->vmin, 27.0);
    EXPECT_EQ(temp->vmax, 29.0);
    double sum = 0;
    for (double v : util->value) sum += v;
    EXPECT_EQ(sum, 393.0);
    EXPECT_EQ(util->vmax, 19.0);
    EXPECT_EQ(util->start[0], 0);
    EXPECT_EQ(util->start[1], 1001000000);
    EXPECT_EQ(util->end[0], util->start[1]);  // a value holds until the next sample
    EXPECT_FALSE(plot->emptyMessage(**prepared, *values).has_value());
    QImage img = renderToImage(*plot, **prepared, *values, QSize(1200, 400));
    EXPECT_GT(countNonBackgroundPixels(img), 3000);
}

TEST(TimelineTelemetry, AnEmptyMetricListDrawsNoTelemetry) {
    const Plot* plot = PlotRegistry::instance().find("gpu-timeline");
    auto runs = telemetryRun();
    auto values = resolveValues(plot->parameters(runs), {{"telemetry", std::vector<std::string>{}}});
    ASSERT_TRUE(values.ok());
    auto prepared = plot->prepare(runs, *values, {}, {});
    ASSERT_TRUE(prepared.ok());
    EXPECT_TRUE(dynamic_cast<const TimelinePrepared&>(**prepared).lanes.empty());
    EXPECT_TRUE(plot->emptyMessage(**prepared, *values).has_value());
}

// A PyTorch 2.11 trace (times after its baseTimeNanoseconds) and the nvidia-smi samples beside it (tests/data/cuda,
// an H200 run; nvidia-smi's local wall time anchored with --clock-offset 0, the capture machine ran on UTC) share the
// timeline's axis: the first sample comes 10.703450267 s before the first GPU activity. python3 (json, csv, datetime):
// base + min(ts of kernel/gpu_memcpy/gpu_memset) * 1000 = 1795792305916450267; first sample 2026/11/27
// 15:11:35.213 UTC = 1795792295213000000 ns.
// The GPU timeline of the real H200 run (tests/data/cuda/sweep/batch=8/rep1), its nvidia-smi samples anchored with
// `clockOffsetNs` when given.
struct H200Timeline {
    const Plot* plot = PlotRegistry::instance().find("gpu-timeline");
    RunSet runs;
    ParamValues values;
    PreparedPtr prepared;
    explicit H200Timeline(std::optional<int64_t> clockOffsetNs) {
        core::RunLoadOptions o;
        o.useCache = false;
        o.sources.hasClockOffset = clockOffsetNs.has_value();
        o.sources.clockOffsetNs = clockOffsetNs.value_or(0);
        auto d = core::loadRun({std::string(STROBE_TEST_DATA_DIR) + "/cuda/sweep/batch=8/rep1"}, o);
        EXPECT_TRUE(d.ok()) << d.error().toString();
        if (!d.ok()) return;
        runs = RunSet{RunEntry{"h200", d.value(), {}}};
        auto v = resolveValues(plot->parameters(runs), {});
        EXPECT_TRUE(v.ok());
        if (!v.ok()) return;
        values = v.value();
        auto p = plot->prepare(runs, values, {}, {});
        EXPECT_TRUE(p.ok());
        if (p.ok()) prepared = p.value();
    }
};

TEST(TimelineTelemetry, ATraceAfterItsBaseTimeAndItsTelemetryShareTheAxis) {
    H200Timeline t(int64_t{0});
    ASSERT_TRUE(t.prepared);
    const auto& p = dynamic_cast<const TimelinePrepared&>(*t.prepared);
    int64_t firstGpu = INT64_MAX, firstSample = INT64_MAX;
    for (const auto& l : p.lanes) {
        if (l.start.empty()) continue;
        if (l.kind == LaneKind::Stream) firstGpu = std::min(firstGpu, l.start.front());
        if (l.kind == LaneKind::Telemetry) firstSample = std::min(firstSample, l.start.front());
    }
    ASSERT_NE(firstGpu, INT64_MAX);
    ASSERT_NE(firstSample, INT64_MAX);
    EXPECT_EQ(firstSample - firstGpu, -10703450267);
}

// The same run without the offset: nvidia-smi's zone-less local time cannot be related to the trace's realtime
// clock, so its lanes are left off the axis (not drawn 57 years away from the kernels) and the timeline's note names
// the file; the kernels keep their own axis.
TEST(TimelineTelemetry, SamplesOnAClockNotRelatedToTheTraceAreLeftOffAndNamed) {
    H200Timeline t(std::nullopt);
    ASSERT_TRUE(t.prepared);
    const auto& p = dynamic_cast<const TimelinePrepared&>(*t.prepared);
    size_t streams = 0;
    int64_t firstGpu = INT64_MAX, last = INT64_MIN;
    for (const auto& l : p.lanes) {
        EXPECT_NE(l.kind, LaneKind::Telemetry) << l.label;
        if (l.kind == LaneKind::Stream && !l.start.empty()) {
            ++streams;
            firstGpu = std::min(firstGpu, l.start.front());
        }
        for (auto e : l.end) last = std::max(last, e);
    }
    EXPECT_GT(streams, 0u);
    EXPECT_GE(firstGpu, 0);  // the origin: the first GPU activity or step start
    EXPECT_LT(firstGpu, 1'000'000'000LL);
    EXPECT_LT(last, 60'000'000'000LL);  // the whole axis is the trace's (its span is under a minute)
    EXPECT_NE(p.clockNote.find("nvidia_smi.csv"), std::string::npos) << p.clockNote;
    EXPECT_NE(p.clockNote.find("local-wall-time"), std::string::npos) << p.clockNote;
    QImage img = renderToImage(*t.plot, *t.prepared, t.values, QSize(1200, 500));
    EXPECT_GT(countNonBackgroundPixels(img), 3000);
}

}  // namespace
