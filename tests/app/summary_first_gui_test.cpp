// The workbench's summary-first opening (issue 29): the bundled 8-rank DLRM sample, converted into a temporary cache
// directory, opened by the run manager under a memory budget the test sets (a quarter of what its events take)
// opens from its summaries with no rank's events; the rank × step heatmap is drawn from every rank's summary (the
// table the fully loaded run gives), says so, and its cells name their rank for drill-down; an analysis that needs
// events says that none is loaded; picking ranks loads exactly those, then those beside the ones loaded before while
// the budget holds, or instead of them; the Runs panel marks the ranks that are summary only.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <QTreeWidget>

#include "app/gui/run_manager.h"
#include "app/gui/runs_panel.h"
#include "core/analysis/context.h"
#include "core/analysis/rank_steps.h"
#include "core/engine/converted_run.h"
#include "core/engine/job_runner.h"
#include "core/engine/memory_budget.h"
#include "plots/plot_registry.h"
#include "test_support.h"
#include "tests/convert_run.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

using namespace strobe;

namespace {

const std::string kDlrm = std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank";

std::vector<int> loadedRanks(const app::RunManager& runs, int id) {
    std::vector<int> out;
    const app::RunRecord* r = runs.run(id);
    if (r && r->dataset)
        for (const auto& rank : r->dataset->ranks) out.push_back(rank->rank);
    return out;
}

uint64_t residentOfRank(int rank) {
    const auto sources = core::expandRunPaths({kDlrm});
    for (const auto& s : *sources)
        if (s.find("worker" + std::to_string(rank) + "_") != std::string::npos)
            return core::MemoryBudget::estimateResident({s});
    return 0;
}

// A budget with room for ranks 2 and 6 (and for 1 and 6), not for a third rank.
uint64_t roomForTwo() {
    const uint64_t one = residentOfRank(1), two = residentOfRank(2), six = residentOfRank(6);
    return two + six + std::min(one, std::min(two, six)) / 2;
}

core::Result<plots::PreparedPtr> prepare(const plots::Plot& plot, const plots::RunSet& runs,
                                         plots::ParamValues* values) {
    auto v = core::resolveValues(plot.parameters(runs), {});
    if (!v) return v.error();
    *values = *v;
    return plot.prepare(runs, *v, {}, {});
}

// The DLRM sample converted into a cache directory of its own, and a run manager loading through it.
struct ConvertedSample {
    explicit ConvertedSample(const std::string& name) : cache((test::app(), name)), runs(runner) {
        test::convertRun(kDlrm, cache.path());
        auto options = runs.loadOptions();
        options.cacheDir = cache.path();
        runs.setLoadOptions(options);
    }
    test::TempDir cache;
    core::JobRunner runner{2};
    app::RunManager runs;
};

TEST(SummaryFirstGui, OpensFromSummariesThenLoadsThePickedRanks) {
    ConvertedSample sample("strobe-gui-summary-first");
    app::RunManager& runs = sample.runs;
    runs.setMemoryLimit(roomForTwo());
    const int id = runs.openRun({QString::fromStdString(kDlrm)});
    ASSERT_TRUE(test::waitFor([&] { return !runs.anyLoading(); }));
    ASSERT_TRUE(runs.isSummaryFirst(id)) << (runs.run(id)->error ? runs.run(id)->error->toString() : "");
    EXPECT_TRUE(loadedRanks(runs, id).empty());

    // The heatmap from every rank's summary: the fully loaded run's table.
    const plots::Plot* heatmap = plots::PlotRegistry::instance().find("rank-step-heatmap");
    ASSERT_NE(heatmap, nullptr);
    plots::RunSet set{runs.runEntry(id)};
    plots::ParamValues values;
    auto prepared = prepare(*heatmap, set, &values);
    ASSERT_TRUE(prepared.ok()) << prepared.error().toString();
    const core::Table shown = heatmap->table(**prepared, values);
    core::RunLoadOptions full;
    full.useCache = false;
    auto loaded = core::loadRun({kDlrm}, full);
    ASSERT_TRUE(loaded.ok());
    auto want = core::rankStepsAnalysis(*core::AnalysisContext::of(*loaded), core::WindowSpec{});
    ASSERT_TRUE(want.ok());
    EXPECT_EQ(shown.columns, want->columns);
    EXPECT_EQ(shown.rows, want->rows);
    ASSERT_FALSE(shown.messages.empty());
    EXPECT_EQ(shown.messages.front(), "from the summaries of all 8 ranks (strobe-cli convert)");
    // A cell names its rank and says its events are not loaded.
    const QRectF rect(0, 0, 900, 560);
    std::set<int> named;
    for (int y = 0; y < 560; y += 3)
        if (auto hit = heatmap->hitTest(**prepared, values, rect, QPointF(450, y))) {
            ASSERT_EQ(hit->ranks.size(), 1u);
            named.insert(hit->ranks.front());
            std::map<std::string, std::string> f(hit->fields.begin(), hit->fields.end());
            EXPECT_EQ(f["events"], "summary only (double-click loads them)");
        }
    EXPECT_EQ(named, (std::set<int>{0, 1, 2, 3, 4, 5, 6, 7}));

    // An analysis that needs events says none is loaded.
    const plots::Plot* temporal = plots::PlotRegistry::instance().find("temporal-breakdown");
    ASSERT_NE(temporal, nullptr);
    auto tp = prepare(*temporal, set, &values);
    ASSERT_TRUE(tp.ok()) << tp.error().toString();
    const core::Table none = temporal->table(**tp, values);
    EXPECT_TRUE(none.rows.empty());
    ASSERT_EQ(none.messages.size(), 1u);
    EXPECT_NE(none.messages[0].find("no rank's events loaded: this analysis needs events"), std::string::npos)
        << none.messages[0];

    // Drill down: rank 2, then rank 6 beside it.
    ASSERT_TRUE(runs.loadRanks(id, {2}));
    ASSERT_TRUE(test::waitFor([&] { return !runs.anyLoading(); }));
    EXPECT_EQ(loadedRanks(runs, id), (std::vector<int>{2}));
    ASSERT_TRUE(runs.loadRanks(id, {6}));
    ASSERT_TRUE(test::waitFor([&] { return !runs.anyLoading(); }));
    EXPECT_EQ(loadedRanks(runs, id), (std::vector<int>{2, 6}));
    ASSERT_TRUE(runs.isSummaryFirst(id));
    EXPECT_EQ(runs.run(id)->summaries.size(), 2u);
    // The analysis now runs on those two and says so.
    set = {runs.runEntry(id)};
    tp = prepare(*temporal, set, &values);
    ASSERT_TRUE(tp.ok());
    const core::Table some = temporal->table(**tp, values);
    EXPECT_FALSE(some.rows.empty());
    ASSERT_FALSE(some.messages.empty());
    EXPECT_EQ(some.messages.front(),
              "on the loaded ranks only: events of 2 of 8 ranks loaded (2, 6); the others from their summaries");

    // Kernel time by category per rank: the six summary-only ranks from their summaries, the two loaded from their
    // events; the fully loaded run's table, bar for bar.
    const plots::Plot* breakdown = plots::PlotRegistry::instance().find("kernel-breakdown");
    ASSERT_NE(breakdown, nullptr);
    auto bp = prepare(*breakdown, set, &values);
    ASSERT_TRUE(bp.ok()) << bp.error().toString();
    const core::Table mixed = breakdown->table(**bp, values);
    plots::RunSet fullSet{plots::RunEntry{"r", *loaded, {}}};
    plots::ParamValues fullValues;
    auto fp = prepare(*breakdown, fullSet, &fullValues);
    ASSERT_TRUE(fp.ok());
    const core::Table whole = breakdown->table(**fp, fullValues);
    EXPECT_EQ(mixed.columns, whole.columns);
    ASSERT_EQ(mixed.rows.size(), whole.rows.size());
    for (size_t i = 0; i < whole.rows.size(); ++i) EXPECT_EQ(mixed.rows[i], whole.rows[i]) << "row " << i;

    // The Runs panel: the two loaded ranks as ranks, the six others marked summary only.
    app::RunsPanel panel(runs);
    QTreeWidgetItem* runItem = panel.tree()->topLevelItem(0);
    ASSERT_NE(runItem, nullptr);
    int summaryOnly = 0;
    QString info;
    for (int i = 0; i < runItem->childCount(); ++i) {
        summaryOnly += runItem->child(i)->text(0).endsWith(QStringLiteral("summary only"));
        if (runItem->child(i)->text(0) == QStringLiteral("Summary-first")) info = runItem->child(i)->text(1);
    }
    EXPECT_EQ(summaryOnly, 6);
    EXPECT_EQ(info, QStringLiteral("events of 2 of 8 ranks loaded (2, 6); the others from their summaries"));

    // A third rank does not fit beside them: the one asked for first, then 6, and 2 (the oldest) dropped.
    ASSERT_TRUE(runs.loadRanks(id, {1}));
    ASSERT_TRUE(test::waitFor([&] { return !runs.anyLoading(); }));
    EXPECT_EQ(loadedRanks(runs, id), (std::vector<int>{1, 6}));
    ASSERT_EQ(runs.run(id)->dataset->summaryFirst->notes.size(), 1u);
    EXPECT_NE(runs.run(id)->dataset->summaryFirst->notes[0].find("events of rank 2 not loaded"), std::string::npos);
    // Only rank 5.
    ASSERT_TRUE(runs.loadRanks(id, {5}, true));
    ASSERT_TRUE(test::waitFor([&] { return !runs.anyLoading(); }));
    EXPECT_EQ(loadedRanks(runs, id), (std::vector<int>{5}));
    // Summaries only again.
    ASSERT_TRUE(runs.loadRanks(id, {}, true));
    ASSERT_TRUE(test::waitFor([&] { return !runs.anyLoading(); }));
    EXPECT_TRUE(loadedRanks(runs, id).empty());
    EXPECT_TRUE(runs.isSummaryFirst(id));
}

TEST(SummaryFirstGui, ARunThatFitsLoadsInFullAndTakesNoRankPicks) {
    ConvertedSample sample("strobe-gui-summary-first-fits");
    app::RunManager& runs = sample.runs;
    const int id = runs.openRun({QString::fromStdString(kDlrm)});
    ASSERT_TRUE(test::waitFor([&] { return !runs.anyLoading(); }));
    EXPECT_FALSE(runs.isSummaryFirst(id));
    EXPECT_EQ(loadedRanks(runs, id).size(), 8u);
    EXPECT_FALSE(runs.loadRanks(id, {1}));
}

}  // namespace
