// The critical-path and what-if plots (plots/builtin/critical_path.cpp) on the DLRM sample: the bars are the
// path's classes with HTA's own figures where the hta definition is asked for (tests/data/expected/critical_path/
// hta_dlrm_rank0.json, made by hta_critical_path.py from HTA f4d0062), the strobe definition's bars add up to the
// step's wall time (within what the trace cannot explain), and the what-if table puts the user's scaling first and ranks the 2x groups by time saved.
#include <string>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "core/engine/run_loader.h"
#include "plots/plot_registry.h"
#include "plots/render.h"
#include "tests/test_paths.h"

using namespace strobe;
using namespace strobe::plots;

namespace {

RunSet dlrm() {
    static core::DatasetPtr ds = [] {
        core::RunLoadOptions o;
        o.useCache = false;
        auto r = core::loadRun({std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank"}, o);
        EXPECT_TRUE(r.ok());
        return r.ok() ? r.value() : nullptr;
    }();
    return RunSet{RunEntry{"dlrm", ds, {}}};
}

struct Prepared_ {
    const Plot* plot = nullptr;
    PreparedPtr prepared;
    ParamValues values;
};

Prepared_ prepare(const std::string& id, const std::vector<std::string>& sets) {
    Prepared_ out;
    out.plot = PlotRegistry::instance().find(id);
    EXPECT_NE(out.plot, nullptr) << id;
    if (!out.plot) return out;
    const RunSet runs = dlrm();
    ParamValues given;
    for (const auto& s : sets) EXPECT_TRUE(core::applyAssignment(out.plot->parameters(runs), s, given).ok()) << s;
    auto values = core::resolveValues(out.plot->parameters(runs), given);
    EXPECT_TRUE(values.ok());
    out.values = *values;
    auto p = out.plot->prepare(runs, out.values, {}, {});
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().toString());
    if (p.ok()) out.prepared = *p;
    return out;
}

double cellDouble(const core::Cell& c) {
    if (const auto* i = std::get_if<int64_t>(&c)) return static_cast<double>(*i);
    if (const auto* d = std::get_if<double>(&c)) return *d;
    return -1;
}

}  // namespace

TEST(CriticalPathPlots, HtaDefinitionBarsAreHtasOwnShares) {
    auto p = prepare("critical-path", {"definition=hta", "rank=0", "step=10", "percent=true"});
    ASSERT_TRUE(p.prepared);
    auto chart = p.plot->chartData(*p.prepared, p.values);
    ASSERT_TRUE(chart.has_value());
    simdjson::dom::parser parser;
    simdjson::dom::element want;
    ASSERT_EQ(parser.load(std::string(STROBE_TEST_DATA_DIR) + "/expected/critical_path/hta_dlrm_rank0.json").get(want),
              simdjson::SUCCESS);
    simdjson::dom::object share;
    ASSERT_EQ(want["share"].get(share), simdjson::SUCCESS);
    const core::Table t = p.plot->table(*p.prepared, p.values);
    ASSERT_EQ(t.rows.size(), share.size()) << "one bar per HTA class on the path";
    for (const auto& row : t.rows) {
        const std::string cls = std::get<std::string>(row[0]);
        double expected = -1;
        ASSERT_EQ(share[cls].get(expected), simdjson::SUCCESS) << cls << " is not one of HTA's classes here";
        EXPECT_NEAR(cellDouble(row[2]), expected, 0.01) << cls << ": within 1 point of HTA's share";
    }
    const QImage image = renderToImage(*p.plot, *p.prepared, p.values, QSize(900, 500));
    EXPECT_GT(countNonBackgroundPixels(image), 2000);
}

TEST(CriticalPathPlots, StrobeDefinitionBarsAddUpToTheStepAcrossRanks) {
    auto p = prepare("critical-path", {"step=10"});
    ASSERT_TRUE(p.prepared);
    const core::Table t = p.plot->table(*p.prepared, p.values);
    ASSERT_FALSE(t.rows.empty());
    double sum = 0;
    for (const auto& row : t.rows) sum += cellDouble(row[1]);
    // ProfilerStep#10 across the 8 ranks lasts 20.823 ms of wall time, from the earliest rank's step start to the
    // latest end of an event inside a rank's step (Python's json module over the 8 files:
    //   for each file: s, t = ProfilerStep#10's ts, ts + dur; latest = max(ts + dur of X events with s <= ts <= t)
    //   max(latest) - min(s) = 20823 us). The strobe path is wall time up to what the trace cannot explain (the
    // time before the first event the path can start from): never longer, and within 2 % here.
    EXPECT_LE(sum, 20'823'000.0);
    EXPECT_GE(sum, 0.98 * 20'823'000.0);
    const std::string svg = renderToSvg(*p.plot, *p.prepared, p.values, QSize(1100, 600)).toStdString();
    EXPECT_NE(svg.find("the path lasts"), std::string::npos);
    EXPECT_NE(svg.find("idle"), std::string::npos);
}

TEST(CriticalPathPlots, WhatIfPutsTheScalingFirstThenRanksByTimeSaved) {
    auto p = prepare("what-if", {"step=10", "scale=category:communication=0.5; comm=0.9"});
    ASSERT_TRUE(p.prepared);
    EXPECT_TRUE(p.plot->isTable());
    const core::Table t = p.plot->table(*p.prepared, p.values);
    ASSERT_GE(t.rows.size(), 3u);
    EXPECT_EQ(std::get<std::string>(t.rows[0][0]), "base");
    EXPECT_EQ(std::get<std::string>(t.rows[1][0]), "scaled");
    // Columns kind, saved_ns, length_ns, factor, group: the figures before the (long) group.
    ASSERT_EQ(t.columns, (std::vector<std::string>{"kind", "saved_ns", "length_ns", "factor", "group"}));
    EXPECT_EQ(std::get<std::string>(t.rows[1][4]), "category:communication=0.5 comm=0.9") << "both items, together";
    const double base = cellDouble(t.rows[0][2]);
    double last = 1e300;
    for (size_t i = 2; i < t.rows.size(); ++i) {
        EXPECT_EQ(std::get<std::string>(t.rows[i][0]), "2x");
        const double length = cellDouble(t.rows[i][2]), saved = cellDouble(t.rows[i][1]);
        EXPECT_DOUBLE_EQ(base - length, saved) << "saved = base length - length with the group 2x faster";
        EXPECT_LE(saved, last) << "ranked by time saved";
        EXPECT_LE(length, base) << "a speed-up never lengthens the path";
        last = saved;
    }
    EXPECT_FALSE(p.plot->emptyMessage(*p.prepared, p.values).has_value());
}
