// The Query dock (app/gui/query_dock.h): a query over the loaded sample gives the rows Python's json computes
// (tests/data/expected/kineto_facts.json: rank 0 of the DLRM sample has 245 `kernel` events), an error puts the
// cursor where SQLite points, a row with ts_ns/end_ns measures that range on the run's timeline, and the queries
// run are kept in the session.
#include <QDockWidget>
#include <QLabel>
#include <QPlainTextEdit>
#include <QTableView>
#include <QTextCursor>

#include <gtest/gtest.h>

#include "app/gui/main_window.h"
#include "app/gui/plot_area.h"
#include "app/gui/plot_view.h"
#include "app/gui/query_dock.h"
#include "app/gui/run_manager.h"
#include "test_support.h"
#include "tests/test_paths.h"

using namespace strobe;

namespace {

bool runAndWait(app::QueryDock& dock, const QString& sql) {
    dock.setQuery(sql);
    bool done = false;
    auto c = QObject::connect(&dock, &app::QueryDock::finished, [&] { done = true; });
    dock.run();
    const bool ok = test::waitFor([&] { return done; }, 60000);
    QObject::disconnect(c);
    return ok;
}

}  // namespace

TEST(QueryDock, RowsErrorsTimelineAndSession) {
    test::app();
    app::MainWindow w;
    w.setAutoOpenDefaultPlot(false);
    const auto ids =
        w.openPaths({QString::fromUtf8(STROBE_RESOURCE_DIR) + QStringLiteral("/sample/param-dlrm-8rank")});
    ASSERT_EQ(ids.size(), 1u);
    ASSERT_TRUE(test::waitFor([&] { return !w.runs().anyLoading(); }, 180000));
    app::QueryDock& dock = *w.queryDock();

    ASSERT_TRUE(runAndWait(dock, QStringLiteral("SELECT count(*) FROM kernels WHERE rank = 0 AND kind = 'kernel'")));
    ASSERT_EQ(dock.rowCount(), 1) << dock.status()->text().toStdString();
    EXPECT_EQ(dock.table()->model()->index(0, 0).data().toString(), QStringLiteral("245"));

    // An error: the cursor goes to the unknown column (byte 7 of the SQL), the status says where and why.
    ASSERT_TRUE(runAndWait(dock, QStringLiteral("SELECT nme FROM kernels")));
    EXPECT_EQ(dock.rowCount(), 0);
    EXPECT_TRUE(dock.status()->text().contains(QStringLiteral("no such column: nme"))) << dock.status()->text().toStdString();
    EXPECT_EQ(dock.editor()->textCursor().selectionStart(), 7);

    // The longest kernel of rank 2: a double-click measures its range on the run's timeline.
    ASSERT_TRUE(runAndWait(dock, QStringLiteral("SELECT run, rank, name, ts_ns, end_ns FROM kernels WHERE rank = 2 "
                                                "ORDER BY dur_ns DESC LIMIT 1")));
    ASSERT_EQ(dock.rowCount(), 1);
    const auto range = dock.rowRange(0);
    ASSERT_TRUE(range.has_value());
    EXPECT_EQ(range->runId, ids[0]);
    EXPECT_EQ(range->rank, 2);
    dock.activateRow(0);
    app::PlotView* timeline = nullptr;
    ASSERT_TRUE(test::waitFor([&] {
        for (auto* v : w.plotArea()->views())
            if (v->isTimeline() && v->measure()) timeline = v;
        return timeline != nullptr;
    }, 120000));
    const auto measured = *timeline->measure();
    EXPECT_EQ(measured.second - measured.first, range->end - range->start);

    // The queries run are kept, newest first, and come back with the session.
    EXPECT_EQ(dock.history().size(), 3);
    EXPECT_TRUE(dock.history().front().contains(QStringLiteral("ORDER BY dur_ns DESC")));
    const QStringList kept = dock.history();
    const core::Session s = w.captureSession();
    dock.setHistory({});
    ASSERT_TRUE(w.applySession(s, &ids, QStringLiteral("test")));
    EXPECT_EQ(dock.history(), kept);
}
