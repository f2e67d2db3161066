// The Findings dock (app/gui/findings_dock.h, issue 30): on the bundled DLRM sample it lists the findings the Python
// oracle confirms (tests/data/expected/findings.py; exposed_comm among them), ranked by ms per step, and a click on a
// finding measures its longest range on the run's timeline and lists that rank's events in the range in the events
// list, beside the dock (not over it). With STROBE_FINDINGS_SHOT=FILE.png the test saves a screenshot of the window
// (the dock, the timeline and the events) there.
#include <algorithm>
#include <cstdlib>

#include <QDockWidget>
#include <QLabel>
#include <QTableView>
#include <QTest>
#include <QTreeWidget>

#include <gtest/gtest.h>

#include "app/gui/events_list.h"
#include "app/gui/findings_dock.h"
#include "app/gui/main_window.h"
#include "app/gui/plot_area.h"
#include "app/gui/plot_view.h"
#include "app/gui/run_manager.h"
#include "test_support.h"
#include "tests/test_paths.h"

using namespace strobe;
using strobe::core::TimeNs;

TEST(FindingsDock, RankedFindingsAndTheirRangeOnTheTimeline) {
    test::app();
    app::MainWindow w;
    w.setAutoOpenDefaultPlot(false);
    w.resize(1400, 900);
    w.show();  // the dock and the events list visible side by side
    const auto ids =
        w.openPaths({QString::fromUtf8(STROBE_RESOURCE_DIR) + QStringLiteral("/sample/param-dlrm-8rank")});
    ASSERT_EQ(ids.size(), 1u);
    ASSERT_TRUE(test::waitFor([&] { return !w.runs().anyLoading(); }, 180000));
    app::FindingsDock& dock = *w.findingsDock();
    bool done = false;
    QObject::connect(&dock, &app::FindingsDock::finished, [&] { done = true; });
    w.showFindingsDock();
    ASSERT_TRUE(test::waitFor([&] { return done; }, 120000));
    ASSERT_EQ(dock.shownRun(), ids[0]) << dock.status()->text().toStdString();

    // The oracle's list for this run (tests/data/expected/findings.json "dlrm" -> "fired").
    const QStringList expected = {"launch_bound", "exposed_comm", "straggler", "host_sync", "dataloader_stall",
                                  "small_elementwise", "gemm_below_peak"};
    ASSERT_EQ(dock.tree()->topLevelItemCount(), expected.size());
    for (int i = 0; i < expected.size(); ++i)
        EXPECT_TRUE(dock.tree()->topLevelItem(i)->text(0).endsWith(expected[i]))
            << dock.tree()->topLevelItem(i)->text(0).toStdString();

    // exposed_comm's longest range: a click on its row measures it on the timeline and lists its events.
    QTreeWidgetItem* comm = dock.tree()->topLevelItem(1);
    comm->setExpanded(true);
    const auto& f = dock.result().findings[1];
    ASSERT_EQ(f.rule, "exposed_comm");
    ASSERT_FALSE(f.ranges.empty());
    dock.tree()->scrollToItem(comm);
    const QRect at = dock.tree()->visualItemRect(comm);
    ASSERT_TRUE(at.isValid());
    QTest::mouseClick(dock.tree()->viewport(), Qt::LeftButton, {}, at.center());
    app::PlotView* timeline = nullptr;
    ASSERT_TRUE(test::waitFor([&] {
        for (auto* v : w.plotArea()->views())
            if (v->isTimeline() && v->measure()) timeline = v;
        return timeline != nullptr;
    }, 120000));
    const auto measured = *timeline->measure();
    core::FindingRange longest;
    for (const auto& r : f.ranges)
        if (r.end - r.start > longest.end - longest.start) longest = r;
    EXPECT_EQ(measured.second - measured.first, longest.end - longest.start);

    // The events list: the events of the range's rank that intersect it (the communication kernels among them), and
    // the findings still in view beside it.
    app::EventsList& events = *w.eventsList();
    ASSERT_TRUE(test::waitFor([&] { return events.visibleRows() > 0; }, 60000)) << events.title().toStdString();
    EXPECT_TRUE(events.title().contains(QStringLiteral("on rank %1").arg(longest.rank))) << events.title().toStdString();
    auto* eventsDock = w.findChild<QDockWidget*>(QStringLiteral("eventsDock"));
    auto* findingsDock = w.findChild<QDockWidget*>(QStringLiteral("findingsDock"));
    ASSERT_TRUE(eventsDock && findingsDock);
    EXPECT_TRUE(eventsDock->isVisible());
    EXPECT_TRUE(findingsDock->isVisible());
    EXPECT_FALSE(w.tabifiedDockWidgets(findingsDock).contains(eventsDock));
    const QAbstractItemModel* m = events.table()->model();
    bool sawComm = false;
    for (int row = 0; row < m->rowCount(); ++row) {
        EXPECT_EQ(m->index(row, app::EventsModel::Rank).data(app::EventsModel::kSortRole).toInt(), longest.rank);
        const qint64 s = m->index(row, app::EventsModel::Start).data(app::EventsModel::kSortRole).toLongLong();
        const qint64 d = m->index(row, app::EventsModel::Duration).data(app::EventsModel::kSortRole).toLongLong();
        EXPECT_LT(s, measured.second);
        EXPECT_GE(s + std::max<qint64>(d, 1), measured.first);
        sawComm = sawComm || m->index(row, app::EventsModel::Name).data().toString().startsWith(QStringLiteral("nccl"));
    }
    EXPECT_TRUE(sawComm) << "no communication kernel in the exposed_comm range";

    if (const char* shot = std::getenv("STROBE_FINDINGS_SHOT")) {
        test::waitFor([] { return false; }, 1500);  // let the timeline draw
        w.grab().save(QString::fromLocal8Bit(shot));
    }

    // A click on one of another finding's range rows shows that range and its rank's events instead.
    const auto& hs = dock.result().findings[3];
    ASSERT_EQ(hs.rule, "host_sync");
    ASSERT_FALSE(hs.ranges.empty());
    QTreeWidgetItem* hsItem = dock.tree()->topLevelItem(3);
    hsItem->setExpanded(true);
    QTreeWidgetItem* rangeRow = nullptr;
    for (int c = 0; c < hsItem->childCount() && !rangeRow; ++c)
        if (hsItem->child(c)->text(0) == QStringLiteral("range")) rangeRow = hsItem->child(c);
    ASSERT_NE(rangeRow, nullptr);
    const core::FindingRange first = hs.ranges.front();  // the first range row is the first range
    dock.tree()->scrollToItem(rangeRow);
    QTest::mouseClick(dock.tree()->viewport(), Qt::LeftButton, {}, dock.tree()->visualItemRect(rangeRow).center());
    ASSERT_TRUE(test::waitFor([&] {
        const auto m2 = timeline->measure();
        return m2 && m2->second - m2->first == first.end - first.start &&
               events.title().contains(QStringLiteral("on rank %1").arg(first.rank));
    }, 60000)) << events.title().toStdString();
    EXPECT_FALSE(w.tabifiedDockWidgets(findingsDock).contains(eventsDock));
}
