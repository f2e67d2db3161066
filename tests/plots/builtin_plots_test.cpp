// Every builtin plot: registered, prepares and draws a non-empty picture on hand-built data; tables agree with
// totals worked out by hand (plot_test_data.h states them).
#include <QDir>
#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "core/engine/run_loader.h"
#include "plots/analysis_plot.h"
#include "plots/plot_registry.h"
#include "plots/render.h"
#include "plots/timeline_view.h"
#include "tests/plots/plot_test_data.h"
#include "tests/test_paths.h"

using namespace strobe;
using namespace strobe::plots;

namespace {

RunSet runOf(core::DatasetPtr d, const std::string& label = "run") { return {RunEntry{label, std::move(d), {}}}; }

const Plot& plotById(const std::string& id) {
    const Plot* p = PlotRegistry::instance().find(id);
    EXPECT_NE(p, nullptr) << id;
    return *p;
}

// Cells of `t` in column `col` keyed by the text of column `keyCol` (and `keyCol2` when given).
std::map<std::string, core::Cell> column(const core::Table& t, const std::string& keyCol, const std::string& col,
                                         const std::string& keyCol2 = {}) {
    std::map<std::string, core::Cell> out;
    int k = t.columnIndex(keyCol), c = t.columnIndex(col), k2 = keyCol2.empty() ? -1 : t.columnIndex(keyCol2);
    EXPECT_GE(k, 0) << keyCol;
    EXPECT_GE(c, 0) << col;
    for (const auto& row : t.rows) {
        std::string key = std::get<std::string>(row[size_t(k)]);
        if (k2 >= 0) key += "/" + std::get<std::string>(row[size_t(k2)]);
        out[key] = row[size_t(c)];
    }
    return out;
}

}  // namespace

TEST(BuiltinPlots, RegistryListsEveryShippedPlotOnce) {
    std::vector<std::string> ids;
    for (const auto* p : PlotRegistry::instance().plots()) ids.push_back(p->id());
    for (const char* expected : {"gpu-timeline", "kernel-breakdown", "temporal-breakdown", "comm-comp-overlap",
                                 "idle-by-cause", "straggler", "launch-overhead-cdf", "kernel-durations",
                                 "top-kernels"})
        EXPECT_EQ(std::count(ids.begin(), ids.end(), expected), 1) << expected;
    // Every plot's specs are valid: defaults pass validation, keys are unique.
    for (const auto* p : PlotRegistry::instance().plots()) {
        auto specs = p->parameters({});
        std::set<std::string> keys;
        for (const auto& s : specs) {
            EXPECT_TRUE(validate(s, s.defaultValue).ok()) << p->id() << "." << s.key;
            EXPECT_TRUE(keys.insert(s.key).second) << p->id() << "." << s.key;
            EXPECT_FALSE(s.label.empty()) << p->id() << "." << s.key;
        }
    }
}

class EveryPlot : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryPlot, DrawsNonEmptyOnHandBuiltRuns) {
    const Plot& plot = plotById(GetParam());
    for (bool merged : {true, false}) {
        auto runs = runOf(testdata::smallRun(merged));
        auto values = resolveValues(plot.parameters(runs), {});
        ASSERT_TRUE(values.ok());
        auto prepared = plot.prepare(runs, *values, {}, {});
        ASSERT_TRUE(prepared.ok()) << prepared.error().toString();
        QImage img = renderToImage(plot, **prepared, *values, QSize(900, 500));
        EXPECT_GT(countNonBackgroundPixels(img), 2000) << GetParam() << " merged=" << merged;
        EXPECT_FALSE(plot.table(**prepared, *values).rows.empty()) << GetParam();
    }
    // Several runs at once (a comparison).
    RunSet two{RunEntry{"a", testdata::smallRun(), {}}, RunEntry{"b", testdata::syntheticRun(2, 500), {}}};
    auto prepared = prepareNow(plot, two);
    ASSERT_TRUE(prepared.ok()) << prepared.error().toString();
    auto values = *resolveValues(plot.parameters(two), {});
    EXPECT_GT(countNonBackgroundPixels(renderToImage(plot, **prepared, values, QSize(900, 500))), 2000);
}

TEST_P(EveryPlot, EmptyRunGivesMessageNotCrash) {
    const Plot& plot = plotById(GetParam());
    auto runs = runOf(testdata::makeDataset({testdata::makeRank(0, {})}));
    auto prepared = prepareNow(plot, runs);
    ASSERT_TRUE(prepared.ok());
    auto values = *resolveValues(plot.parameters(runs), {});
    QImage img = renderToImage(plot, **prepared, values, QSize(600, 300));
    EXPECT_GT(countNonBackgroundPixels(img), 50);  // the message
    EXPECT_FALSE(plot.table(**prepared, values).messages.empty());
}

TEST_P(EveryPlot, HonoursCancellation) {
    const Plot& plot = plotById(GetParam());
    core::CancelToken cancel;
    cancel.cancel();
    auto prepared = prepareNow(plot, runOf(testdata::syntheticRun(2, 1000)), {}, cancel);
    ASSERT_FALSE(prepared.ok());
    EXPECT_TRUE(isCancelledError(prepared.error()));
}

INSTANTIATE_TEST_SUITE_P(Builtin, EveryPlot,
                         ::testing::Values("gpu-timeline", "kernel-breakdown", "temporal-breakdown",
                                           "comm-comp-overlap", "idle-by-cause", "straggler", "launch-overhead-cdf",
                                           "kernel-durations", "top-kernels"));

TEST(KernelBreakdown, CategoryTotalsPerRankMatchHandWorkedSums) {
    const Plot& plot = plotById("kernel-breakdown");
    auto runs = runOf(testdata::smallRun());
    auto values = *resolveValues(plot.parameters(runs), {});
    auto t = plot.table(**prepareNow(plot, runs), values);
    auto time = column(t, "bar", "time_ns", "series");
    EXPECT_EQ(std::get<int64_t>(time.at("rank 0/gemm")), 400);
    EXPECT_EQ(std::get<int64_t>(time.at("rank 0/communication")), 500);
    EXPECT_EQ(std::get<int64_t>(time.at("rank 0/memcpy")), 50);
    EXPECT_EQ(std::get<int64_t>(time.at("rank 1/gemm")), 200);
    EXPECT_EQ(std::get<int64_t>(time.at("rank 1/communication")), 700);
    EXPECT_EQ(std::get<int64_t>(time.at("rank 1/elementwise")), 60);
    auto pct = column(t, "bar", "pct", "series");
    EXPECT_NEAR(std::get<double>(pct.at("rank 1/communication")), 700.0 * 100 / 960, 1e-9);
    auto count = column(t, "bar", "count", "series");
    EXPECT_EQ(std::get<int64_t>(count.at("rank 1/elementwise")), 3);
    // Per step: step 5 holds rank 0's first two kernels and all of rank 1; step 6 rank 0's last two.
    auto st = plot.table(**prepareNow(plot, runs, {{"per", std::string("step")}}), values);
    auto stime = column(st, "bar", "time_ns", "series");
    EXPECT_EQ(std::get<int64_t>(stime.at("step 5/gemm")), 100 + 200);
    EXPECT_EQ(std::get<int64_t>(stime.at("step 5/communication")), 500 + 700);
    EXPECT_EQ(std::get<int64_t>(stime.at("step 6/gemm")), 300);
    EXPECT_EQ(std::get<int64_t>(stime.at("step 6/memcpy")), 50);
    // Top-1 kernel over the whole window: the NCCL kernel (1200 ns) and everything else as others (710 ns).
    auto top = plot.table(**prepareNow(plot, runs, {{"group_by", std::string("kernel")}, {"top_n", 1LL},
                                                    {"per", std::string("window")}}),
                          values);
    auto ttime = column(top, "series", "time_ns");
    EXPECT_EQ(std::get<int64_t>(ttime.at("ncclDevKernel_AllReduce_Sum_f32_RING_LL")), 1200);
    EXPECT_EQ(std::get<int64_t>(ttime.at("others")), 400 + 50 + 200 + 60);
}

TEST(KernelDurations, StatisticsMatchHandWorkedValues) {
    const Plot& plot = plotById("kernel-durations");
    auto runs = runOf(testdata::smallRun());
    auto values = *resolveValues(plot.parameters(runs), {});
    // Elementwise durations 10, 30, 20 → sorted 10, 20, 30: median 20, mean 20, sample stddev 10,
    // p5 = 10 + 0.1*(20-10) = 11 (linear interpolation at position 0.05*2 = 0.1), p95 = 20 + 0.9*10 = 29.
    auto t = plot.table(**prepareNow(plot, runs), values);
    auto row = [&](const std::string& group, const std::string& col) {
        return column(t, "group", col).at(group);
    };
    EXPECT_EQ(std::get<int64_t>(row("elementwise", "count")), 3);
    EXPECT_DOUBLE_EQ(std::get<double>(row("elementwise", "median_ns")), 20);
    EXPECT_DOUBLE_EQ(std::get<double>(row("elementwise", "mean_ns")), 20);
    EXPECT_DOUBLE_EQ(std::get<double>(row("elementwise", "stddev_ns")), 10);
    EXPECT_DOUBLE_EQ(std::get<double>(row("elementwise", "p5_ns")), 11);
    EXPECT_DOUBLE_EQ(std::get<double>(row("elementwise", "p95_ns")), 29);
    EXPECT_DOUBLE_EQ(std::get<double>(row("elementwise", "cv")), 0.5);
    // Gemm: 100, 300, 200 on two ranks pooled.
    EXPECT_EQ(std::get<int64_t>(row("gemm", "total_ns")), 600);
    // Memcpy is not a kernel: absent.
    EXPECT_EQ(column(t, "group", "count").count("memcpy"), 0u);
    // By name with a regex: only the sgemm kernel.
    auto byName = plot.table(
        **prepareNow(plot, runs, {{"group_by", std::string("name")}, {"name_regex", std::string("sgemm")}}), values);
    ASSERT_EQ(byName.rows.size(), 1u);
    EXPECT_EQ(std::get<std::string>(byName.rows[0][0]), "ampere_sgemm_128x64_tn");
    // Split by rank, only step 5.
    auto split = plot.table(
        **prepareNow(plot, runs, {{"split_by", std::string("rank")}, {"steps", std::vector<std::string>{"5"}}}), values);
    auto c = column(split, "group", "count");
    EXPECT_EQ(std::get<int64_t>(c.at("gemm — rank 0")), 1);
    EXPECT_EQ(std::get<int64_t>(c.at("gemm — rank 1")), 1);
    EXPECT_EQ(std::get<int64_t>(c.at("elementwise — rank 1")), 3);
}

TEST(GpuTimeline, KeepsOverlappingKernelsAndFindsThemByHitTest) {
    using C = core::KernelCategory;
    // Three kernels on one stream, the second overlapping the first by 2.5 µs (as when a trace records concurrency
    // on one stream; an overlap up to overlap_tolerance_us, 1 µs, would stay in the lane as timestamp jitter): all
    // three must be in the table and reachable.
    auto d = testdata::makeDataset({testdata::makeRank(
        0, {{0, 3000, "first", 7, C::Gemm}, {500, 1000, "overlapping", 7, C::Gemm}, {3000, 500, "third", 7, C::Gemm}})});
    const Plot& plot = plotById("gpu-timeline");
    auto runs = runOf(d);
    auto values = *resolveValues(plot.parameters(runs), {});
    auto prepared = *prepareNow(plot, runs);
    auto t = plot.table(*prepared, values);
    EXPECT_EQ(t.rows.size(), 3u);
    QRectF rect(0, 0, 1000, 300);
    auto geo = plot.timeline()->geometry(*prepared, values, rect);
    ASSERT_TRUE(geo.has_value());
    EXPECT_EQ(geo->fullEnd, 3520);  // the range holds every lane: the runtime call of "third" ends 20 ns after it
    EXPECT_EQ(geo->laneCount, 3);  // stream 7, its sub-lane and the CPU thread of the launching runtime calls
    // Hover the middle of "third" on the first lane.
    double lh = geo->laneHeight;
    QPointF onThird(geo->xForTime(3250), geo->plotArea.top() + lh * 0.5);
    auto hit = plot.hitTest(*prepared, values, rect, onThird);
    ASSERT_TRUE(hit.has_value());
    EXPECT_EQ(hit->title, "third");
    // The overlapping kernel lives in the second lane.
    QPointF onOverlap(geo->xForTime(1200), geo->plotArea.top() + lh * 1.5);
    auto hit2 = plot.hitTest(*prepared, values, rect, onOverlap);
    ASSERT_TRUE(hit2.has_value());
    EXPECT_EQ(hit2->title, "overlapping");
    bool hasDuration = false;
    for (const auto& [k, v] : hit2->fields) hasDuration |= (k == "duration" && v == "1 µs");
    EXPECT_TRUE(hasDuration) << hit2->toText();
}

TEST(GpuTimeline, PhaseAndLayerBandsFromAnnotationsAndKernelPatterns) {
    using C = core::KernelCategory;
    // Two transformer layers by kernel pattern (QKV GEMMs, attention, output GEMM), forward [0, 400) and backward
    // [400, 600) from CPU-side autograd annotations, an optimizer step [700, 900) inside ProfilerStep#1. The kernels
    // have no launching call, so they count by their own start: all eight are forward work, whose band spans their
    // GPU time [100, 280]; backward and optimizer launched nothing and show at their CPU time.
    auto rank = testdata::makeRank(0,
                                   {{100, 10, "sm90_gemm_qkv", 7, C::Gemm},
                                    {120, 10, "sm90_gemm_qkv", 7, C::Gemm},
                                    {140, 20, "flash_fwd_kernel", 7, C::Attention},
                                    {170, 10, "sm90_gemm_out", 7, C::Gemm},
                                    {200, 10, "sm90_gemm_qkv", 7, C::Gemm},
                                    {220, 10, "sm90_gemm_qkv", 7, C::Gemm},
                                    {240, 20, "flash_fwd_kernel", 7, C::Attention},
                                    {270, 10, "sm90_gemm_out", 7, C::Gemm}},
                                   {{1, 0, 1000}});
    auto& sl = rank->slices;
    auto addSlice = [&](const std::string& name, int64_t ts, int64_t dur) {
        sl.ts.push_back(ts);
        sl.dur.push_back(dur);
        sl.name.push_back(rank->strings.intern(name));
        sl.cat.push_back(rank->strings.intern("cpu_op"));
        sl.kind.push_back(core::EventKind::CpuOp);
        sl.phase.push_back('X');
        sl.track.push_back(1);
        sl.externalId.push_back(core::kNone);
        sl.correlation.push_back(core::kNone);
        sl.sequence.push_back(core::kNone);
        sl.args.push_back(core::kEmptyStr);
        sl.parent.push_back(-1);
        sl.depth.push_back(0);
    };
    addSlice("autograd::engine::evaluate_function: MmBackward0", 400, 200);
    addSlice("Optimizer.step#SGD.step", 700, 200);
    auto runs = runOf(testdata::makeDataset({rank}));
    const Plot& plot = plotById("gpu-timeline");
    auto values = *resolveValues(plot.parameters(runs), {});
    auto prepared = *prepareNow(plot, runs);
    QRectF rect(0, 0, 1000, 400);
    auto geo = plot.timeline()->geometry(*prepared, values, rect);
    ASSERT_TRUE(geo.has_value());
    const double lh = geo->laneHeight;
    // Lanes top to bottom: steps, phases, layers, stream 7.
    auto titleAt = [&](int64_t t, int lane) {
        auto hit = plot.hitTest(*prepared, values, rect, QPointF(geo->xForTime(t), geo->plotArea.top() + lh * (lane + 0.5)));
        return hit ? hit->title : std::string("(nothing)");
    };
    EXPECT_EQ(titleAt(50, 0), "ProfilerStep#1");
    EXPECT_EQ(titleAt(150, 1), "forward (step 1)");
    EXPECT_EQ(titleAt(50, 1), "(nothing)");   // CPU forward, before the GPU began its work
    EXPECT_EQ(titleAt(300, 1), "(nothing)");  // CPU forward, after the GPU finished it
    EXPECT_EQ(titleAt(500, 1), "backward (step 1), no GPU work: CPU time");
    EXPECT_EQ(titleAt(800, 1), "optimizer (step 1), no GPU work: CPU time");
    EXPECT_EQ(titleAt(105, 2), "layer 0");
    EXPECT_EQ(titleAt(205, 2), "layer 1");
    EXPECT_EQ(titleAt(145, 3), "flash_fwd_kernel");
    // Hidden with the drawing switch, without preparing again: the stream is then the first lane after steps.
    auto hidden = values;
    hidden["show_phases"] = false;
    auto hitStream = plot.hitTest(*prepared, hidden, rect, QPointF(geo->xForTime(145), geo->plotArea.top() + lh * 1.5));
    ASSERT_TRUE(hitStream.has_value());
    EXPECT_EQ(hitStream->title, "flash_fwd_kernel");
}

TEST(GpuTimeline, FewLanesFillTheViewHeight) {
    using C = core::KernelCategory;
    // One kernel on each of two streams: 2 lanes (no steps, annotations or phases in this rank).
    auto d = testdata::makeDataset({testdata::makeRank(0, {{0, 1000, "a", 7, C::Gemm}, {0, 1000, "b", 8, C::Gemm}})});
    const Plot& plot = plotById("gpu-timeline");
    auto runs = runOf(d);
    auto values = *resolveValues(plot.parameters(runs), {});
    auto prepared = *prepareNow(plot, runs);
    const double set = double(kLaneHeight(values));
    // Tall view: both lanes grow beyond the set height, capped (48 px, the fill cap), and both stay visible.
    auto tall = *plot.timeline()->geometry(*prepared, values, QRectF(0, 0, 1000, 600));
    EXPECT_EQ(tall.laneCount, 3);  // and the CPU thread of the runtime calls (makeRank)
    EXPECT_GT(tall.laneHeight, set);
    EXPECT_LE(tall.laneHeight, 48.0);
    EXPECT_LE(3 * tall.laneHeight, tall.plotArea.height());
    // A short view keeps at least the set height.
    auto shortView = *plot.timeline()->geometry(*prepared, values, QRectF(0, 0, 1000, 60));
    EXPECT_EQ(shortView.laneHeight, set);
    // The second lane's kernel is hit in the middle of the grown second lane.
    auto hit = plot.hitTest(*prepared, values, QRectF(0, 0, 1000, 600),
                            QPointF(tall.xForTime(500), tall.plotArea.top() + tall.laneHeight * 1.5));
    ASSERT_TRUE(hit.has_value());
    EXPECT_EQ(hit->title, "b");
}

TEST(GpuTimeline, ViewParametersZoomWithoutReprepare) {
    const Plot& plot = plotById("gpu-timeline");
    auto runs = runOf(testdata::syntheticRun(2, 2000));
    auto values = *resolveValues(plot.parameters(runs), {});
    auto prepared = *prepareNow(plot, runs);
    QRectF rect(0, 0, 1200, 400);
    auto g = *plot.timeline()->geometry(*prepared, values, rect);
    EXPECT_EQ(g.viewStart, 0);
    EXPECT_EQ(g.viewEnd, g.fullEnd);
    // Zoom in 4× around the centre: the time under the cursor stays put.
    double cx = g.plotArea.center().x();
    int64_t under = g.timeForX(cx);
    auto zoomed = zoomAt(g, values, cx, 0.25);
    const auto specs = plot.parameters(runs);  // findSpec points into it: keep it alive
    for (const auto* k : {kViewStartKey, kViewEndKey, kLaneScrollKey}) {
        const ParamSpec* s = findSpec(specs, k);
        ASSERT_NE(s, nullptr) << k;
        EXPECT_FALSE(s->affectsPrepare) << k;
    }
    auto g2 = *plot.timeline()->geometry(*prepared, zoomed, rect);
    EXPECT_NEAR(double(g2.viewEnd - g2.viewStart), double(g.fullEnd) / 4, double(g.fullEnd) * 0.01);
    EXPECT_NEAR(double(g2.timeForX(cx)), double(under), double(g2.viewEnd - g2.viewStart) / 500);
    // Table follows the view: fewer kernels than the whole run.
    auto all = plot.table(*prepared, values).rows.size();
    auto some = plot.table(*prepared, zoomed).rows.size();
    EXPECT_EQ(all, 4000u);
    EXPECT_LT(some, all);
    EXPECT_GT(some, 0u);
    // Pan right by 100 px moves the view earlier; reset restores the whole range.
    auto panned = *plot.timeline()->geometry(*prepared, panBy(g2, zoomed, 100), rect);
    EXPECT_LT(panned.viewStart, g2.viewStart);
    auto reset = *plot.timeline()->geometry(*prepared, resetView(zoomed), rect);
    EXPECT_EQ(reset.viewEnd, g.fullEnd);
    // Box zoom from pixel 100 to 300.
    auto boxed = *plot.timeline()->geometry(
        *prepared, zoomToPixels(g, values, g.plotArea.left() + 100, g.plotArea.left() + 300), rect);
    EXPECT_NEAR(double(boxed.viewEnd - boxed.viewStart), double(g.fullEnd) * 200 / g.plotArea.width(),
                double(g.fullEnd) * 0.01);
}

// Not a check: writes every plot on the bundled 8-rank sample to $STROBE_PLOT_GALLERY (default /tmp/strobe-plots) for
// a human to look at. Run with --gtest_also_run_disabled_tests --gtest_filter=*Gallery*.
TEST(BuiltinPlots, DISABLED_Gallery) {
    const char* dirEnv = std::getenv("STROBE_PLOT_GALLERY");
    std::string dir = dirEnv ? dirEnv : "/tmp/strobe-plots";
    QDir().mkpath(QString::fromStdString(dir));
    core::RunLoadOptions o;
    o.useCache = false;
    auto sample = core::loadRun({std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank"}, o);
    auto runs = sample.ok() ? runOf(sample.value(), "param-dlrm-8rank") : runOf(testdata::syntheticRun(8, 3000));
    for (const auto* p : PlotRegistry::instance().plots()) {
        auto values = *resolveValues(p->parameters(runs), {});
        auto prepared = p->prepare(runs, values, {}, {});
        ASSERT_TRUE(prepared.ok());
        auto st = renderToFile(*p, **prepared, values, QSize(1400, 800), dir + "/" + p->id() + ".png");
        EXPECT_TRUE(st.ok());
    }
}

// Top kernels: across ranks every row's rank says "all", so no rank column is drawn or listed; the hover fields
// are formatted as the table is (durations with their unit, not raw doubles). Hand-worked on smallRun: the NCCL
// kernel ran 500 + 700 ns (ranks 0 and 1) = 1200 ns total, 2 launches, mean 600 ns — the largest total, so the
// first row when sorted by total descending.
TEST(TopKernels, NoConstantRankColumnAndFormattedHover) {
    const Plot& plot = plotById("top-kernels");
    EXPECT_TRUE(plot.isTable());
    auto runs = runOf(testdata::smallRun());
    auto values = *resolveValues(plot.parameters(runs), {});
    auto prepared = prepareNow(plot, runs);
    ASSERT_TRUE(prepared.ok()) << prepared.error().toString();
    const core::Table t = plot.table(**prepared, values);
    ASSERT_FALSE(t.rows.empty());
    EXPECT_NE(t.columnIndex("rank"), -1);  // the CSV keeps the analysis' columns
    const auto shown = displayColumns(t);
    EXPECT_EQ(std::find(shown.begin(), shown.end(), "rank"), shown.end());
    EXPECT_EQ(cellText(t, 0, "name"), "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    EXPECT_EQ(formatCell(t, 0, "total_ns"), "1.2 µs");
    EXPECT_EQ(formatCell(t, 0, "mean_ns"), "600 ns");
    EXPECT_EQ(formatCell(t, 0, "count"), "2");
    EXPECT_EQ(columnHeader("total_ns"), "total");
    // The first row under the pointer: scan down the left edge of the table.
    std::optional<HitInfo> hit;
    for (double y = 0; y < 200 && !hit; y += 2) hit = plot.hitTest(**prepared, values, QRectF(0, 0, 1200, 600), {40, y});
    ASSERT_TRUE(hit.has_value());
    EXPECT_EQ(hit->title, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    std::map<std::string, std::string> fields(hit->fields.begin(), hit->fields.end());
    EXPECT_EQ(fields.count("rank"), 0u);
    EXPECT_EQ(fields["total"], "1.2 µs");
    EXPECT_EQ(fields["mean"], "600 ns");
    for (const auto& [k, v] : hit->fields) EXPECT_EQ(v.find("0000"), std::string::npos) << k << ": " << v;
    // Per rank, the rows differ by rank: the column is shown.
    auto perRank = values;
    perRank["across_ranks"] = false;
    auto prepared2 = prepareNow(plot, runs, perRank);
    ASSERT_TRUE(prepared2.ok());
    const auto shown2 = displayColumns(plot.table(**prepared2, perRank));
    EXPECT_NE(std::find(shown2.begin(), shown2.end(), "rank"), shown2.end());
}
