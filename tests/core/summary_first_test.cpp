// Summary-first opening (issue 29) through the one load job: the bundled 8-rank DLRM sample, converted into a
// temporary cache directory (each rank loaded alone through the load cache and its summary written, as `strobe-cli
// convert` does), opened under a memory budget set by the test that its events do not fit, comes back with every
// rank's summary and no rank's events; asking for ranks loads exactly those (their sources), as many as the budget
// holds, most wanted first; the ranks' summaries are those of the fully loaded run (summarizeRank of each of its
// ranks, and rankStepsAnalysis' table, cell for cell). A run that was not converted loads in full; one whose events
// fit the budget loads in full even when converted.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/analysis/context.h"
#include "core/analysis/rank_steps.h"
#include "core/engine/converted_run.h"
#include "core/engine/job_runner.h"
#include "core/engine/load_job.h"
#include "core/engine/memory_budget.h"
#include "core/engine/run_loader.h"
#include "tests/convert_run.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

namespace strobe::core {
namespace {

namespace fs = std::filesystem;

const std::string kDlrm = std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank";

using test::convertRun;

Result<LoadJobResult> open(const std::string& run, const fs::path& dir, uint64_t limit,
                           std::optional<std::vector<int>> ranks = std::nullopt) {
    JobRunner runner(1);
    RunLoadOptions o;
    o.cacheDir = dir;
    o.memoryLimitBytes = limit;
    o.summaryFirst = true;
    o.ranks = std::move(ranks);
    auto results = loadRunsThroughJobs(runner, {{run}}, o);
    return std::move(results.front());
}

std::vector<int> ranksOf(const Dataset& ds) {
    std::vector<int> out;
    for (const auto& r : ds.ranks) out.push_back(r->rank);
    return out;
}

uint64_t residentOfRank(int rank) {
    auto sources = expandRunPaths({kDlrm});
    for (const auto& s : *sources)
        if (s.find("worker" + std::to_string(rank) + "_") != std::string::npos)
            return MemoryBudget::estimateResident({s});
    return 0;
}

class SummaryFirst : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir = new test::TempDir("strobe-summary-first");
        convertRun(kDlrm, dir->path());
    }
    static void TearDownTestSuite() {
        delete dir;
        dir = nullptr;
    }
    static inline test::TempDir* dir = nullptr;
};

TEST_F(SummaryFirst, OpensFromSummariesWhenTheEventsDoNotFitTheBudget) {
    const uint64_t whole = MemoryBudget::estimateResident(*expandRunPaths({kDlrm}));
    ASSERT_GT(whole, 3'000'000u);  // 8 files of ~0.9 MB
    auto r = open(kDlrm, dir->path(), whole / 4);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const Dataset& ds = *r->dataset;
    ASSERT_TRUE(ds.summaryFirst);
    EXPECT_TRUE(ds.ranks.empty());  // no rank's events
    const RunSummaries& sf = *ds.summaryFirst;
    ASSERT_EQ(sf.ranks.size(), 8u);
    for (int k = 0; k < 8; ++k) EXPECT_EQ(sf.ranks[size_t(k)].rank.rank, k);
    EXPECT_TRUE(sf.loaded.empty());
    EXPECT_EQ(sf.remade, 0u);
    EXPECT_EQ(sf.limit, whole / 4);
    EXPECT_EQ(sf.runEstimate, whole);
    EXPECT_EQ(sf.loadedText(), "8 ranks from their summaries; no rank's events loaded");
    EXPECT_TRUE(ds.diagnostics.empty());

    // The summaries are the fully loaded run's, rank by rank and cell by cell.
    RunLoadOptions full;
    full.useCache = false;
    auto loaded = loadRun({kDlrm}, full);
    ASSERT_TRUE(loaded.ok());
    ASSERT_EQ((*loaded)->ranks.size(), 8u);
    for (size_t k = 0; k < 8; ++k) {
        const RankSummary want = summarizeRank(*(*loaded)->ranks[k]);
        const RankSummary& got = sf.ranks[k].rank;
        EXPECT_EQ(got.kernelCount, want.kernelCount) << "rank " << k;
        EXPECT_EQ(got.kernelTimeNs, want.kernelTimeNs) << "rank " << k;
        EXPECT_EQ(got.events, want.events) << "rank " << k;
        EXPECT_EQ(got.steps, want.steps) << "rank " << k;
    }
    auto ctx = AnalysisContext::of(*loaded);
    auto want = rankStepsAnalysis(*ctx, WindowSpec{});
    ASSERT_TRUE(want.ok());
    const Table got = rankStepsFromSummaries(sf.ranks, WindowSpec{});
    ASSERT_EQ(got.columns, want->columns);
    ASSERT_EQ(got.rows.size(), want->rows.size());
    for (size_t i = 0; i < got.rows.size(); ++i) EXPECT_EQ(got.rows[i], want->rows[i]) << "row " << i;
}

TEST_F(SummaryFirst, LoadsExactlyThePickedRanksWithinTheBudget) {
    const uint64_t two = residentOfRank(2), six = residentOfRank(6), one = residentOfRank(1);
    ASSERT_GT(two, 0u);
    // Room for ranks 2 and 6 and no third rank.
    const uint64_t limit = two + six + std::min(one, std::min(two, six)) / 2;
    auto r = open(kDlrm, dir->path(), limit, std::vector<int>{6, 2});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    ASSERT_TRUE(r->dataset->summaryFirst);
    EXPECT_EQ(ranksOf(*r->dataset), (std::vector<int>{2, 6}));
    EXPECT_EQ(r->dataset->summaryFirst->loaded, (std::vector<int>{2, 6}));
    EXPECT_EQ(r->summaries.size(), 2u);
    EXPECT_TRUE(r->dataset->summaryFirst->notes.empty());
    EXPECT_EQ(r->dataset->summaryFirst->loadedText(),
              "events of 2 of 8 ranks loaded (2, 6); the others from their summaries");
    EXPECT_EQ(r->dataset->summaryFirst->ranks.size(), 8u);

    // Rank 1 first, then 6 and 2 as before: rank 2 no longer fits and is left out, said in a note.
    r = open(kDlrm, dir->path(), limit, std::vector<int>{1, 6, 2});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(ranksOf(*r->dataset), (std::vector<int>{1, 6}));
    ASSERT_EQ(r->dataset->summaryFirst->notes.size(), 1u);
    EXPECT_NE(r->dataset->summaryFirst->notes[0].find("events of rank 2 not loaded"), std::string::npos)
        << r->dataset->summaryFirst->notes[0];

    // A rank the run does not have is named; the others load.
    r = open(kDlrm, dir->path(), limit, std::vector<int>{3, 42});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(ranksOf(*r->dataset), (std::vector<int>{3}));
    ASSERT_EQ(r->dataset->summaryFirst->notes.size(), 1u);
    EXPECT_EQ(r->dataset->summaryFirst->notes[0], "no rank 42 in this run");

    // A loaded rank is the fully loaded run's rank: same kernels.
    RunLoadOptions full;
    full.useCache = false;
    auto loaded = loadRun({kDlrm}, full);
    ASSERT_TRUE(loaded.ok());
    EXPECT_EQ(r->dataset->ranks[0]->gpu.size(), (*loaded)->rank(3)->gpu.size());
}

TEST_F(SummaryFirst, ADrillDownReusesTheSummariesReadAtTheOpeningWhileTheRunIsUnchanged) {
    const uint64_t whole = MemoryBudget::estimateResident(*expandRunPaths({kDlrm}));
    auto first = open(kDlrm, dir->path(), whole / 2);
    ASSERT_TRUE(first.ok());
    ASSERT_TRUE(first->dataset->summaryFirst);
    const RunSummaries& known = *first->dataset->summaryFirst;
    auto key = convertOptionsKey();
    ASSERT_TRUE(key.ok());
    const auto sources = *expandRunPaths({kDlrm});
    auto reused = reuseRunSummaries(known, sources, dir->path(), *key);
    ASSERT_TRUE(reused.has_value());
    EXPECT_EQ(reused->ranks.size(), 8u);
    EXPECT_TRUE(reused->loaded.empty());
    // Another cache directory, another options key, a source missing or added: not reused.
    EXPECT_FALSE(reuseRunSummaries(known, sources, "/nonexistent", *key));
    EXPECT_FALSE(reuseRunSummaries(known, sources, dir->path(), *key + 1));
    EXPECT_FALSE(reuseRunSummaries(known, {sources.begin(), sources.end() - 1}, dir->path(), *key));
    // Through the load job: the rank asked for loads, every summary kept.
    JobRunner runner(1);
    RunLoadOptions o;
    o.cacheDir = dir->path();
    o.memoryLimitBytes = whole / 2;
    o.summaryFirst = true;
    o.ranks = std::vector<int>{4};
    o.knownSummaries = first->dataset->summaryFirst;
    auto drilled = std::move(loadRunsThroughJobs(runner, {{kDlrm}}, o).front());
    ASSERT_TRUE(drilled.ok()) << drilled.error().toString();
    EXPECT_EQ(ranksOf(*drilled->dataset), (std::vector<int>{4}));
    EXPECT_EQ(drilled->dataset->summaryFirst->ranks.size(), 8u);
}

TEST_F(SummaryFirst, ARunThatFitsOrWasNotConvertedLoadsInFull) {
    // Converted, but its events fit: loaded in full.
    auto r = open(kDlrm, dir->path(), 0);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_FALSE(r->dataset->summaryFirst);
    EXPECT_EQ(r->dataset->ranks.size(), 8u);
    // Not converted (an empty cache directory) and over the budget: loaded in full too (the load's own peak, two
    // files at a time, fits), not from summaries.
    test::TempDir empty("strobe-summary-first-none");
    const uint64_t whole = MemoryBudget::estimateResident(*expandRunPaths({kDlrm}));
    r = open(kDlrm, empty.path(), whole / 2);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_FALSE(r->dataset->summaryFirst);
    EXPECT_EQ(r->dataset->ranks.size(), 8u);
    // Ranks asked for on a run that was not converted: a clear error.
    r = open(kDlrm, empty.path(), whole / 2, std::vector<int>{1});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("strobe-cli convert"), std::string::npos) << r.error().toString();
}

TEST_F(SummaryFirst, AStaleSummaryIsMadeAgainAndNamed) {
    // A copy of the run whose rank 5 changed after the conversion: its summary is stale, remade from its trace.
    test::TempDir copy("strobe-summary-first-stale");
    for (const auto& e : fs::directory_iterator(kDlrm)) fs::copy_file(e.path(), copy.path() / e.path().filename());
    test::TempDir cache("strobe-summary-first-stale-cache");
    convertRun(copy.path().string(), cache.path());
    fs::path rank5;
    for (const auto& e : fs::directory_iterator(copy.path()))
        if (e.path().filename().string().rfind("worker5_", 0) == 0) rank5 = e.path();
    ASSERT_FALSE(rank5.empty());
    const uint64_t before = MemoryBudget::estimateResident(*expandRunPaths({copy.path().string()}));
    auto opened = open(copy.path().string(), cache.path(), before / 4);
    ASSERT_TRUE(opened.ok());
    ASSERT_TRUE(opened->dataset->summaryFirst);
    fs::last_write_time(rank5, fs::last_write_time(rank5) + std::chrono::seconds(5));
    // The summaries read before no longer describe the run: not reused.
    auto key = convertOptionsKey();
    ASSERT_TRUE(key.ok());
    EXPECT_FALSE(reuseRunSummaries(*opened->dataset->summaryFirst, *expandRunPaths({copy.path().string()}),
                                   cache.path(), *key));
    const uint64_t whole = MemoryBudget::estimateResident(*expandRunPaths({copy.path().string()}));
    auto r = open(copy.path().string(), cache.path(), whole / 4);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    ASSERT_TRUE(r->dataset->summaryFirst);
    EXPECT_EQ(r->dataset->summaryFirst->remade, 1u);
    EXPECT_EQ(r->dataset->summaryFirst->ranks.size(), 8u);
    ASSERT_EQ(r->dataset->diagnostics.size(), 1u);
    EXPECT_NE(r->dataset->diagnostics[0].message.find("stale summary"), std::string::npos);
    EXPECT_NE(r->dataset->diagnostics[0].message.find(".strobe-summary"), std::string::npos);
}

}  // namespace
}  // namespace strobe::core
