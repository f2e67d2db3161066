// The Chart dock: a plot's prepared numbers as a Qt Charts chart. On the bundled 8-rank sample, the bar, line
// and box plots become charts whose values are the plot's own (the CSV table's), a legend click hides and shows
// a series, and plots without a chart form (the timeline) or with nothing to draw say so.
#include "app/gui/chart_panel.h"

#include <QBarSet>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QStackedBarSeries>
#include <QValueAxis>

#include <gtest/gtest.h>

#include "core/engine/run_loader.h"
#include "plots/plot_registry.h"
#include "test_support.h"
#include "tests/test_paths.h"

using namespace strobe;

namespace {

plots::RunSet loadSample() {
    core::RunLoadOptions o;
    o.useCache = false;
    auto r = core::loadRun({std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank"}, o);
    EXPECT_TRUE(r.ok());
    return plots::RunSet{plots::RunEntry{"param-dlrm-8rank", r.ok() ? r.value() : nullptr, {}}};
}

struct Shown {
    plots::PreparedPtr prepared;
    plots::ParamValues values;
};

Shown show(app::ChartPanel& panel, const char* id, const plots::RunSet& runs, const plots::ParamValues& given = {}) {
    const plots::Plot* plot = plots::PlotRegistry::instance().find(id);
    EXPECT_NE(plot, nullptr) << id;
    if (!plot) return {};
    auto values = core::resolveValues(plot->parameters(runs), given);
    EXPECT_TRUE(values.ok()) << id;
    auto prepared = plots::prepareNow(*plot, runs, *values);
    EXPECT_TRUE(prepared.ok()) << id;
    if (!prepared.ok()) return {};
    panel.showPlot(*plot, **prepared, *values);
    return {*prepared, *values};
}

class ChartPanelTest : public ::testing::Test {
protected:
    void SetUp() override {
        panel.resize(900, 600);
        ASSERT_TRUE(runs[0].dataset);
    }
    QApplication& application = test::app();  // first: the panel is a widget
    plots::RunSet runs = loadSample();
    app::ChartPanel panel;
};

}  // namespace

TEST_F(ChartPanelTest, KernelBreakdownBarsCarryThePlotsValues) {
    auto shown = show(panel, "kernel-breakdown", runs);
    QChart* chart = panel.chart();
    ASSERT_NE(chart, nullptr) << panel.message().toStdString();
    ASSERT_EQ(chart->series().size(), 1);
    auto* bars = qobject_cast<QAbstractBarSeries*>(chart->series().front());
    ASSERT_NE(bars, nullptr);

    // The plot's table: one row per bar (rank) and category, with its time. The chart shows the same numbers,
    // in the axis' unit (the axis title names it).
    const plots::Plot* plot = plots::PlotRegistry::instance().find("kernel-breakdown");
    auto data = plot->chartData(*shown.prepared, shown.values);
    ASSERT_TRUE(data.has_value());
    ASSERT_EQ(bars->barSets().size(), int(data->series.size()));
    ASSERT_EQ(bars->count(), int(data->series.size()));
    auto* axis = qobject_cast<QValueAxis*>(chart->axes(Qt::Vertical).value(0));
    if (!axis) axis = qobject_cast<QValueAxis*>(chart->axes(Qt::Horizontal).value(0));
    ASSERT_NE(axis, nullptr);
    const QString unitTitle = axis->titleText();
    double divisor = unitTitle.endsWith(QStringLiteral("(ms)"))   ? 1e6
                     : unitTitle.endsWith(QStringLiteral("(µs)")) ? 1e3
                     : unitTitle.endsWith(QStringLiteral("(s)"))  ? 1e9
                                                                  : 1;
    double chartTotal = 0, dataTotal = 0;
    for (int s = 0; s < bars->barSets().size(); ++s) {
        QBarSet* set = bars->barSets()[s];
        EXPECT_EQ(set->label().toStdString(), data->series[size_t(s)].name);
        ASSERT_EQ(set->count(), int(data->categories.size()));
        for (int i = 0; i < set->count(); ++i) {
            EXPECT_NEAR(set->at(i) * divisor, data->series[size_t(s)].values[size_t(i)], 1e-6);
            chartTotal += set->at(i) * divisor;
        }
        for (double v : data->series[size_t(s)].values) dataTotal += v;
    }
    EXPECT_GT(chartTotal, 0);
    // The sum over every bar equals the GPU time in the plot's CSV table (time_ns column), independent of the
    // chart code: the table is what `strobe-cli plot kernel-breakdown --csv` writes.
    core::Table t = plot->table(*shown.prepared, shown.values);
    const int timeCol = t.columnIndex("time_ns");
    ASSERT_GE(timeCol, 0);
    double tableTotal = 0;
    for (const auto& row : t.rows) tableTotal += core::Table::number(row[size_t(timeCol)]);
    EXPECT_NEAR(chartTotal, tableTotal, tableTotal * 1e-9);
    EXPECT_NEAR(dataTotal, tableTotal, tableTotal * 1e-9);

    // A legend click hides the series (transparent bars) and a second click shows it again.
    ASSERT_GE(chart->legend()->markers().size(), 1);
    EXPECT_TRUE(panel.isSeriesShown(0));
    const QColor before = bars->barSets()[0]->color();
    EXPECT_TRUE(panel.toggleSeries(0));
    EXPECT_FALSE(panel.isSeriesShown(0));
    EXPECT_EQ(bars->barSets()[0]->color().alpha(), 0);
    EXPECT_TRUE(panel.toggleSeries(0));
    EXPECT_TRUE(panel.isSeriesShown(0));
    EXPECT_EQ(bars->barSets()[0]->color(), before);
    EXPECT_FALSE(panel.toggleSeries(1000));
}

TEST_F(ChartPanelTest, LaunchOverheadIsOneLinePerRankAndBoxesForKernelDurations) {

    show(panel, "launch-overhead-cdf", runs);
    QChart* chart = panel.chart();
    ASSERT_NE(chart, nullptr) << panel.message().toStdString();
    EXPECT_EQ(chart->series().size(), 8);  // one curve per rank of the 8-rank run
    for (auto* s : chart->series()) {
        auto* line = qobject_cast<QLineSeries*>(s);
        ASSERT_NE(line, nullptr);
        ASSERT_GT(line->count(), 2);
        // A CDF: quantiles rise from at most 5 % to 100 %.
        EXPECT_LE(line->at(0).y(), 5.0 + 1e-9);
        EXPECT_DOUBLE_EQ(line->at(line->count() - 1).y(), 100.0);
    }
    EXPECT_TRUE(panel.toggleSeries(2));
    EXPECT_FALSE(chart->series()[2]->isVisible());
    EXPECT_TRUE(chart->legend()->markers()[2]->isVisible()) << "the marker stays, to show the curve again";
    EXPECT_TRUE(panel.toggleSeries(2));
    EXPECT_TRUE(chart->series()[2]->isVisible());

    auto shown = show(panel, "kernel-durations", runs);
    chart = panel.chart();
    ASSERT_NE(chart, nullptr) << panel.message().toStdString();
    ASSERT_EQ(chart->series().size(), 1);
    auto* boxes = qobject_cast<QBoxPlotSeries*>(chart->series().front());
    ASSERT_NE(boxes, nullptr);
    auto data = plots::PlotRegistry::instance().find("kernel-durations")->chartData(*shown.prepared, shown.values);
    ASSERT_TRUE(data.has_value());
    ASSERT_EQ(boxes->count(), int(data->boxes.size()));
    for (int i = 0; i < boxes->count(); ++i) {
        QBoxSet* b = boxes->boxSets()[i];
        // Ordered whiskers and box: p5 ≤ p25 ≤ median ≤ p75 ≤ p95.
        EXPECT_LE(b->at(QBoxSet::LowerExtreme), b->at(QBoxSet::LowerQuartile));
        EXPECT_LE(b->at(QBoxSet::LowerQuartile), b->at(QBoxSet::Median));
        EXPECT_LE(b->at(QBoxSet::Median), b->at(QBoxSet::UpperQuartile));
        EXPECT_LE(b->at(QBoxSet::UpperQuartile), b->at(QBoxSet::UpperExtreme));
    }
}

TEST_F(ChartPanelTest, TimelineAndEmptyPlotsShowAMessage) {
    show(panel, "gpu-timeline", runs);
    EXPECT_EQ(panel.chart(), nullptr);
    EXPECT_TRUE(panel.message().contains(QStringLiteral("plot pane only"))) << panel.message().toStdString();

    show(panel, "kernel-durations", runs, {{"name_regex", std::string("^no_such_kernel$")}});
    EXPECT_EQ(panel.chart(), nullptr);
    EXPECT_TRUE(panel.message().contains(QStringLiteral("nothing to draw"))) << panel.message().toStdString();
}
