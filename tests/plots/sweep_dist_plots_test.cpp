// The sweep distribution plots of issue 9: group-time-dist, sweep-heatmap and delta-bars.
#include <QImage>
#include <algorithm>
#include <cmath>
#include <map>

#include <gtest/gtest.h>

#include "core/engine/run_loader.h"
#include "plots/chart.h"
#include "plots/plot_registry.h"
#include "plots/render.h"
#include "plots/sweep_marks.h"
#include "tests/core/sweep_gen.h"
#include "tests/plots/plot_test_data.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

using namespace strobe;
using namespace strobe::plots;

namespace {

RunSet resnetSweepSweepDistPlots() {
    core::RunLoadOptions o;
    o.useCache = false;
    RunSet runs;
    for (const char* w : {"0", "4"}) {
        auto d = core::loadRun(
            {std::string(STROBE_TEST_DATA_DIR) + "/kineto/kineto-configs/resnet50_num_workers_" + w}, o);
        EXPECT_TRUE(d.ok());
        runs.push_back(RunEntry{std::string("w") + w, d.ok() ? d.value() : nullptr, {{"num_workers", w}}});
    }
    return runs;
}

const Plot& plotOf(const char* id) {
    const Plot* p = PlotRegistry::instance().find(id);
    EXPECT_NE(p, nullptr) << id;
    return *p;
}

struct Made {
    ParamValues values;
    PreparedPtr prepared;
};

Made make(const Plot& plot, const RunSet& runs, const ParamValues& given = {}) {
    auto values = core::resolveValues(plot.parameters(runs), given);
    EXPECT_TRUE(values.ok()) << (values.ok() ? "" : values.error().toString());
    if (!values.ok()) return {};
    auto prepared = prepareNow(plot, runs, *values);
    EXPECT_TRUE(prepared.ok());
    return {*values, prepared.ok() ? *prepared : nullptr};
}

std::string fieldSweepDistPlots(const HitInfo& h, const std::string& key) {
    for (const auto& [k, v] : h.fields)
        if (k == key) return v;
    return {};
}

// The group's per-step times, by a script of its own: tests/data/expected/group_time_dist_kineto_configs.py sums the
// durations of this kernel name launched inside each ProfilerStep#5..#10 of each run (json module only):
//   num_workers=0: 11111000 11103000 11096000 11066000 11029000 11067000 ns, median (11066000 + 11096000) / 2
//   num_workers=4:  7284000  7265000  7255000  7221000  7227000  7219000 ns, median ( 7227000 +  7255000) / 2
const char* kWgrad =
    "void cudnn::cnn::wgrad_alg0_engine<float, 128, 6, 7, 3, 3, 5, false, 512>(int, int, int, float const*, int, "
    "float*, float const*, kernel_grad_params, unsigned long long, int, float, int, int, int, int)";

TEST(GroupTimeDist, MediansOfAKernelGroupPerStepOnTheResnetSweep) {
    const Plot& plot = plotOf("group-time-dist");
    const auto runs = resnetSweepSweepDistPlots();
    const auto m = make(plot, runs, {{"group", std::string(kWgrad)}});
    ASSERT_TRUE(m.prepared);
    EXPECT_FALSE(plot.emptyMessage(*m.prepared, m.values).has_value());
    const auto t = plot.table(*m.prepared, m.values);
    std::map<std::string, std::vector<double>> perConfig;
    for (size_t r = 0; r < t.rows.size(); ++r)
        perConfig[core::Table::text(t.at(r, "configuration"))].push_back(core::Table::number(t.at(r, "group_ns")));
    ASSERT_EQ(perConfig.size(), 2u);
    for (auto& [config, v] : perConfig) {
        ASSERT_EQ(v.size(), 6u) << config;
        std::sort(v.begin(), v.end());
        perConfig[config] = {(v[2] + v[3]) / 2};
    }
    EXPECT_DOUBLE_EQ(perConfig["num_workers=0"][0], 11081500.0);
    EXPECT_DOUBLE_EQ(perConfig["num_workers=4"][0], 7241000.0);

    // The hover over the right half (x = num_workers: bands 0 and 4): the num_workers=4 box, its n and median.
    const QRectF rect(0, 0, 900, 500);
    std::optional<HitInfo> hit;
    for (double x = 800; x > 500 && !hit; x -= 10) hit = plot.hitTest(*m.prepared, m.values, rect, QPointF(x, 250));
    ASSERT_TRUE(hit.has_value());
    EXPECT_EQ(hit->title, "num_workers=4");
    EXPECT_EQ(fieldSweepDistPlots(*hit, "n"), "6 steps");
    EXPECT_EQ(fieldSweepDistPlots(*hit, "median"), formatDuration(7241000.0));
    EXPECT_FALSE(fieldSweepDistPlots(*hit, "p5 – p95").empty());
    EXPECT_FALSE(fieldSweepDistPlots(*hit, "CV").empty());

    // A group that does not exist says so.
    const auto none = make(plot, runs, {{"group", std::string("no_such_kernel")}});
    ASSERT_TRUE(none.prepared);
    ASSERT_TRUE(plot.emptyMessage(*none.prepared, none.values).has_value());
    EXPECT_NE(plot.emptyMessage(*none.prepared, none.values)->find("no_such_kernel"), std::string::npos);
}

// A generated sweep (tests/core/sweep_gen.h: bs=1 vs bs=2, 3 repeats, fixed noise table): gemm is 10 % slower in
// bs=2 with +-1 % noise between repeats, relu 0.4 % slower with +-5 % noise. Only gemm at bs=2 is significant.
TEST(DeltaBars, FlagsExactlyTheInjectedDifference) {
    test::TempDir dir("strobe-delta-bars");
    test::writeGeneratedSweep(dir.path());
    core::RunLoadOptions o;
    o.useCache = false;
    RunSet runs;
    for (int bs : {1, 2})
        for (int rep = 0; rep < 3; ++rep) {
            auto d = core::loadRun({(dir.path() / fmt::format("bs={}", bs) / fmt::format("rep{}", rep)).string()}, o);
            ASSERT_TRUE(d.ok());
            runs.push_back(RunEntry{fmt::format("bs={}/rep{}", bs, rep), d.value(), {{"bs", std::to_string(bs)}}});
        }
    const Plot& plot = plotOf("delta-bars");
    const auto specs = plot.parameters(runs);
    const auto* baseline = findSpec(specs, "baseline");
    ASSERT_NE(baseline, nullptr);
    EXPECT_EQ(baseline->choices, (std::vector<std::string>{"bs=1", "bs=2"}));
    const auto m = make(plot, runs);
    ASSERT_TRUE(m.prepared);
    EXPECT_FALSE(plot.emptyMessage(*m.prepared, m.values).has_value());
    const auto t = plot.table(*m.prepared, m.values);
    std::vector<std::pair<std::string, std::string>> significant;
    size_t withDelta = 0;
    for (size_t r = 0; r < t.rows.size(); ++r) {
        if (!std::holds_alternative<std::monostate>(t.at(r, "delta_pct"))) ++withDelta;
        if (core::Table::number(t.at(r, "significant")) == 1)
            significant.emplace_back(core::Table::text(t.at(r, "group")), core::Table::text(t.at(r, "configuration")));
    }
    // Issue 21: step time, GPU busy and GPU idle lead, then gemm and relu, each of bs=2. The step spans are equal
    // (not flagged); the GPU's busy time holds gemm's 100 ns (idle is the step minus busy), so they may be flagged
    // with it; of the kernel groups only gemm is.
    EXPECT_EQ(withDelta, 5u);
    EXPECT_EQ(core::Table::text(t.at(0, "group")), "step time");
    std::erase_if(significant, [](const auto& s) { return s.first == "GPU busy" || s.first == "GPU idle"; });
    EXPECT_EQ(significant, (std::vector<std::pair<std::string, std::string>>{{"gemm", "bs=2"}}));
    ASSERT_FALSE(t.messages.empty());
    EXPECT_NE(t.messages.front().find("Holm"), std::string::npos);  // the method, with its correction

    // The hover of gemm's bar: its configuration, change and significance.
    std::optional<HitInfo> hit;
    for (double y = 60; y < 480 && !(hit && hit->title == "gemm"); y += 4)
        hit = plot.hitTest(*m.prepared, m.values, QRectF(0, 0, 900, 500), QPointF(700, y));
    ASSERT_TRUE(hit && hit->title == "gemm");
    EXPECT_EQ(fieldSweepDistPlots(*hit, "configuration"), "bs=2");
    EXPECT_EQ(fieldSweepDistPlots(*hit, "significant"), "yes");
    EXPECT_EQ(fieldSweepDistPlots(*hit, "change").substr(0, 2), "+1");  // about +10 %

    // The other way round (baseline bs=2): gemm of bs=1 is the significant one.
    const auto back = make(plot, runs, {{"baseline", std::string("bs=2")}});
    const auto tb = plot.table(*back.prepared, back.values);
    for (size_t r = 0; r < tb.rows.size(); ++r)
        if (core::Table::number(tb.at(r, "significant")) == 1 && !core::Table::text(tb.at(r, "group")).starts_with("GPU ")) {
            EXPECT_EQ(core::Table::text(tb.at(r, "group")), "gemm");
            EXPECT_EQ(core::Table::text(tb.at(r, "configuration")), "bs=1");
        }
}

// A tiny 2x2 sweep built in memory: a in {1, 2}, b in {p, q}, one run each, three steps per run of
// (1000 a + 500 [b = q]) us plus {0, 10, 40} us, and one gemm kernel per step of 100 a (x2 when b = q) us plus a
// relu of 50 us. By hand: median step time = the middle step, 1000 a + 500 [b = q] + 10 us; gemm per step =
// 100, 200, 200, 400 us; gemm's change vs (a=1, b=p) = +100 %, +100 %, +300 %.
RunSet gridSweep() {
    using testdata::K;
    RunSet runs;
    for (int a : {1, 2})
        for (const char* b : {"p", "q"}) {
            const bool q = std::string(b) == "q";
            const int64_t base = (1000 * a + (q ? 500 : 0)) * 1000;
            const int64_t gemm = 100000 * a * (q ? 2 : 1);
            std::vector<K> ks;
            std::vector<testdata::StepRange> steps;
            int64_t t = 0;
            const int64_t extra[3] = {0, 10000, 40000};
            for (int s = 0; s < 3; ++s) {
                steps.push_back({s + 1, t, t + base + extra[s]});
                ks.push_back({t + 1000, gemm, "gemm", 7, core::KernelCategory::Gemm});
                ks.push_back({t + 1000 + gemm + 100, 50000, "relu", 7, core::KernelCategory::Elementwise});
                t += base + extra[s] + 1000;
            }
            runs.push_back(RunEntry{fmt::format("a{}{}", a, b),
                                    testdata::makeDataset({testdata::makeRank(0, ks, steps)}),
                                    {{"a", std::to_string(a)}, {"b", b}}});
        }
    return runs;
}

std::map<std::pair<std::string, std::string>, double> cells(const Plot& plot, const Made& m) {
    std::map<std::pair<std::string, std::string>, double> out;
    const auto t = plot.table(*m.prepared, m.values);
    for (size_t r = 0; r < t.rows.size(); ++r)
        out[{core::Table::text(t.at(r, "x")), core::Table::text(t.at(r, "y"))}] = core::Table::number(t.at(r, "value"));
    return out;
}

TEST(SweepHeatmap, CellValuesOfATwoByTwoSweep) {
    const Plot& plot = plotOf("sweep-heatmap");
    const auto runs = gridSweep();
    using Cells = std::map<std::pair<std::string, std::string>, double>;
    EXPECT_EQ(cells(plot, make(plot, runs)),
              (Cells{{{"1", "p"}, 1010e3}, {{"1", "q"}, 1510e3}, {{"2", "p"}, 2010e3}, {{"2", "q"}, 2510e3}}));
    EXPECT_EQ(cells(plot, make(plot, runs, {{"cell_value", std::string("group_per_step")}, {"group", std::string("gemm")}})),
              (Cells{{{"1", "p"}, 100e3}, {{"1", "q"}, 200e3}, {{"2", "p"}, 200e3}, {{"2", "q"}, 400e3}}));
    const auto delta = cells(plot, make(plot, runs, {{"cell_value", std::string("delta_pct")}}));  // group: gemm (largest)
    ASSERT_EQ(delta.size(), 4u);
    EXPECT_DOUBLE_EQ(delta.at({"1", "p"}), 0.0);
    EXPECT_NEAR(delta.at({"1", "q"}), 100.0, 1e-9);
    EXPECT_NEAR(delta.at({"2", "p"}), 100.0, 1e-9);
    EXPECT_NEAR(delta.at({"2", "q"}), 300.0, 1e-9);

    // y = (none): a cell pools b's two configurations; a=1 steps {1000, 1010, 1040, 1500, 1510, 1540} us, median
    // (1040 + 1500) / 2 = 1270 us; a=2: (2040 + 2500) / 2 = 2270 us. The subtitle names the pooled axis.
    const auto pooled = make(plot, runs, {{"y_axis", std::string("(none)")}});
    EXPECT_EQ(cells(plot, pooled), (Cells{{{"1", ""}, 1270e3}, {{"2", ""}, 2270e3}}));
    const std::string svg = renderToSvg(plot, *pooled.prepared, pooled.values, QSize(900, 500)).toStdString();
    EXPECT_NE(svg.find("cells pool the configurations of b"), std::string::npos);

    // The hover of the top-right cell (y bands from the top: p then q): a=2, b=p.
    const auto m = make(plot, runs);
    const QRectF rect(0, 0, 900, 500);
    std::optional<HitInfo> hit;
    for (double x = 700; x > 450 && !hit; x -= 10) hit = plot.hitTest(*m.prepared, m.values, rect, QPointF(x, 120));
    ASSERT_TRUE(hit.has_value());
    EXPECT_EQ(fieldSweepDistPlots(*hit, "a"), "2");
    EXPECT_EQ(fieldSweepDistPlots(*hit, "b"), "p");
    EXPECT_EQ(fieldSweepDistPlots(*hit, "value"), formatDuration(2010e3));
}

// Silverman's rule on {1, 2, 3, 4, 5}, by hand: sd = sqrt(10 / 4) = 1.5811, IQR / 1.34 = (4 - 2) / 1.34 = 1.4925
// (the smaller), h = 0.9 * 1.4925 * 5^(-1/5) = 0.9 * 1.4925 * 0.72478 = 0.97359. The density integrates to 1.
TEST(SweepMarks, SilvermanBandwidthAndDensity) {
    const std::vector<double> v{1, 2, 3, 4, 5};
    const double h = silvermanBandwidth(v);
    EXPECT_NEAR(h, 0.9 * (2 / 1.34) * std::pow(5.0, -0.2), 1e-12);
    EXPECT_NEAR(h, 0.97359, 1e-4);
    double area = 0;
    for (double x = -10; x < 16; x += 0.01) area += kernelDensity(v, h, x) * 0.01;
    EXPECT_NEAR(area, 1.0, 1e-3);
    EXPECT_EQ(silvermanBandwidth({3, 3, 3}), 0.0);
    // Marks in x bands, dodged by colour: two colours in band "4", one in band "8".
    const auto plan = planMarks({{"8", "a", "", "c1"}, {"4", "b", "", "c2"}, {"4", "a", "", "c3"}}, true);
    EXPECT_EQ(plan.bands, (std::vector<std::string>{"4", "8"}));
    EXPECT_EQ(plan.maxSlots, 2u);
    EXPECT_EQ(plan.place[2].slot, 0u);  // colour a before b
    EXPECT_EQ(plan.place[1].slot, 1u);
    EXPECT_EQ(plan.place[0].slots, 1u);
}

// Pixels of `image` inside `r` that differ from its background (the top-left pixel).
int inked(const QImage& image, const QRect& r) {
    const QRgb bg = image.pixel(0, 0);
    int n = 0;
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x) n += image.pixel(x, y) != bg;
    return n;
}

TEST(SweepDistPlots, DrawOnTheResnetSweepAndSayWhyNotWithoutSteps) {
    const auto runs = resnetSweepSweepDistPlots();
    for (const char* id : {"group-time-dist", "sweep-heatmap", "delta-bars", "step-time-box"}) {
        const Plot& plot = plotOf(id);
        for (const char* style : {"box", "violin", "both"}) {
            ParamValues given;
            if (std::string(id) == "group-time-dist") given["style"] = std::string(style);
            else if (std::string(style) != "box") continue;
            const auto m = make(plot, runs, given);
            ASSERT_TRUE(m.prepared);
            EXPECT_FALSE(plot.emptyMessage(*m.prepared, m.values).has_value()) << id;
            const QImage image = renderToImage(plot, *m.prepared, m.values, QSize(900, 600));
            // The middle of the picture (where boxes, cells or bars are) has ink; so does each half.
            EXPECT_GT(inked(image, QRect(150, 150, 300, 300)), 500) << id << " " << style;
            EXPECT_GT(inked(image, QRect(450, 150, 300, 300)), 500) << id << " " << style;
        }
    }
    // Runs without ProfilerSteps: the step plots say so instead of drawing empty axes.
    RunSet plain;
    for (const char* w : {"0", "4"})
        plain.push_back(RunEntry{std::string("w") + w,
                                 testdata::makeDataset({testdata::makeRank(0, {{0, 100, "gemm"}, {200, 50, "relu"}})}),
                                 {{"num_workers", w}}});
    for (const char* id : {"group-time-dist", "sweep-heatmap", "step-time-box"}) {
        const Plot& plot = plotOf(id);
        const auto m = make(plot, plain);
        ASSERT_TRUE(m.prepared);
        const auto why = plot.emptyMessage(*m.prepared, m.values);
        ASSERT_TRUE(why.has_value()) << id;
        EXPECT_NE(why->find("no ProfilerStep#N"), std::string::npos) << id << ": " << *why;
    }
    // delta-bars compares whole runs then (compareSweep counts a run without steps as one step) and says so.
    const Plot& bars = plotOf("delta-bars");
    const auto m = make(bars, plain);
    const auto t = bars.table(*m.prepared, m.values);
    EXPECT_TRUE(std::any_of(t.messages.begin(), t.messages.end(), [](const std::string& s) {
        return s.find("the whole run counts as one step") != std::string::npos;
    }));
    // One configuration: nothing to compare.
    const auto one = make(bars, RunSet{plain[0]});
    ASSERT_TRUE(bars.emptyMessage(*one.prepared, one.values).has_value());
    EXPECT_NE(bars.emptyMessage(*one.prepared, one.values)->find("one configuration"), std::string::npos);
}

}  // namespace
