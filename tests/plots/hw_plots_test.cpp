// The hardware plots of issue 11 (power-freq-summary, total-power, cpu-active-cores, cpu-core-heatmap,
// overhead-breakdown) on real files and on small built data. Expected values on real files:
// tests/data/expected/hw_plots.py (output kept in hw_plots.txt); on built data: worked by hand in the comments.
// Set STROBE_HW_PNG_DIR to also write each picture there (to look at them).
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "bench/synthetic_dataset.h"
#include "core/engine/run_loader.h"
#include "core/formats/amd_smi.h"
#include "core/formats/nvidia_smi_csv.h"
#include "core/formats/nvidia_smi_dmon.h"
#include "core/formats/strobe_sampler_csv.h"
#include "core/formats/telemetry_metrics.h"
#include "plots/plot_registry.h"
#include "plots/render.h"
#include "tests/test_paths.h"

using namespace strobe;
using namespace strobe::plots;

namespace {

const std::string kHwPlotsData = std::string(STROBE_TEST_DATA_DIR) + "/";
const std::string kSampler = "telemetry/strobe/cpu_sampler_2core.csv";

std::shared_ptr<const core::RankData> loadRank(const std::string& rel, int rankNo) {
    auto text = core::telemetry::readFileText(kHwPlotsData + rel);
    EXPECT_TRUE(text.ok()) << rel;
    if (!text.ok()) return nullptr;
    auto r = rel.find("rocm-smi") != std::string::npos ? core::parseRocmSmiConcise(text->text, kHwPlotsData + rel, {})
        : rel.find("strobe/") != std::string::npos     ? core::parseStrobeSamplerCsv(text->text, kHwPlotsData + rel, {})
        : rel.ends_with(".csv")                        ? core::parseNvidiaSmiCsv(text->text, kHwPlotsData + rel, {})
                                                       : core::parseNvidiaSmiDmon(text->text, kHwPlotsData + rel, {});
    EXPECT_TRUE(r.ok()) << rel << ": " << (r.ok() ? "" : r.error().toString());
    if (!r.ok()) return nullptr;
    r.value()->rank = rankNo;
    return std::shared_ptr<const core::RankData>(std::move(r.value()));
}

RunEntry runOfHwPlots(const std::string& label, const std::vector<std::string>& files,
                      std::map<std::string, std::string> parameters = {}) {
    auto d = std::make_shared<core::Dataset>();
    d->generation = core::nextGeneration();
    int n = 0;
    for (const auto& f : files) d->ranks.push_back(loadRank(f, n++));
    return RunEntry{label, d, core::typedParameters(parameters)};
}

RunEntry loadedRun(const std::string& label, const std::string& rel) {
    core::RunLoadOptions o;
    o.useCache = false;  // tests never write to the user's cache
    auto r = core::loadRun({kHwPlotsData + rel}, o);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
    return RunEntry{label, r.ok() ? r.value() : nullptr, {}};
}

const Plot& plotByIdHwPlots(const std::string& id) {
    const Plot* p = PlotRegistry::instance().find(id);
    EXPECT_NE(p, nullptr) << id;
    return *p;
}

struct Outcome {
    PreparedPtr prepared;
    ParamValues values;
    core::Table table;
};

// Prepares, renders (pixels drawn, or the empty message when `empty`), returns the table.
Outcome run(const Plot& plot, const RunSet& runs, ParamValues set = {}, bool empty = false) {
    auto values = resolveValues(plot.parameters(runs), set);
    EXPECT_TRUE(values.ok()) << (values.ok() ? "" : values.error().toString());
    auto prepared = plot.prepare(runs, *values, {}, {});
    EXPECT_TRUE(prepared.ok()) << (prepared.ok() ? "" : prepared.error().toString());
    if (!prepared.ok()) return {};
    EXPECT_EQ(plot.emptyMessage(**prepared, *values).has_value(), empty) << plot.id();
    QImage img = renderToImage(plot, **prepared, *values, QSize(1000, 560));
    if (!empty) {
        EXPECT_GT(countNonBackgroundPixels(img), 5000) << plot.id();
    }
    if (const char* dir = std::getenv("STROBE_HW_PNG_DIR"))
        img.save(QString::fromStdString(std::string(dir) + "/" + plot.id() + (empty ? "-empty" : "") + ".png"));
    return {*prepared, *values, plot.table(**prepared, *values)};
}

double num(const core::Table& t, size_t row, size_t col) { return core::Table::number(t.rows.at(row).at(col)); }
std::string txt(const core::Table& t, size_t row, size_t col) { return core::Table::text(t.rows.at(row).at(col)); }

// Every hit along a horizontal line at `y` (one test every 4 px) whose title is `title`.
std::vector<HitInfo> hitsAlong(const Plot& plot, const Outcome& r, double y, const std::string& title) {
    std::vector<HitInfo> out;
    const QRectF rect(0, 0, 1000, 560);
    for (double x = 2; x < 1000; x += 4)
        if (auto h = plot.hitTest(*r.prepared, r.values, rect, QPointF(x, y)); h && h->title == title) out.push_back(*h);
    return out;
}

std::string fieldHwPlots(const HitInfo& h, const std::string& name) {
    for (const auto& [k, v] : h.fields)
        if (k == name) return v;
    return {};
}

// ---- power-freq-summary ----

TEST(HwPlots, PowerFreqSummaryMatchesPython) {
    const Plot& plot = plotByIdHwPlots("power-freq-summary");
    RunSet runs{runOfHwPlots("h100 idle+load",
                             {"telemetry/nvidia-smi/h100_dmon_idle.txt", "telemetry/nvidia-smi/h100_dmon_load.txt"}),
                runOfHwPlots("l40s", {"telemetry/nvidia-smi/l40s_dmon_load.txt"}),
                runOfHwPlots("mi300a", {"telemetry/amd/rocm-smi_concise_4gpu.txt"}),
                runOfHwPlots("h100 query", {"telemetry/nvidia-smi/h100_query-gpu_load.csv"})};
    auto r = run(plot, runs);
    const auto& t = r.table;
    // Rows per configuration (x sorted as text): the bar ("all"), then one per GPU.
    ASSERT_EQ(t.rows.size(), 4u + 2 + 1 + 1 + 4);
    EXPECT_EQ(txt(t, 0, 0), "h100 idle+load");
    EXPECT_EQ(txt(t, 0, 3), "all");
    EXPECT_EQ(num(t, 0, 4), 10);
    EXPECT_DOUBLE_EQ(num(t, 0, 5), 351.3);   // python: mean of the ten pwr samples
    EXPECT_DOUBLE_EQ(num(t, 0, 7), 1162.5);  // and of the ten pclk samples
    EXPECT_EQ(txt(t, 1, 3), "rank 0 · GPU 0");
    EXPECT_DOUBLE_EQ(num(t, 1, 5), 69.0);
    EXPECT_DOUBLE_EQ(num(t, 2, 5), 633.6);
    EXPECT_DOUBLE_EQ(num(t, 2, 7), 1980.0);
    EXPECT_EQ(txt(t, 3, 0), "h100 query");
    EXPECT_DOUBLE_EQ(num(t, 3, 5), 631.95);
    EXPECT_DOUBLE_EQ(num(t, 3, 7), 1980.0);
    EXPECT_EQ(txt(t, 5, 0), "l40s");
    EXPECT_DOUBLE_EQ(num(t, 5, 5), 108.2);
    EXPECT_DOUBLE_EQ(num(t, 5, 7), 2520.0);
    EXPECT_EQ(txt(t, 7, 0), "mi300a");
    EXPECT_EQ(num(t, 7, 4), 4);
    EXPECT_DOUBLE_EQ(num(t, 7, 5), 115.75);
    EXPECT_DOUBLE_EQ(num(t, 7, 7), 99.25);
    const double power[] = {110, 113, 125, 115}, sclk[] = {98, 99, 100, 100};
    for (size_t g = 0; g < 4; ++g) {
        EXPECT_EQ(txt(t, 8 + g, 3), "GPU " + std::to_string(g));
        EXPECT_DOUBLE_EQ(num(t, 8 + g, 5), power[g]);
        EXPECT_DOUBLE_EQ(num(t, 8 + g, 7), sclk[g]);
    }
    // Hovering a bar of the MI300A lists its four GPUs' means (the bars' bottoms are 60 px above the canvas'
    // bottom at most: the rotated labels take the rest).
    bool found = false;
    for (double y = 300; y < 540 && !found; y += 20)
        for (const auto& h : hitsAlong(plot, r, y, "mi300a")) {
            found = true;
            EXPECT_EQ(h.fields.size(), 2u + 4u) << h.toText();
            EXPECT_NE(fieldHwPlots(h, "GPU 2").find("125"), std::string::npos) << h.toText();
        }
    EXPECT_TRUE(found);
}

TEST(HwPlots, PowerFreqSummaryGroupsBySweepAxes) {
    const Plot& plot = plotByIdHwPlots("power-freq-summary");
    // Four runs on two axes: x = gpu (the first that varies), colour = state.
    RunSet runs{runOfHwPlots("a", {"telemetry/nvidia-smi/h100_dmon_idle.txt"}, {{"gpu", "h100"}, {"state", "idle"}}),
                runOfHwPlots("b", {"telemetry/nvidia-smi/h100_dmon_load.txt"}, {{"gpu", "h100"}, {"state", "load"}}),
                runOfHwPlots("c", {"telemetry/nvidia-smi/l40s_dmon_idle.txt"}, {{"gpu", "l40s"}, {"state", "idle"}}),
                runOfHwPlots("d", {"telemetry/nvidia-smi/l40s_dmon_load.txt"}, {{"gpu", "l40s"}, {"state", "load"}})};
    auto r = run(plot, runs);
    ASSERT_EQ(r.table.rows.size(), 8u);
    EXPECT_EQ(txt(r.table, 0, 0), "h100");
    EXPECT_EQ(txt(r.table, 0, 1), "idle");
    EXPECT_EQ(txt(r.table, 2, 1), "load");
    EXPECT_DOUBLE_EQ(num(r.table, 2, 5), 633.6);
    EXPECT_EQ(txt(r.table, 6, 0), "l40s");
    EXPECT_DOUBLE_EQ(num(r.table, 6, 5), 108.2);
}

// ---- total-power ----

TEST(HwPlots, TotalPowerWholeSeriesMatchesPython) {
    RunSet runs{runOfHwPlots("h100", {"telemetry/nvidia-smi/h100_dmon_load.txt"}),
                runOfHwPlots("l40s", {"telemetry/nvidia-smi/l40s_dmon_load.txt"})};
    auto r = run(plotByIdHwPlots("total-power"), runs);
    ASSERT_EQ(r.table.rows.size(), 2u);
    EXPECT_TRUE(std::holds_alternative<std::monostate>(r.table.rows[0][3]));  // no step
    EXPECT_DOUBLE_EQ(num(r.table, 0, 6), 2534.5);
    EXPECT_EQ(num(r.table, 0, 5), 4e9);
    EXPECT_DOUBLE_EQ(num(r.table, 1, 6), 432.5);
    ASSERT_EQ(r.table.messages.size(), 2u);
    EXPECT_NE(r.table.messages[0].find("whole sample series"), std::string::npos) << r.table.messages[0];
}

// A run of two ranks on realtime: rank 0 has the steps (and a kernel, so that it is timed), rank 1 the power of
// two GPUs. GPU 0 at 0, 1, 2, 3, 4 s: 100, 200, 200, 300, 100 W; GPU 1: 50 W at 0 s and at 4 s.
// Steps #1 [1, 2) s, #2 [2, 3.5) s, #3 [3.5, 4) s, #4 [4, 4.5) s (past the last sample: left out).
core::DatasetPtr stepsAndPower(core::ClockDomain powerClock, bool powerAnchored) {
    constexpr int64_t s = 1'000'000'000;
    auto steps = testdata::makeRank(0, {{s, 1000, "gemm"}},
                                    {{1, s, 2 * s}, {2, 2 * s, 7 * s / 2}, {3, 7 * s / 2, 4 * s}, {4, 4 * s, 9 * s / 2}});
    steps->info.clock = {core::ClockDomain::Realtime, true, 0, "test"};
    auto power = std::make_shared<core::RankData>();
    power->rank = 1;
    power->info.clock = {powerClock, powerAnchored, 0, powerAnchored ? "test" : ""};
    const double gpu0[] = {100, 200, 200, 300, 100};
    for (int i = 0; i < 5; ++i) core::telemetry::appendSample(*power, i * s, 0, "power_w", gpu0[i]);
    core::telemetry::appendSample(*power, 0, 1, "power_w", 50);
    core::telemetry::appendSample(*power, 4 * s, 1, "power_w", 50);
    return testdata::makeDataset({steps, power});
}

TEST(HwPlots, TotalPowerPerStepHandComputed) {
    const Plot& plot = plotById("total-power");
    auto r = run(plot, RunSet{RunEntry{"built", stepsAndPower(core::ClockDomain::Realtime, true), {}}});
    // Trapezoids: step 1: GPU 0 (200 + 200) / 2 × 1 s = 200 J, GPU 1 50 W × 1 s = 50 J → 250 J.
    // Step 2: GPU 0 [2, 3] (200 + 300) / 2 = 250 J; [3, 3.5] from 300 W to 200 W (halfway to 100): 125 J;
    // GPU 1 75 J → 450 J. Step 3: GPU 0 (200 + 100) / 2 × 0.5 = 75 J, GPU 1 25 J → 100 J.
    ASSERT_EQ(r.table.rows.size(), 3u);
    const double joules[] = {250, 450, 100}, watts[] = {250, 300, 200};
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(num(r.table, i, 3), double(i + 1));
        EXPECT_NEAR(num(r.table, i, 6), joules[i], 1e-9);
        EXPECT_NEAR(num(r.table, i, 7), watts[i], 1e-9);
        EXPECT_EQ(num(r.table, i, 8), 2);
    }
    EXPECT_EQ(num(r.table, 1, 4), 1e9);  // start, from the first step's start
    ASSERT_EQ(r.table.messages.size(), 1u);
    EXPECT_NE(r.table.messages[0].find("1 steps are not covered"), std::string::npos) << r.table.messages[0];
    // The bar: median 250 J; whiskers at the 25th and 75th percentiles of {100, 250, 450} (linear between ranks:
    // 100 + 0.5 × 150 = 175, 250 + 0.5 × 200 = 350).
    bool found = false;
    for (double y = 200; y < 520 && !found; y += 20)
        for (const auto& h : hitsAlong(plot, r, y, "built")) {
            found = true;
            EXPECT_EQ(fieldHwPlots(h, "median"), "250 J");
            EXPECT_EQ(fieldHwPlots(h, "p25 – p75"), "175 – 350 J");
        }
    EXPECT_TRUE(found);
    // Skipping the first step leaves steps 2 and 3.
    ParamValues skip;
    skip["skip_steps"] = int64_t(1);
    auto s = run(plot, RunSet{RunEntry{"built", stepsAndPower(core::ClockDomain::Realtime, true), {}}}, skip);
    ASSERT_EQ(s.table.rows.size(), 2u);
    EXPECT_EQ(num(s.table, 0, 3), 2);
}

TEST(HwPlots, TotalPowerSaysWhyClocksCannotBeAligned) {
    const Plot& plot = plotByIdHwPlots("total-power");
    RunSet runs{RunEntry{"wall", stepsAndPower(core::ClockDomain::LocalWallTime, false), {}}};
    auto r = run(plot, runs, {}, true);
    EXPECT_TRUE(r.table.rows.empty());
    const auto why = plot.emptyMessage(*r.prepared, r.values).value_or("");
    EXPECT_NE(why.find("cannot be aligned"), std::string::npos) << why;
    EXPECT_NE(why.find("clock-offset"), std::string::npos) << why;
}

// ---- CPU sampler plots ----

// Three cores, samples at 0, 1, 2, 3 s (hand-made, host-wide like the sampler's):
//   cpu0: 10, 60, 100, 20    cpu1: 50, 49.9, 0, 0    cpu2: 100, (none), 75, 50
core::DatasetPtr builtCpu() {
    constexpr int64_t s = 1'000'000'000;
    auto r = std::make_shared<core::RankData>();
    r->rank = 0;
    const double v[3][4] = {{10, 60, 100, 20}, {50, 49.9, 0, 0}, {100, NAN, 75, 50}};
    for (int c = 0; c < 3; ++c)
        for (int i = 0; i < 4; ++i)
            if (std::isfinite(v[c][i]))
                core::telemetry::appendSample(*r, 5 * s + i * s, -1, "cpu" + std::to_string(c) + ".util_pct", v[c][i]);
    core::telemetry::appendSample(*r, 5 * s, -1, "cpu.util_pct", 53.3);  // whole machine: not a core
    return testdata::makeDataset({r});
}

TEST(HwPlots, CpuActiveCoresHandComputed) {
    const Plot& plot = plotById("cpu-active-cores");
    auto r = run(plot, RunSet{RunEntry{"built", builtCpu(), {}}});
    // ≥ 50 %: t0 cpu1, cpu2 → 2; t1 cpu0 → 1 (two cores sampled); t2 cpu0, cpu2 → 2; t3 cpu2 → 1.
    // Core equivalents: 1.6, 1.099, 1.75, 0.7.
    ASSERT_EQ(r.table.rows.size(), 4u);
    const double busy[] = {2, 1, 2, 1}, eq[] = {1.6, 1.099, 1.75, 0.7}, cores[] = {3, 2, 3, 3};
    for (size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(num(r.table, i, 1), double(i) * 1e9);
        EXPECT_EQ(num(r.table, i, 2), cores[i]);
        EXPECT_EQ(num(r.table, i, 3), busy[i]);
        EXPECT_NEAR(num(r.table, i, 4), eq[i], 1e-12);
    }
    ParamValues high;
    high["threshold_pct"] = 75.0;  // t0: cpu2; t1: none; t2: cpu0, cpu2; t3: none
    auto h = run(plot, RunSet{RunEntry{"built", builtCpu(), {}}}, high);
    const double busy75[] = {1, 0, 2, 0};
    for (size_t i = 0; i < 4; ++i) EXPECT_EQ(num(h.table, i, 3), busy75[i]);
}

TEST(HwPlots, CpuPlotsOnTheRealSamplerMatchPython) {
    RunSet runs{runOf("sampler", {kSampler})};
    auto a = run(plotById("cpu-active-cores"), runs);
    // python: 100 samples, 2 cores, Σ busy 200, Σ core equivalents 200.0, last sample 19.79999 s after the first.
    ASSERT_EQ(a.table.rows.size(), 100u);
    double busy = 0, eq = 0;
    for (size_t i = 0; i < a.table.rows.size(); ++i) busy += num(a.table, i, 3), eq += num(a.table, i, 4);
    EXPECT_EQ(busy, 200);
    EXPECT_NEAR(eq, 200.0, 1e-9);
    EXPECT_EQ(num(a.table, 99, 1), 19799990605.0);
    auto h = run(plotById("cpu-core-heatmap"), runs);
    // python: 200 cells, Σ utilisation 20000.0; the first cell (cpu0) spans [0, 200000055] ns; the last ends at
    // 19999990660 ns.
    ASSERT_EQ(h.table.rows.size(), 200u);
    double sum = 0, lastEnd = 0;
    for (size_t i = 0; i < h.table.rows.size(); ++i) sum += num(h.table, i, 4), lastEnd = std::max(lastEnd, num(h.table, i, 3));
    EXPECT_NEAR(sum, 20000.0, 1e-9);
    EXPECT_EQ(num(h.table, 0, 1), 0);
    EXPECT_EQ(num(h.table, 0, 2), 0);
    EXPECT_EQ(num(h.table, 0, 3), 200000055.0);
    EXPECT_EQ(lastEnd, 19999990660.0);
}

TEST(HwPlots, CpuCoreHeatmapCellsAndHover) {
    const Plot& plot = plotById("cpu-core-heatmap");
    // Two runs: two panels. The built run's first interval is as long as its second (1 s): cells [0, 1], [1, 2]...
    RunSet runs{RunEntry{"built", builtCpu(), {}}, runOfHwPlots("sampler", {kSampler})};
    auto r = run(plot, runs);
    ASSERT_EQ(r.table.rows.size(), 11u + 200u);  // 12 values less cpu2's missing one
    EXPECT_EQ(txt(r.table, 0, 0), "built");
    EXPECT_EQ(num(r.table, 0, 2), 0);
    EXPECT_EQ(num(r.table, 0, 3), 1e9);
    EXPECT_EQ(num(r.table, 3, 2), 3e9);
    EXPECT_EQ(num(r.table, 3, 3), 4e9);
    EXPECT_DOUBLE_EQ(num(r.table, 3, 4), 20);
    // Hovering the top panel finds cells of every core, with the value of the interval under the cursor.
    std::set<std::string> cores;
    for (double y = 40; y < 250; y += 6)
        for (double x = 40; x < 900; x += 8)
            if (auto h = plot.hitTest(*r.prepared, r.values, QRectF(0, 0, 1000, 560), QPointF(x, y));
                h && fieldHwPlots(*h, "run") == "built") {
                cores.insert(h->title);
                if (h->title == "cpu1" && fieldHwPlots(*h, "interval").find("3") == 0) {
                    EXPECT_EQ(fieldHwPlots(*h, "utilisation"), "0.0%");
                }
            }
    EXPECT_EQ(cores, (std::set<std::string>{"cpu0", "cpu1", "cpu2"}));
}

// ---- overhead-breakdown ----

TEST(HwPlots, OverheadBreakdownOnResNetMatchesPython) {
    RunSet runs{loadedRun("w0", "kineto/kineto-configs/resnet50_num_workers_0"),
                loadedRun("w4", "kineto/kineto-configs/resnet50_num_workers_4")};
    auto r = run(plotByIdHwPlots("overhead-breakdown"), runs);
    // python (hw_plots.py): step, dur, kernel, launch gap, memcpy/memset, other idle (ns)
    const int64_t expected[12][6] = {
        {5, 176078000, 87356000, 17620000, 2026000, 69076000}, {6, 173992000, 97414000, 74542000, 2036000, 0},
        {7, 176918000, 95822000, 79075000, 2021000, 0},        {8, 181259000, 105246000, 73983000, 2030000, 0},
        {9, 176468000, 92859000, 81588000, 2021000, 0},        {10, 164261000, 96925000, 65450000, 1886000, 0},
        {5, 181565000, 99139000, 33730000, 3704000, 44992000}, {6, 123884000, 97379000, 23460000, 3045000, 0},
        {7, 126824000, 98754000, 24876000, 3047000, 147000},   {8, 126272000, 101654000, 21545000, 3073000, 0},
        {9, 163461000, 98791000, 59655000, 3693000, 1322000},  {10, 116146000, 91518000, 21648000, 2980000, 0}};
    ASSERT_EQ(r.table.rows.size(), 12u);
    for (size_t i = 0; i < 12; ++i) {
        EXPECT_EQ(txt(r.table, i, 0), i < 6 ? "w0" : "w4");
        for (size_t k = 0; k < 6; ++k) EXPECT_EQ(num(r.table, i, 2 + k), double(expected[i][k])) << i << " " << k;
    }
}

// One rank, two steps: #1 [0, 200000), #2 [200000, 300000) ns. Activities (start, end, launch call's start):
//   K1 kernel [100, 300) launched 50; K2 kernel [350, 500) launched 320 (after K1 ended: a 50 ns launch gap);
//   M1 memcpy [450, 600) launched 200 on another stream (overlaps K2: only [500, 600) is memcpy-only);
//   K3 kernel [650, 700) launched 100 (before M1 ended) after a 50 ns gap < 30 µs: launch gap (kernel wait);
//   K4 kernel [100700, 100800) launched 600: a 100000 ns gap, launched before it began: other idle;
//   K5 kernel [190000, 210000) launched 185000, after K4 ended: launch gap [100800, 190000) = 89200.
// Step 1: kernel 200 + 150 + 50 + 100 + 10000 (K5 up to 200000) = 10500; memcpy 100; launch 50 + 50 + 89200 =
// 89300; other 200000 − 10600 − 89300 = 100100 ([0, 100) before K1 and the 100000 gap).
// Step 2: kernel 10000 (K5 from 200000), other 90000.
core::DatasetPtr builtOverhead() {
    using testdata::K;
    auto r = testdata::makeRank(0,
                                {{100, 200, "k1"},
                                 {350, 150, "k2"},
                                 {450, 150, "Memcpy HtoD", 8, core::KernelCategory::Memcpy, core::EventKind::Memcpy},
                                 {650, 50, "k3"},
                                 {100700, 100, "k4"},
                                 {190000, 20000, "k5"}},
                                {{1, 0, 200000}, {2, 200000, 300000}});
    const int64_t launch[] = {50, 320, 200, 100, 600, 185000};
    for (size_t i = 0; i < 6; ++i) r->slices.ts.at(i) = launch[i];
    return testdata::makeDataset({r});
}

TEST(HwPlots, OverheadBreakdownHandComputed) {
    const Plot& plot = plotByIdHwPlots("overhead-breakdown");
    auto r = run(plot, RunSet{RunEntry{"built", builtOverhead(), {}}});
    ASSERT_EQ(r.table.rows.size(), 2u);
    const double expected[2][5] = {{200000, 10500, 89300, 100, 100100}, {100000, 10000, 0, 0, 90000}};
    for (size_t i = 0; i < 2; ++i)
        for (size_t k = 0; k < 5; ++k) EXPECT_EQ(num(r.table, i, 3 + k), expected[i][k]) << i << " " << k;
    // A threshold of 0 µs makes the 50 ns kernel wait (K2 → K3) other idle: launch 89250, other 100150.
    ParamValues zero;
    zero["kernel_wait_us"] = 0.0;
    auto z = run(plot, RunSet{RunEntry{"built", builtOverhead(), {}}}, zero);
    EXPECT_EQ(num(z.table, 0, 5), 89250);
    EXPECT_EQ(num(z.table, 0, 7), 100150);
}

// ---- empty states ----

TEST(HwPlots, EmptyStatesSayWhatIsMissing) {
    const std::pair<const char*, const char*> cases[] = {
        {"power-freq-summary", "no power_w or sclk_mhz samples"},
        {"total-power", "no power_w samples"},
        {"cpu-active-cores", "no per-core CPU samples"},
        {"cpu-core-heatmap", "no per-core CPU samples"},
        {"overhead-breakdown", "no ProfilerStep#N"},
    };
    // A run with neither telemetry nor steps: the sampler CSV for the GPU plots, a dmon file for the others.
    for (const auto& [id, text] : cases) {
        const Plot& plot = plotByIdHwPlots(id);
        const bool cpu = std::string(id).rfind("cpu", 0) == 0;
        RunSet runs{runOfHwPlots("lacking", {cpu ? "telemetry/nvidia-smi/h100_dmon_load.txt" : kSampler})};
        auto r = run(plot, runs, {}, true);
        const auto why = plot.emptyMessage(*r.prepared, r.values).value_or("");
        EXPECT_NE(why.find(text), std::string::npos) << id << ": " << why;
        RunSet none{RunEntry{"empty", std::make_shared<core::Dataset>(), {}}};
        auto values = resolveValues(plot.parameters(none), {});
        core::CancelToken cancel;
        cancel.cancel();
        auto c = plot.prepare(none, *values, cancel, {});
        ASSERT_FALSE(c.ok()) << id;
        EXPECT_TRUE(isCancelledError(c.error())) << id;
    }
    // Steps but no GPU activity.
    auto cpuOnly = loadedRun("cpu only", "kineto/hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz");
    const Plot& plot = plotByIdHwPlots("overhead-breakdown");
    auto r = run(plot, RunSet{cpuOnly}, {}, true);
    EXPECT_NE(plot.emptyMessage(*r.prepared, r.values).value_or("").find("no GPU activities"), std::string::npos);
}

}  // namespace
