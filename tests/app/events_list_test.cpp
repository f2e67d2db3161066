// The events list (Events dock) on the real ResNet-50 trace: every instance of a kernel from the timeline's context
// menu and from Top kernels, a search's matches; sorted by duration (longest first) and by any column, filtered by
// text, a row's click selecting the instance on the timeline and zooming to it. Expected values:
// tests/data/expected/events_list/expected.json (events_list.py: Python's json/gzip/re, no Strobe).
#include <QDockWidget>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QTableView>

#include <gtest/gtest.h>

#include "app/gui/events_list.h"
#include "app/gui/main_window.h"
#include "app/gui/plot_area.h"
#include "app/gui/plot_view.h"
#include "app/gui/run_manager.h"
#include "app/gui/timeline_search_bar.h"
#include "plots/builtin/timeline_model.h"
#include "test_support.h"
#include "tests/test_paths.h"

using namespace strobe;

namespace {

QJsonObject expectedEvents() {
    QFile f(QString::fromUtf8(STROBE_TEST_DATA_DIR) + QStringLiteral("/expected/events_list/expected.json"));
    EXPECT_TRUE(f.open(QIODevice::ReadOnly));
    return QJsonDocument::fromJson(f.readAll()).object();
}

class EventsListTest : public ::testing::Test {
protected:
    void SetUp() override {
        test::app();
        e = expectedEvents();
        w = std::make_unique<app::MainWindow>();
        w->setAutoOpenDefaultPlot(false);
        w->resize(1500, 920);
        w->show();
        runId = w->openRun({QString::fromUtf8(STROBE_TEST_DATA_DIR) + "/" + e["trace"].toString()}, QStringLiteral("resnet"));
        ASSERT_TRUE(test::waitFor([&] { return !w->runs().anyLoading(); }, 180000));
        ASSERT_EQ(w->runs().run(runId)->state, app::RunState::Loaded);
    }
    app::PlotView* timeline() {
        app::PlotView* v = w->openPlot("gpu-timeline", {runId});
        EXPECT_NE(v, nullptr);
        EXPECT_TRUE(test::waitFor([&] { return w->isIdle() && v->prepared() && !v->isUpdating(); }, 60000));
        return v;
    }
    int64_t durationOf(int row) const {
        auto* t = w->eventsList()->table();
        return t->model()->index(row, app::EventsModel::Duration).data(app::EventsModel::kSortRole).toLongLong();
    }
    QJsonObject e;
    std::unique_ptr<app::MainWindow> w;
    int runId = -1;
};

}  // namespace

TEST_F(EventsListTest, EveryInstanceSortedFilteredAndOneClickFromTheTimeline) {
    app::PlotView* view = timeline();
    ASSERT_NE(view, nullptr);
    const std::string name = e["name"].toString().toStdString();
    ASSERT_TRUE(view->listName(name));
    app::EventsList* list = w->eventsList();
    ASSERT_NE(list, nullptr);
    EXPECT_TRUE(list->isVisible());
    EXPECT_TRUE(list->title().contains(QString::fromStdString(name)));
    ASSERT_EQ(list->visibleRows(), e["count"].toInt());
    // Longest first.
    const auto longest = e["longest_ns"].toArray();
    for (int i = 0; i < 3; ++i) EXPECT_EQ(durationOf(i), longest.at(i).toInteger()) << i;
    auto* model = list->table()->model();
    EXPECT_EQ(model->index(0, app::EventsModel::Grid).data().toString(), e["longest_grid"].toString());
    EXPECT_EQ(model->index(0, app::EventsModel::Kind).data().toString(), QStringLiteral("kernel"));
    // Any column sorts: ascending duration puts the shortest first.
    list->table()->sortByColumn(app::EventsModel::Duration, Qt::AscendingOrder);
    EXPECT_EQ(durationOf(0), e["shortest_ns"].toInteger());
    list->table()->sortByColumn(app::EventsModel::Start, Qt::AscendingOrder);
    for (int r = 1; r < list->visibleRows(); ++r)
        EXPECT_LE(model->index(r - 1, app::EventsModel::Start).data(app::EventsModel::kSortRole).toLongLong(),
                  model->index(r, app::EventsModel::Start).data(app::EventsModel::kSortRole).toLongLong());

    // A click selects that instance on the timeline and zooms to it.
    list->table()->sortByColumn(app::EventsModel::Duration, Qt::DescendingOrder);
    list->activateRow(0);
    const auto selected = view->selectedItem();
    ASSERT_TRUE(selected.has_value());
    const auto& p = dynamic_cast<const plots::timeline::TimelinePrepared&>(*view->prepared());
    EXPECT_EQ(selected->start + p.runOrigin.at(0), e["longest_start_ns"].toInteger());
    EXPECT_EQ(selected->end - selected->start, longest.at(0).toInteger());
    const auto shown = plots::effectiveView(view->values(), p.fullStart, p.fullEnd);
    EXPECT_LE(shown.start, selected->start);
    EXPECT_GE(shown.end, selected->end);
    EXPECT_LT(shown.end - shown.start, 100 * (selected->end - selected->start));  // zoomed in on it
}

TEST_F(EventsListTest, SearchMatchesListedAndFiltered) {
    app::PlotView* view = timeline();
    ASSERT_NE(view, nullptr);
    view->setSearch(e["regex"].toString(), true);
    ASSERT_EQ(int(view->matches().size()), e["search_count"].toInt());
    view->listMatches();
    app::EventsList* list = w->eventsList();
    EXPECT_EQ(list->visibleRows(), e["search_count"].toInt());
    list->filterEdit()->setText(e["filter"].toString().toUpper());  // case-insensitive, any column
    EXPECT_EQ(list->visibleRows(), e["filter_count"].toInt());
    list->filterEdit()->clear();
    EXPECT_EQ(list->visibleRows(), e["search_count"].toInt());
}

TEST_F(EventsListTest, TopKernelsRowListsItsInstancesOnTheTimeline) {
    app::PlotView* top = w->openPlot("top-kernels", {runId});
    ASSERT_NE(top, nullptr);
    ASSERT_TRUE(test::waitFor([&] { return w->isIdle() && top->prepared() && !top->isUpdating(); }, 60000));
    // What the row's context menu does: the run's timeline opens (none is open yet) and lists the kernel.
    Q_EMIT top->instancesRequested(e["name"].toString().toStdString());
    ASSERT_TRUE(test::waitFor([&] { return w->eventsList()->visibleRows() == e["count"].toInt(); }, 60000));
    EXPECT_TRUE(w->eventsList()->title().contains(e["name"].toString()));
    app::PlotView* current = w->plotArea()->currentView();
    ASSERT_NE(current, nullptr);
    EXPECT_TRUE(current->isTimeline());
}
