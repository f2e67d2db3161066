// Issue 27: a row of the operator-efficiency table, or of the memory-live-at-peak table, activated (double-click,
// Enter) selects that operator instance on its run's timeline and reveals it (zoomed, as any selected item) — the timeline the other tables and
// docks navigate to (MainWindow::onTimelineOf). On TraceLens's normalization trace (MI300X, record_shapes and
// profile_memory): the selected item is the row's operator, at the row's time (the operator table's ts_ns is the
// instance's start; the live table's ts_ns is an allocation inside its innermost operator).
#include <algorithm>

#include <QStatusBar>
#include <QTableView>

#include <gtest/gtest.h>

#include "app/gui/main_window.h"
#include "app/gui/plot_area.h"
#include "app/gui/plot_view.h"
#include "app/gui/run_manager.h"
#include "app/gui/table_view.h"
#include "core/analysis/table.h"
#include "plots/builtin/timeline_model.h"
#include "plots/timeline_view.h"
#include "plots/plot_registry.h"
#include "test_support.h"
#include "tests/test_paths.h"

using namespace strobe;

namespace {

class OpTableNavTest : public ::testing::Test {
protected:
    void SetUp() override {
        test::app();
        w = std::make_unique<app::MainWindow>();
        w->setAutoOpenDefaultPlot(false);
        w->resize(1500, 920);
        w->show();
        runId = w->openRun({QString::fromUtf8(STROBE_TEST_DATA_DIR) +
                            "/kineto/memory/tracelens_normalization_layer_test_profile_memory.json.gz"},
                           QStringLiteral("norm"));
        ASSERT_TRUE(test::waitFor([&] { return !w->runs().anyLoading(); }, 180000));
        ASSERT_EQ(w->runs().run(runId)->state, app::RunState::Loaded);
    }
    // Opens `plotId`, activates its table's row `row` and returns (the row's ts_ns, its op); the timeline then
    // shows the instance.
    std::pair<int64_t, std::string> activateRow(const std::string& plotId, int row) {
        app::PlotView* v = w->openPlot(plotId, {runId});
        EXPECT_NE(v, nullptr);
        EXPECT_TRUE(test::waitFor([&] { return w->isIdle() && v->prepared() && !v->isUpdating(); }, 60000));
        app::PlotTableView* table = v->tableView();
        EXPECT_NE(table, nullptr);
        const core::Table& t = table->tableModel()->table();
        EXPECT_GT(t.rows.size(), size_t(row));
        if (t.rows.size() <= size_t(row)) return {};
        const auto ts = int64_t(core::Table::number(t.at(size_t(row), std::string("ts_ns"))));
        const std::string op = core::Table::text(t.at(size_t(row), std::string("op")));
        Q_EMIT table->activated(table->model()->index(row, 0));
        return {ts, op};
    }
    struct Selection {
        app::PlotView* view = nullptr;
        const plots::timeline::TimelinePrepared* prepared = nullptr;  // null: nothing selected
        plots::ItemRef item;
    };
    // The timeline made current with an item selected, which must be named `op`.
    Selection selection(const std::string& op) {
        Selection s;
        EXPECT_FALSE(op.empty());
        EXPECT_TRUE(test::waitFor(
            [&] {
                s.view = w->plotArea()->currentView();
                return s.view && s.view->isTimeline() && s.view->prepared() && !s.view->isUpdating() &&
                       s.view->selectedItem();
            },
            60000));
        if (!s.view || !s.view->selectedItem()) {
            ADD_FAILURE() << "current view " << (s.view ? s.view->plot().id() : std::string("none")) << " timeline "
                          << (s.view && s.view->isTimeline()) << " measured " << (s.view && s.view->measure())
                          << " status: " << w->statusBar()->currentMessage().toStdString();
            return s;
        }
        s.prepared = dynamic_cast<const plots::timeline::TimelinePrepared*>(s.view->prepared().get());
        s.item = *s.view->selectedItem();
        const plots::Plot* timeline = plots::PlotRegistry::instance().find("gpu-timeline");
        EXPECT_EQ(timeline->timeline()->itemName(*s.prepared, s.item), op);
        return s;
    }
    std::unique_ptr<app::MainWindow> w;
    int runId = -1;
};

}  // namespace

TEST_F(OpTableNavTest, OperatorRowSelectsItsInstanceOnTheTimeline) {
    const auto [ts, op] = activateRow("operator-efficiency", 0);
    const auto s = selection(op);
    ASSERT_TRUE(s.prepared);
    EXPECT_EQ(s.item.start + s.prepared->runOrigin.at(0), ts);  // the instance's start
    const auto shown = plots::effectiveView(s.view->values(), s.prepared->fullStart, s.prepared->fullEnd);
    EXPECT_LE(shown.start, s.item.start);
    EXPECT_GE(shown.end, s.item.end);
    // Revealed as the timeline reveals any item: zoomed to it unless the span already suits it (it takes at least
    // 1/200 of the view).
    EXPECT_LE(shown.end - shown.start, 200 * std::max<int64_t>(1, s.item.end - s.item.start));
}

TEST_F(OpTableNavTest, LiveAtPeakRowSelectsTheAllocatingOperator) {
    const auto [ts, op] = activateRow("memory-live-at-peak", 0);
    const auto s = selection(op);
    ASSERT_TRUE(s.prepared);
    EXPECT_LE(s.item.start + s.prepared->runOrigin.at(0), ts);  // the allocation lies in the operator
    EXPECT_GE(s.item.end + s.prepared->runOrigin.at(0), ts);
}
