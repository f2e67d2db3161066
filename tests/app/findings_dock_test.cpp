// The Findings dock (app/gui/findings_dock.h, issue 30): on the bundled DLRM sample it lists the findings the Python
// oracle confirms (tests/data/expected/findings.py; exposed_comm among them), ranked by ms per step, and a
// double-click on a finding's range measures that range on the run's timeline. With STROBE_FINDINGS_SHOT=FILE.png
// the test saves a screenshot of the window (the dock and the timeline) there.
#include <algorithm>
#include <cstdlib>

#include <QDockWidget>
#include <QLabel>
#include <QTreeWidget>

#include <gtest/gtest.h>

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

    // exposed_comm's longest range: a double-click on its row measures it on the timeline.
    QTreeWidgetItem* comm = dock.tree()->topLevelItem(1);
    comm->setExpanded(true);
    dock.tree()->setCurrentItem(comm);
    const auto& f = dock.result().findings[1];
    ASSERT_EQ(f.rule, "exposed_comm");
    ASSERT_FALSE(f.ranges.empty());
    dock.activate(comm);
    app::PlotView* timeline = nullptr;
    ASSERT_TRUE(test::waitFor([&] {
        for (auto* v : w.plotArea()->views())
            if (v->isTimeline() && v->measure()) timeline = v;
        return timeline != nullptr;
    }, 120000));
    const auto measured = *timeline->measure();
    TimeNs longest = 0;
    for (const auto& r : f.ranges) longest = std::max(longest, r.end - r.start);
    EXPECT_EQ(measured.second - measured.first, longest);
    if (const char* shot = std::getenv("STROBE_FINDINGS_SHOT")) {
        test::waitFor([] { return false; }, 1500);  // let the timeline draw
        w.grab().save(QString::fromLocal8Bit(shot) + QStringLiteral(".events.png"));  // the range's events
        w.showFindingsDock();  // the dock in front again (the measure raised the events list)
        test::waitFor([] { return false; }, 300);
        w.grab().save(QString::fromLocal8Bit(shot));
    }
}
