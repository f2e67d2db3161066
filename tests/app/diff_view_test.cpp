// The structural diff dialog (issue 22) on the V100 and MI300X ResNet traces: the call-site tree with the CLI's
// figures, sorting by Δ within each level, and a double-click asking for the row's first instance in its run.
#include <gtest/gtest.h>

#include <QHeaderView>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTreeView>

#include "app/gui/diff_view.h"
#include "core/engine/job_runner.h"
#include "app/gui/run_manager.h"
#include "core/engine/run_loader.h"
#include "test_support.h"
#include "tests/test_paths.h"

using namespace strobe;

namespace {

core::DatasetPtr loadForDiff(const std::string& relative) {
    core::RunLoadOptions options;
    options.useCache = false;
    auto d = core::loadRun({std::string(STROBE_TEST_DATA_DIR) + "/" + relative}, options);
    EXPECT_TRUE(d.ok()) << relative;
    return d.ok() ? *d : nullptr;
}

TEST(DiffDialog, ShowsTheCallSiteTreeSortsByDeltaAndNavigates) {
    test::app();
    app::RunManager runs;
    const int a = runs.addDataset(QStringLiteral("V100"), loadForDiff("kineto/kineto-configs/resnet50_num_workers_0"));
    const int b = runs.addDataset(QStringLiteral("MI300X"), loadForDiff("kineto/tracelens"));
    core::JobRunner runner(2);
    app::DiffDialog dialog(runs, runner);
    ASSERT_TRUE(dialog.compare(a, b));
    EXPECT_TRUE(dialog.isComputing());  // a job of the runner, not the GUI thread
    ASSERT_TRUE(test::waitFor([&] { return !dialog.isComputing(); }, 60000));
    QStandardItemModel* m = dialog.model();
    ASSERT_GT(m->rowCount(), 5);
    EXPECT_TRUE(dialog.summary().contains(QStringLiteral("Matched"))) << dialog.summary().toStdString();
    // The top level: call sites in tree order (largest first); aten::conv2d among them, changed, 53 vs 20 per step.
    QModelIndex conv;
    for (int r = 0; r < m->rowCount(); ++r)
        if (m->index(r, app::DiffDialog::Name).data().toString() == QStringLiteral("aten::conv2d")) conv = m->index(r, 0);
    ASSERT_TRUE(conv.isValid());
    EXPECT_EQ(conv.siblingAtColumn(app::DiffDialog::Status).data().toString(), QStringLiteral("changed"));
    EXPECT_EQ(conv.siblingAtColumn(app::DiffDialog::CountA).data().toString(), QStringLiteral("53"));
    EXPECT_EQ(conv.siblingAtColumn(app::DiffDialog::CountB).data().toString(), QStringLiteral("20"));
    EXPECT_GT(m->rowCount(conv), 0);
    // Sorted by Δ, ascending: the largest decrease first, at every level.
    dialog.tree()->sortByColumn(app::DiffDialog::Delta, Qt::AscendingOrder);
    double previous = -1e300;
    for (int r = 0; r < m->rowCount(); ++r) {
        const double delta = m->index(r, app::DiffDialog::Delta).data(Qt::UserRole).toDouble();
        EXPECT_GE(delta, previous);
        previous = delta;
    }
    EXPECT_EQ(m->index(0, app::DiffDialog::Name).data().toString(), QStringLiteral("ConvolutionBackward"));
    // A double-click asks for the first instance of the row in B's run (the node exists there), by its raw name.
    QSignalSpy spy(&dialog, &app::DiffDialog::instanceRequested);
    Q_EMIT dialog.tree()->doubleClicked(m->index(0, app::DiffDialog::Delta));
    ASSERT_EQ(spy.count(), 1);
    EXPECT_EQ(spy.at(0).at(0).toInt(), b);
    EXPECT_TRUE(spy.at(0).at(1).toString().contains(QStringLiteral("ConvolutionBackward")))
        << spy.at(0).at(1).toString().toStdString();
}

}  // namespace
