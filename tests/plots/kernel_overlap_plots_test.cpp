// overlap-per-config, overlap-vs-kernel-time and overlap-per-gpu on a sweep made of the real 8-rank DLRM sample:
// nccl=1 twice (two repeats) and nccl=2 once, all the same data. Expected values from
// tests/data/expected/kernel_overlap.py (brute force, Python's json only): rank 0's HTA overlap 4.501552259399793 %;
// volta_sgemm_128x32_nt over the 8 ranks: 56 instances, 9 overlapping communication, 61000 of 409000 ns overlapped.
#include <QImage>
#include <QPainter>

#include <gtest/gtest.h>

#include "core/engine/run_loader.h"
#include "plots/plot_registry.h"
#include "tests/test_paths.h"

using namespace strobe;
using namespace strobe::plots;

namespace {

RunSet dlrmSweep() {
    core::RunLoadOptions o;
    o.useCache = false;
    auto d = core::loadRun({std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank"}, o);
    EXPECT_TRUE(d.ok());
    const core::DatasetPtr ds = d.ok() ? d.value() : nullptr;
    return {RunEntry{"nccl=1/rep0", ds, {{"nccl", "1"}}}, RunEntry{"nccl=1/rep1", ds, {{"nccl", "1"}}},
            RunEntry{"nccl=2", ds, {{"nccl", "2"}}}};
}

struct KernelOverlapPlotsPrepared {
    const Plot* plot = nullptr;
    ParamValues values;
    PreparedPtr prepared;
    core::Table table;
};

KernelOverlapPlotsPrepared run(const std::string& id, const RunSet& runs, const ParamValues& given) {
    KernelOverlapPlotsPrepared p;
    p.plot = PlotRegistry::instance().find(id);
    EXPECT_NE(p.plot, nullptr) << id;
    if (!p.plot) return p;
    auto values = core::resolveValues(p.plot->parameters(runs), given);
    EXPECT_TRUE(values.ok()) << id;
    if (!values.ok()) return p;
    p.values = *values;
    auto prepared = prepareNow(*p.plot, runs, p.values);
    EXPECT_TRUE(prepared.ok()) << id << ": " << (prepared.ok() ? "" : prepared.error().toString());
    if (!prepared.ok()) return p;
    p.prepared = *prepared;
    p.table = p.plot->table(*p.prepared, p.values);
    EXPECT_FALSE(p.plot->emptyMessage(*p.prepared, p.values).has_value()) << id;
    QImage img(900, 500, QImage::Format_ARGB32);
    img.fill(Qt::white);
    QPainter painter(&img);
    Canvas c{painter, QRectF(0, 0, 900, 500)};
    p.plot->draw(c, *p.prepared, p.values);  // must not crash
    return p;
}

std::optional<HitInfo> anyHit(const KernelOverlapPlotsPrepared& p) {
    const QRectF rect(0, 0, 900, 500);
    for (double y = 20; y < 480; y += 10)
        for (double x = 20; x < 880; x += 6)
            if (auto h = p.plot->hitTest(*p.prepared, p.values, rect, QPointF(x, y))) return h;
    return std::nullopt;
}

std::string fieldKernelOverlapPlots(const HitInfo& h, const std::string& key) {
    for (const auto& [k, v] : h.fields)
        if (k == key) return v;
    return {};
}

int columnKernelOverlapPlots(const core::Table& t, const std::string& name) {
    const int c = t.columnIndex(name);
    EXPECT_GE(c, 0) << name;
    return c;
}

TEST(OverlapPlots, PerGpuOneBarPerConfigurationAndRank) {
    const auto runs = dlrmSweep();
    const KernelOverlapPlotsPrepared p = run("overlap-per-gpu", runs, {});
    ASSERT_EQ(p.table.rows.size(), 16u);  // 8 ranks x 2 configurations
    const auto& r0 = p.table.rows[0];
    EXPECT_EQ(std::get<int64_t>(r0[size_t(columnKernelOverlapPlots(p.table, "rank"))]), 0);
    EXPECT_EQ(std::get<std::string>(r0[size_t(columnKernelOverlapPlots(p.table, "configuration"))]), "nccl=1");
    EXPECT_EQ(std::get<int64_t>(r0[size_t(columnKernelOverlapPlots(p.table, "runs"))]), 2);  // the two repeats pooled
    EXPECT_NEAR(std::get<double>(r0[size_t(columnKernelOverlapPlots(p.table, "overlap_pct"))]), 4.501552259399793,
                1e-9);
    const auto hit = anyHit(p);
    ASSERT_TRUE(hit.has_value());
    EXPECT_FALSE(fieldKernelOverlapPlots(*hit, "rank").empty());

    // Colour (none): all runs in one bar per rank.
    const KernelOverlapPlotsPrepared pooled = run("overlap-per-gpu", runs, {{"color", std::string("(none)")}});
    ASSERT_EQ(pooled.table.rows.size(), 8u);
    EXPECT_EQ(std::get<int64_t>(pooled.table.rows[0][size_t(columnKernelOverlapPlots(pooled.table, "runs"))]), 3);
}

TEST(OverlapPlots, PerConfigShareOfTheTopGemmGroups) {
    const auto runs = dlrmSweep();
    const KernelOverlapPlotsPrepared p =
        run("overlap-per-config", runs,
            {{"kernels", std::string("gemm")}, {"top", int64_t(2)}, {"color", std::string("nccl")}});
    ASSERT_EQ(p.table.rows.size(), 4u);  // 2 groups x 2 values of nccl
    const auto& first = p.table.rows[0];
    EXPECT_EQ(std::get<std::string>(first[size_t(columnKernelOverlapPlots(p.table, "group"))]),
              "volta_sgemm_128x32_nt");
    EXPECT_EQ(std::get<std::string>(first[size_t(columnKernelOverlapPlots(p.table, "configuration"))]), "1");
    EXPECT_EQ(std::get<int64_t>(first[size_t(columnKernelOverlapPlots(p.table, "instances"))]),
              112);  // 56 per run, two repeats
    EXPECT_EQ(std::get<int64_t>(first[size_t(columnKernelOverlapPlots(p.table, "overlapped_instances"))]), 18);
    EXPECT_NEAR(std::get<double>(first[size_t(columnKernelOverlapPlots(p.table, "overlapped_pct"))]),
                100.0 * 61000 / 409000, 1e-9);
    ASSERT_TRUE(p.plot->chartData(*p.prepared, p.values).has_value());
    const auto hit = anyHit(p);
    ASSERT_TRUE(hit.has_value());
    EXPECT_FALSE(fieldKernelOverlapPlots(*hit, "group").empty());
}

TEST(OverlapPlots, ScatterHasEveryInstanceInItsTable) {
    const auto runs = dlrmSweep();
    const KernelOverlapPlotsPrepared p = run("overlap-vs-kernel-time", runs, {{"max_points", int64_t(100)}});
    ASSERT_EQ(p.table.rows.size(), 168u);  // 56 instances of the top GEMM group in each of the 3 runs
    size_t overlapped = 0;
    for (const auto& row : p.table.rows) {
        EXPECT_EQ(std::get<std::string>(row[size_t(columnKernelOverlapPlots(p.table, "group"))]),
                  "volta_sgemm_128x32_nt");
        overlapped += std::get<int64_t>(row[size_t(columnKernelOverlapPlots(p.table, "overlapped_ns"))]) > 0;
    }
    EXPECT_EQ(overlapped, 27u);  // 9 per run
    const auto hit = anyHit(p);
    ASSERT_TRUE(hit.has_value());
    EXPECT_FALSE(fieldKernelOverlapPlots(*hit, "duration").empty());
    EXPECT_FALSE(fieldKernelOverlapPlots(*hit, "collectives").empty());

    // A named group of any computation kernel; an unknown one says so.
    const KernelOverlapPlotsPrepared named =
        run("overlap-vs-kernel-time", runs, {{"group", std::string("volta_sgemm_64x32_sliced1x4_nn")}});
    EXPECT_EQ(named.table.rows.size(), 3u * 16u);
    auto values = core::resolveValues(named.plot->parameters(runs), {{"group", std::string("nope")}});
    ASSERT_TRUE(values.ok());
    auto none = prepareNow(*named.plot, runs, *values);
    ASSERT_TRUE(none.ok());
    ASSERT_TRUE(named.plot->emptyMessage(**none, *values).has_value());
    EXPECT_NE(named.plot->emptyMessage(**none, *values)->find("nope"), std::string::npos);
}

}  // namespace
