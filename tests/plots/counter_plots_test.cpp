// The counter plots (counter-cdf, counter-timeline, arch-chart, roofline) and mfu-per-step on real files. Expected
// values: tests/data/expected/counter_plots.py (output counter_plots.json), computed with Python's csv/json/yaml
// modules from the same files; rendering: pixels drawn, and a clear message when the data lacks counters or shapes.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "core/engine/run_loader.h"
#include "plots/analysis_plot.h"
#include "plots/plot_registry.h"
#include "plots/render.h"
#include "tests/test_paths.h"

using namespace strobe;
using namespace strobe::plots;

namespace {

const std::string kData = STROBE_TEST_DATA_DIR;

QJsonObject expected() {
    static const QJsonObject doc = [] {
        QFile f(QString::fromStdString(kData + "/expected/counter_plots.json"));
        EXPECT_TRUE(f.open(QIODevice::ReadOnly));
        return QJsonDocument::fromJson(f.readAll()).object();
    }();
    return doc;
}

RunEntry runOf(const std::string& label, const std::string& rel) {
    core::RunLoadOptions o;
    o.useCache = false;
    auto d = core::loadRun({kData + "/" + rel}, o);
    EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error().toString());
    return RunEntry{label, d.ok() ? d.value() : std::make_shared<core::Dataset>(), {}};
}

const std::string kSeismic = "rocprof/seismic_128x64.xr";
const std::string kVcopy = "rocprof-compute/vcopy_MI300X_A1_rocprofv2";
const std::string kMi300 = "kineto/tracelens/mi300x_resnet_act_checkpoint_rank0of8.json.gz";

struct Shown {
    core::Table table;
    std::optional<std::string> empty;
    QImage image;
    PreparedPtr prepared;
    ParamValues values;
};

Shown show(const std::string& id, const RunSet& runs, ParamValues set = {}) {
    const Plot* plot = PlotRegistry::instance().find(id);
    EXPECT_NE(plot, nullptr) << id;
    if (!plot) return {};
    auto values = resolveValues(plot->parameters(runs), set);
    EXPECT_TRUE(values.ok()) << (values.ok() ? "" : values.error().toString());
    auto prepared = plot->prepare(runs, *values, {}, {});
    EXPECT_TRUE(prepared.ok()) << (prepared.ok() ? "" : prepared.error().toString());
    Shown s;
    s.table = plot->table(**prepared, *values);
    s.empty = plot->emptyMessage(**prepared, *values);
    s.image = renderToImage(*plot, **prepared, *values, QSize(1100, 600));
    s.prepared = *prepared;
    s.values = *values;
    return s;
}

std::vector<double> column(const core::Table& t, const std::string& c) {
    std::vector<double> out;
    for (size_t r = 0; r < t.rows.size(); ++r) out.push_back(cellNumber(t, r, c, NAN));
    return out;
}

bool anyMessage(const core::Table& t, const std::string& text) {
    return std::any_of(t.messages.begin(), t.messages.end(),
                       [&](const std::string& m) { return m.find(text) != std::string::npos; });
}

}  // namespace

TEST(CounterPlots, MetricChoicesComeFromTheData) {
    const Plot* plot = PlotRegistry::instance().find("counter-cdf");
    ASSERT_NE(plot, nullptr);
    const RunSet runs{runOf("seismic", kSeismic)};
    const auto specs = plot->parameters(runs);
    const ParamSpec* metric = findSpec(specs, "metric");
    ASSERT_NE(metric, nullptr);
    const auto& c = metric->choices;
    EXPECT_EQ(c.front(), "auto");
    // FETCH_SIZE + WRITE_SIZE give hbm_bytes and hbm_bandwidth_gbs; no TCC counters, so no L2 hit rate.
    for (const char* want : {"hbm_bytes", "hbm_bandwidth_gbs", "FETCH_SIZE", "WRITE_SIZE"})
        EXPECT_NE(std::find(c.begin(), c.end(), want), c.end()) << want;
    EXPECT_EQ(std::find(c.begin(), c.end(), "l2_hit_pct"), c.end());
}

TEST(CounterPlots, CdfOfHbmBandwidthMatchesPython) {
    const QJsonObject want = expected()["seismic"].toObject();
    auto s = show("counter-cdf", {runOf("seismic", kSeismic)}, {{"metric", std::string("hbm_bandwidth_gbs")}});
    ASSERT_FALSE(s.empty) << *s.empty;
    const auto v = column(s.table, "hbm_bandwidth_gbs");
    const QJsonObject bw = want["hbm_bandwidth_gbs"].toObject();
    ASSERT_EQ(v.size(), size_t(bw["n"].toInt()));
    EXPECT_NEAR(v.front(), bw["min"].toDouble(), 1e-9 * bw["min"].toDouble());
    EXPECT_NEAR(v.back(), bw["max"].toDouble(), 1e-9 * bw["max"].toDouble());
    EXPECT_DOUBLE_EQ(cellNumber(s.table, s.table.rows.size() - 1, "cdf_pct"), 100.0);
    EXPECT_TRUE(std::is_sorted(v.begin(), v.end()));
    // The median is in the curve's legend label and the hover of the 50 % dot.
    const Plot* plot = PlotRegistry::instance().find("counter-cdf");
    auto chart = plot->chartData(*s.prepared, s.values);
    ASSERT_TRUE(chart);
    ASSERT_EQ(chart->series.size(), 1u);
    EXPECT_NE(chart->series[0].name.find("median " + formatNumber(bw["median"].toDouble())), std::string::npos)
        << chart->series[0].name;
    EXPECT_GT(countNonBackgroundPixels(s.image), 5000);
}

TEST(CounterPlots, CdfOfARawCounterAndOneCurvePerRun) {
    const QJsonObject want = expected()["seismic"].toObject()["FETCH_SIZE"].toObject();
    auto s = show("counter-cdf", {runOf("a", kSeismic), runOf("b", kSeismic)}, {{"metric", std::string("FETCH_SIZE")}});
    const auto v = column(s.table, "FETCH_SIZE");
    ASSERT_EQ(v.size(), 2 * size_t(want["n"].toInt()));
    const Plot* plot = PlotRegistry::instance().find("counter-cdf");
    auto chart = plot->chartData(*s.prepared, s.values);
    ASSERT_TRUE(chart);
    EXPECT_EQ(chart->series.size(), 2u);
    // Somewhere on the picture the hover names the median (the dot on the 50 % level), with the Python value.
    const QRectF rect(0, 0, 800, 450);
    EXPECT_FALSE(plot->hitTest(*s.prepared, s.values, rect, QPointF(-100, -100)));
    std::optional<HitInfo> median;
    for (int y = 0; y < 450 && !median; y += 6)
        for (int x = 0; x < 800 && !median; x += 6) {
            auto h = plot->hitTest(*s.prepared, s.values, rect, QPointF(x, y));
            if (h && !h->fields.empty() && h->fields[0].first == "median FETCH_SIZE") median = h;
        }
    ASSERT_TRUE(median);
    EXPECT_EQ(median->fields[0].second, formatNumber(want["median"].toDouble()));
}

TEST(CounterPlots, TimelineOnePointPerDispatchAtItsStart) {
    const QJsonObject want = expected()["seismic"].toObject();
    auto s = show("counter-timeline", {runOf("seismic", kSeismic)}, {{"metric", std::string("hbm_bandwidth_gbs")}});
    ASSERT_FALSE(s.empty) << *s.empty;
    ASSERT_EQ(s.table.rows.size(), size_t(want["hbm_bandwidth_gbs"].toObject()["n"].toInt()));
    // One GPU lane (gpu-id 8 in the file) and the first three dispatches in time order.
    for (size_t r = 1; r < s.table.rows.size(); ++r)
        EXPECT_EQ(cellNumber(s.table, r, "device"), cellNumber(s.table, 0, "device"));
    const QJsonArray first = want["first3"].toArray();
    for (qsizetype i = 0; i < first.size(); ++i) {
        const QJsonArray f = first[i].toArray();
        EXPECT_EQ(cellNumber(s.table, size_t(i), "elapsed_ns"), f[0].toDouble());
        EXPECT_NEAR(cellNumber(s.table, size_t(i), "hbm_bandwidth_gbs"), f[1].toDouble(), 1e-9 * f[1].toDouble());
        EXPECT_EQ(cellText(s.table, size_t(i), "kernel"), f[2].toString().toStdString());
    }
    EXPECT_GT(countNonBackgroundPixels(s.image), 5000);
    // The kernel filter keeps only matching dispatches.
    auto filtered = show("counter-timeline", {runOf("seismic", kSeismic)},
                         {{"metric", std::string("hbm_bandwidth_gbs")}, {"filter", std::string("^initialize_")}});
    ASSERT_GE(filtered.table.rows.size(), 1u);
    for (size_t r = 0; r < filtered.table.rows.size(); ++r)
        EXPECT_EQ(cellText(filtered.table, r, "kernel").rfind("initialize_", 0), 0u);
}

TEST(CounterPlots, ArchChartOnRocprofComputeMatchesPythonAndNamesWhatIsMissing) {
    const QJsonObject want = expected()["vcopy"].toObject();
    auto s = show("arch-chart", {runOf("vcopy", kVcopy)});
    ASSERT_EQ(s.table.rows.size(), size_t(want.size()));
    const std::string name = cellText(s.table, 0, "kernel");
    const QJsonObject k = want[QString::fromStdString(name)].toObject();
    ASSERT_FALSE(k.isEmpty()) << name;
    EXPECT_EQ(cellNumber(s.table, 0, "dispatches"), k["dispatches"].toDouble());
    for (const char* c : {"mfma_pct", "valu_pct", "lds_pct", "l2_hit_pct"})
        EXPECT_NEAR(cellNumber(s.table, 0, c, NAN), k[c].toDouble(), 1e-9 * std::max(1.0, k[c].toDouble())) << c;
    // The workload's zero durations leave no bandwidth: HBM is left out and named.
    EXPECT_LT(s.table.columnIndex(std::string("hbm_bw_pct")), 0);
    EXPECT_TRUE(anyMessage(s.table, "HBM bandwidth (hbm_bandwidth_pct)")) << s.table.messages.size();
    EXPECT_GT(countNonBackgroundPixels(s.image), 5000);
}

TEST(CounterPlots, ArchChartUsesNcuOwnPercentWhereThereAreNoRawCounters) {
    // The ncu details page has "GPU Speed Of Light Throughput","DRAM Throughput","%","0.74" (read from the file) and
    // none of the raw metrics the derived formulas need.
    auto s = show("arch-chart", {runOf("ncu", "ncu/cublaslt_ncu.log")});
    ASSERT_EQ(s.table.rows.size(), 1u);
    EXPECT_DOUBLE_EQ(cellNumber(s.table, 0, "hbm_bw_pct", NAN), 0.74);
    EXPECT_TRUE(anyMessage(s.table, "hbm_bw_pct: DRAM Throughput [%]"));
    EXPECT_TRUE(anyMessage(s.table, "MFMA / tensor core (mfma_busy_pct)"));
}

TEST(CounterPlots, RooflineFromGemmShapesMatchesPython) {
    const QJsonObject want = expected()["mi300x"].toObject();
    const QJsonObject pts = want["roofline"].toObject();
    auto s = show("roofline", {runOf("mi300x", kMi300)});
    ASSERT_FALSE(s.empty) << *s.empty;
    ASSERT_EQ(s.table.rows.size(), size_t(pts.size()));
    for (size_t r = 0; r < s.table.rows.size(); ++r) {
        const QJsonObject p = pts[QString::fromStdString(cellText(s.table, r, "kernel"))].toObject();
        ASSERT_FALSE(p.isEmpty()) << cellText(s.table, r, "kernel");
        EXPECT_EQ(cellText(s.table, r, "source"), "shapes");
        EXPECT_EQ(cellNumber(s.table, r, "dispatches"), p["dispatches"].toDouble());
        EXPECT_EQ(cellNumber(s.table, r, "total_ns"), p["total_ns"].toDouble());
        EXPECT_NEAR(cellNumber(s.table, r, "flops"), p["flops"].toDouble(), 1e-6 * p["flops"].toDouble());
        EXPECT_NEAR(cellNumber(s.table, r, "bytes"), p["bytes"].toDouble(), 1e-6 * p["bytes"].toDouble());
        // flop_per_byte = 30.72e6 / 3.16272e6 = 9.71; below the MI300X bf16 ridge (1307.4e3 / 5324.8 = 245.5).
        EXPECT_NEAR(cellNumber(s.table, r, "flop_per_byte"), p["flops"].toDouble() / p["bytes"].toDouble(), 1e-9);
        EXPECT_EQ(cellText(s.table, r, "bound"), "memory");
    }
    // Every other kernel of the trace (convolutions, batch norm...) is listed as lacking FLOPs.
    EXPECT_TRUE(anyMessage(s.table, "kernels without FLOPs and bytes"));
    EXPECT_GT(countNonBackgroundPixels(s.image), 5000);
}

TEST(CounterPlots, RooflineSaysWhenCountersShowNoFloatingPointWork) {
    // vcopy has flops and hbm_bytes counters, but a copy kernel does no floating-point work (0 FLOPs; its
    // SQ_INSTS_VALU_{ADD,MUL,FMA,TRANS}_F* and MFMA counters are all 0 in pmc_perf.csv).
    auto s = show("roofline", {runOf("vcopy", kVcopy)});
    ASSERT_TRUE(s.empty);
    EXPECT_NE(s.empty->find("0 FLOPs or 0 bytes): vecCopy"), std::string::npos) << *s.empty;
    EXPECT_GT(countNonBackgroundPixels(s.image), 500);
}

TEST(CounterPlots, MfuPerStepMatchesPython) {
    const QJsonObject want = expected()["mi300x"].toObject()["mfu_pct"].toObject();
    auto s = show("mfu-per-step", {runOf("mi300x", kMi300)});
    ASSERT_FALSE(s.empty) << *s.empty;
    ASSERT_EQ(s.table.rows.size(), size_t(want.size()));
    for (size_t r = 0; r < s.table.rows.size(); ++r) {
        const double w = want[QString::number(cellNumber(s.table, r, "step"))].toDouble();
        EXPECT_NEAR(cellNumber(s.table, r, "mfu_pct", NAN), w, 1e-6 * w);
        EXPECT_EQ(cellText(s.table, r, "dtype"), "bf16");
        EXPECT_EQ(cellText(s.table, r, "gpu"), "MI300X");
        EXPECT_DOUBLE_EQ(cellNumber(s.table, r, "peak_tflops"), expected()["mi300x"].toObject()["peak_bf16_tflops"].toDouble());
    }
    EXPECT_GT(countNonBackgroundPixels(s.image), 5000);
    // An explicit peak replaces the table's: MFU scales by 1307.4 / 100.
    auto o = show("mfu-per-step", {runOf("mi300x", kMi300)}, {{"peak_tflops", 100.0}});
    ASSERT_EQ(o.table.rows.size(), s.table.rows.size());
    EXPECT_NEAR(cellNumber(o.table, 0, "mfu_pct"), cellNumber(s.table, 0, "mfu_pct") * 13.074, 1e-9);
}

TEST(CounterPlots, ClearMessagesWhenTheDataLacksCountersOrShapes) {
    // A Kineto trace has no hardware counters; rocprof counters have no ProfilerSteps or shapes.
    const RunSet kineto{runOf("mi300x", kMi300)};
    for (const char* id : {"counter-cdf", "counter-timeline", "arch-chart"}) {
        auto s = show(id, kineto);
        ASSERT_TRUE(s.empty) << id;
        EXPECT_NE(s.empty->find("no hardware counters"), std::string::npos) << id << ": " << *s.empty;
        EXPECT_GT(countNonBackgroundPixels(s.image), 500) << id;
    }
    auto mfu = show("mfu-per-step", {runOf("seismic", kSeismic)});
    ASSERT_TRUE(mfu.empty);
    EXPECT_NE(mfu.empty->find("no ProfilerStep"), std::string::npos) << *mfu.empty;
    auto roof = show("roofline", {runOf("seismic", kSeismic)});
    ASSERT_TRUE(roof.empty);
    EXPECT_NE(roof.empty->find("without FLOPs and bytes"), std::string::npos) << *roof.empty;
}

// A legacy torch trace (no shapes) with strobe_torch's op-shapes table beside it (tests/data/torch-op-shapes/mlp_cpu,
// see tests/core/gemm_flops_test.cpp for the expected 35,520,512 FLOPs per step): every step gets the table's
// average, and the plot says where the FLOPs come from instead of "GEMM ops without usable shapes".
TEST(CounterPlots, MfuPerStepOfALegacyTraceUsesItsOpShapesTable) {
    auto s = show("mfu-per-step", {runOf("mlp", "torch-op-shapes/mlp_cpu")}, {{"value", std::string("tflops")}});
    ASSERT_EQ(s.table.rows.size(), 3u) << (s.empty ? *s.empty : "");
    for (size_t r = 0; r < 3; ++r) {
        EXPECT_DOUBLE_EQ(cellNumber(s.table, r, "gemm_flops"), 35520512.0);
        EXPECT_DOUBLE_EQ(cellNumber(s.table, r, "gemm_ops"), 5.0);
    }
    EXPECT_TRUE(anyMessage(s.table, "rank0_op_shapes.csv (the trace records no input shapes)"));
    EXPECT_TRUE(anyMessage(s.table, "over the 3 profiled steps, divided evenly"));
    EXPECT_FALSE(anyMessage(s.table, "without usable shapes"));
}
