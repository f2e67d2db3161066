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
    const auto& p = *preparedAs<TimelinePrepared>(**prepared);
    const Lane* temp = nullptr;
    const Lane* util = nullptr;
    for (const auto& l : p.lanes) {
        ASSERT_EQ(l.kind, LaneKind::Telemetry);
        if (l.metric == "temp_c") temp = &l;
        if (l.metric == "util_pct") util = &l;
    }
    ASSERT_TRUE(temp && util);
    // Shown by default: every metric of the log (its header: utilization.gpu, utilization.memory, memory.total,
    // memory.used, temperature.gpu), one GPU; power and clocks are not in it.
    EXPECT_EQ(p.lanes.size(), 5u);
    for (const auto& l : p.lanes) EXPECT_EQ(l.group, "host") << l.label;  // the host's telemetry, not a rank's
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

// The telemetry checklist is built from the data: the metrics the log holds, Strobe's vocabulary order
// (core/formats/telemetry_metrics.h: temp_c, util_pct, mem_util_pct, mem_used_mib, mem_total_mib), all ticked by
// default; a metric the run lacks is neither offered nor kept ticked.
TEST(TimelineTelemetry, TheChecklistIsTheDatasMetricsShownByDefault) {
    const Plot* plot = PlotRegistry::instance().find("gpu-timeline");
    auto runs = telemetryRun();
    const auto specs = plot->parameters(runs);
    const ParamSpec* spec = findSpec(specs, "telemetry");
    ASSERT_NE(spec, nullptr);
    const std::vector<std::string> metrics{"temp_c", "util_pct", "mem_util_pct", "mem_used_mib", "mem_total_mib"};
    EXPECT_EQ(spec->choices, metrics);
    EXPECT_EQ(std::get<std::vector<std::string>>(spec->defaultValue), metrics);
    auto values = resolveValues(specs, {{"telemetry", std::vector<std::string>{"power_w", "temp_c"}}});
    ASSERT_TRUE(values.ok()) << values.error().toString();
    EXPECT_EQ(std::get<std::vector<std::string>>(values->at("telemetry")), std::vector<std::string>{"temp_c"});
    // Before the data is loaded (strobe-cli checks --set first), any metric is taken.
    auto before = resolveValues(core::specsBeforeData(plot->parameters({})), {{"telemetry", std::string("power_w")}});
    ASSERT_TRUE(before.ok()) << before.error().toString();
    EXPECT_EQ(std::get<std::vector<std::string>>(before->at("telemetry")), std::vector<std::string>{"power_w"});
    // Without telemetry, nothing is offered and nothing shown.
    core::RunEntry none;
    none.label = "none";
    none.dataset = std::make_shared<core::Dataset>();
    const auto noneSpecs = plot->parameters(RunSet{none});  // kept alive: findSpec points into it
    const ParamSpec* empty = findSpec(noneSpecs, "telemetry");
    ASSERT_NE(empty, nullptr);
    EXPECT_TRUE(empty->choices.empty());
    EXPECT_TRUE(std::get<std::vector<std::string>>(empty->defaultValue).empty());
}

// Strobe's CPU sampler beside a Kineto trace (tests/data/telemetry/strobe/cpu_sampler_2core.csv; its header:
// cpu.util_pct, cpu0.util_pct, cpu1.util_pct, mem_used_mib, mem_total_mib, 100 rows): the trace is the one rank,
// the sampler's metrics are offered and shown by default (the vocabulary's first, then the others in column order),
// and drawn as the host's lanes after the rank's, each with its 100 samples.
TEST(TimelineTelemetry, TheCpuSamplersLanesAreShownUnderTheRanksByDefault) {
    const Plot* plot = PlotRegistry::instance().find("gpu-timeline");
    core::RunLoadOptions o;
    o.useCache = false;
    auto d = core::loadRun({std::string(STROBE_TEST_DATA_DIR) + "/kineto/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
                            std::string(STROBE_TEST_DATA_DIR) + "/telemetry/strobe/cpu_sampler_2core.csv"},
                           o);
    ASSERT_TRUE(d.ok()) << d.error().toString();
    ASSERT_EQ((*d)->ranks.size(), 1u);
    core::RunEntry e;
    e.label = "minitoy";
    e.dataset = *d;
    const RunSet runs{e};
    const auto specs = plot->parameters(runs);
    const ParamSpec* spec = findSpec(specs, "telemetry");
    ASSERT_NE(spec, nullptr);
    const std::vector<std::string> metrics{"mem_used_mib", "mem_total_mib", "cpu.util_pct", "cpu0.util_pct",
                                           "cpu1.util_pct"};
    EXPECT_EQ(spec->choices, metrics);
    EXPECT_EQ(std::get<std::vector<std::string>>(spec->defaultValue), metrics);
    auto values = resolveValues(specs, {});
    ASSERT_TRUE(values.ok());
    auto prepared = plot->prepare(runs, *values, {}, {});
    ASSERT_TRUE(prepared.ok()) << prepared.error().toString();
    const auto& p = *preparedAs<TimelinePrepared>(**prepared);
    std::vector<std::string> drawn;
    bool afterRank = false;
    for (const auto& l : p.lanes) {
        if (l.kind != LaneKind::Telemetry) {
            EXPECT_FALSE(afterRank) << "a rank lane after the host's: " << l.label;
            continue;
        }
        afterRank = true;
        EXPECT_EQ(l.group, "host");
        EXPECT_EQ(l.rankNumber, -1);
        EXPECT_EQ(l.value.size(), 100u) << l.metric;
        drawn.push_back(l.metric);
    }
    EXPECT_EQ(drawn, metrics);
}

TEST(TimelineTelemetry, AnEmptyMetricListDrawsNoTelemetry) {
    const Plot* plot = PlotRegistry::instance().find("gpu-timeline");
    auto runs = telemetryRun();
    auto values = resolveValues(plot->parameters(runs), {{"telemetry", std::vector<std::string>{}}});
    ASSERT_TRUE(values.ok());
    auto prepared = plot->prepare(runs, *values, {}, {});
    ASSERT_TRUE(prepared.ok());
    EXPECT_TRUE(preparedAs<TimelinePrepared>(**prepared)->lanes.empty());
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
    const auto& p = *preparedAs<TimelinePrepared>(*t.prepared);
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
    const auto& p = *preparedAs<TimelinePrepared>(*t.prepared);
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
