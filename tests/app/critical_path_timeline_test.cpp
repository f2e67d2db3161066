// The critical path on the timeline (issue 26) on the bundled DLRM sample (4 ranks, ProfilerStep#10): every segment
// of the analysis' path that names an event is placed on its lane, the edges where the path changes rank are as many
// as the analysis' path has rank changes, the path is drawn (orange) inside the plot area only, and a double-click on
// a bar of the critical-path plot asks for that class, whose segments alone are then shown.
#include <QImage>
#include <QScrollBar>
#include <QTest>

#include <gtest/gtest.h>

#include "app/gui/plot_view.h"
#include "app/gui/run_manager.h"
#include "core/analysis/context.h"
#include "core/analysis/critical_path.h"
#include "core/engine/job_runner.h"
#include "core/engine/run_loader.h"
#include "plots/path_marks.h"
#include "plots/plot_engine.h"
#include "plots/plot_registry.h"
#include "test_support.h"
#include "tests/test_paths.h"

using namespace strobe;

namespace {

bool isPathColor(const QColor& c) {
    return std::abs(c.red() - 255) < 20 && std::abs(c.green() - 120) < 30 && c.blue() < 40;
}

class CriticalPathTimelineGui : public ::testing::Test {
protected:
    void SetUp() override {
        test::app();
        core::RunLoadOptions o;
        o.useCache = false;
        auto d = core::loadRun({std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank"}, o);
        ASSERT_TRUE(d.ok());
        dataset = d.value();
        runId = runs.addDataset(QStringLiteral("dlrm"), dataset);
        core::CpRequest req;
        req.step = 10;
        auto ctx = core::AnalysisContext::of(dataset);
        auto r = core::criticalPath(*ctx, req);
        ASSERT_TRUE(r.ok()) << r.error().message;
        result = std::move(r.value());
    }
    void TearDown() override {
        views.clear();
        runner.waitIdle();
    }
    app::PlotView& open(const std::string& id, const core::ParamValues& values = {}) {
        const plots::Plot* plot = plots::PlotRegistry::instance().find(id);
        views.push_back(std::make_unique<app::PlotView>(*plot, engine, runs, std::vector<int>{runId}, values));
        app::PlotView& v = *views.back();
        v.resize(1400, 800);
        v.show();
        EXPECT_TRUE(test::waitFor([&] { return v.prepared() != nullptr && !v.isUpdating(); }));
        return v;
    }
    // Segments that run through an event (of one class when given) and the rank changes between consecutive named segments.
    std::pair<size_t, size_t> analysisCounts(const std::string& boundBy = {}) const {
        size_t named = 0, crossRank = 0;
        int lastRank = -1;
        for (const auto& s : result.path) {
            if (s.name.empty() || core::cpIsGap(s.kind) || (!boundBy.empty() && s.boundBy != boundBy)) continue;
            ++named;
            if (lastRank >= 0 && s.rank != lastRank) ++crossRank;
            lastRank = s.rank;
        }
        return {named, crossRank};
    }
    core::JobRunner runner{2};
    plots::PlotEngine engine{runner};
    app::RunManager runs;
    core::DatasetPtr dataset;
    int runId = -1;
    core::CriticalPathResult result;
    std::vector<std::unique_ptr<app::PlotView>> views;
};

TEST_F(CriticalPathTimelineGui, TheStepsPathIsPlacedWithItsCrossRankEdges) {
    app::PlotView& view = open("gpu-timeline");
    const auto [named, crossRank] = analysisCounts();
    ASSERT_GT(named, 10u);
    ASSERT_GE(crossRank, 1u);  // DLRM step 10 crosses ranks at its collectives (critical_path_test)
    const QImage before = view.grab().toImage();
    view.showCriticalPath(app::shownCriticalPath(result, 0, {}));
    ASSERT_TRUE(view.hasCriticalPath());
    const plots::PathMarks& marks = view.criticalPathMarks();
    EXPECT_EQ(marks.events, named);
    EXPECT_EQ(marks.unplaced, 0u);
    EXPECT_EQ(marks.items.size(), named);
    EXPECT_EQ(marks.crossRank, crossRank);
    size_t crossRankEdges = 0;
    for (const auto& e : marks.edges) crossRankEdges += e.what == "cross-rank";
    EXPECT_EQ(crossRankEdges, crossRank);
    // Each placed item is the segment's event: its name.
    const plots::TimelineNavigation* nav = view.plot().timeline();
    for (size_t i = 0; i < marks.items.size(); ++i)
        EXPECT_EQ(nav->itemName(*view.prepared(), marks.items[i]), std::string(result.path[marks.segment[i]].name));

    // Drawn: orange inside the plot area (outlines, arrows, the banner), none outside it.
    const QImage with = view.grab().toImage();
    QRectF rect(view.rect());
    if (view.laneScrollBar() && view.laneScrollBar()->isVisible())
        rect.setRight(view.laneScrollBar()->geometry().left() - 1);
    const auto g = nav->geometry(*view.prepared(), view.values(), rect);
    ASSERT_TRUE(g.has_value());
    const QRect area = g->plotArea.toAlignedRect().adjusted(-1, -1, 1, 1);
    int inside = 0, outside = 0;
    for (int y = 0; y < with.height(); ++y)
        for (int x = 0; x < with.width(); ++x) {
            if (!isPathColor(with.pixelColor(x, y)) || isPathColor(before.pixelColor(x, y))) continue;
            (area.contains(x, y) ? inside : outside)++;
        }
    EXPECT_GT(inside, 100);
    EXPECT_EQ(outside, 0);

    view.clearCriticalPath();
    EXPECT_FALSE(view.hasCriticalPath());
    EXPECT_TRUE(view.criticalPathMarks().items.empty());
}

TEST_F(CriticalPathTimelineGui, ABarOfTheCriticalPathPlotAsksForItsClass) {
    app::PlotView& plotView = open("critical-path", {{"step", 10LL}});
    std::vector<std::string> asks;
    QObject::connect(&plotView, &app::PlotView::pathClassRequested, &plotView,
                     [&](const std::string& c) { asks.push_back(c); });
    // The first point of the plot on a bar (its hit test names the bar).
    const plots::Plot& plot = plotView.plot();
    std::optional<QPoint> onBar;
    std::string cls;
    for (int y = 0; y < plotView.height() && !onBar; y += 4)
        for (int x = 0; x < plotView.width() && !onBar; x += 4)
            if (auto hit = plot.hitTest(*plotView.prepared(), plotView.values(), QRectF(plotView.rect()), QPointF(x, y)))
                for (const auto& [k, v] : hit->fields)
                    if (k == "bar") {
                        onBar = QPoint(x, y);
                        cls = v;
                    }
    ASSERT_TRUE(onBar.has_value());
    QTest::mouseDClick(&plotView, Qt::LeftButton, Qt::NoModifier, *onBar);
    ASSERT_EQ(asks.size(), 1u);
    const std::string asked = asks[0];
    EXPECT_EQ(asked, cls);

    app::PlotView& timeline = open("gpu-timeline");
    timeline.showCriticalPath(app::shownCriticalPath(result, 0, asked));
    const auto [named, crossRank] = analysisCounts(asked);
    const plots::PathMarks& marks = timeline.criticalPathMarks();
    EXPECT_EQ(marks.events, named);
    EXPECT_EQ(marks.items.size(), named);
    EXPECT_TRUE(marks.edges.empty());  // one class: no edges
    for (size_t i : marks.segment) EXPECT_EQ(result.path[i].boundBy, asked);
}

}  // namespace
