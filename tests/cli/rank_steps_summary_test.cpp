// The rank × step table from the ranks' summaries alone (core::rankStepsFromSummaries, issue 29's summary-first
// opening): real multi-rank traces (the bundled 8-rank DLRM sample, HTA's two sampled ranks) converted into a
// temporary cache directory give, from their summaries, the table rankStepsAnalysis gives on the fully loaded run,
// cell for cell, and the independent Python computation (tests/data/expected/rank_steps/rank_steps.py; its header
// has the command); `strobe-cli analyze rank-steps` on the converted run answers from the summaries without loading
// events (no load cache entry is read or made again) and prints the loaded run's rows.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "app/cli/cmd_convert.h"
#include "core/analysis/columns.h"
#include "core/analysis/context.h"
#include "core/analysis/rank_steps.h"
#include "core/engine/rank_summary.h"
#include "core/engine/run_loader.h"
#include "tests/cli/cli_capture.h"
#include "tests/cli/cli_json.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

using namespace strobe;
namespace fs = std::filesystem;

namespace {

const std::string kDlrm = std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank";
const std::string kSampled = std::string(STROBE_TEST_DATA_DIR) + "/kineto/hta/trace_filter";

void convert(const std::vector<std::string>& paths, const fs::path& cache) {
    std::vector<std::string> args = paths;
    args.insert(args.end(), {"--cache-dir", cache.string(), "--jobs", "2"});
    const test::CliResult r = test::runCli("convert", args);
    ASSERT_EQ(r.code, 0) << r.err;
}

// The run's summaries in the loaded run's rank order (by rank).
std::vector<core::StoredRankSummary> summariesOf(const std::string& run, const fs::path& cache) {
    auto plan = app::planFromSummaries({run}, cache, "test");
    EXPECT_TRUE(plan.has_value());
    if (!plan) return {};
    EXPECT_TRUE(plan->toLoad.empty());
    std::stable_sort(plan->fromSummary.begin(), plan->fromSummary.end(),
                     [](const auto& a, const auto& b) { return a.rank.rank < b.rank.rank; });
    return std::move(plan->fromSummary);
}

core::Table loadedTable(const std::string& run, const core::WindowSpec& window) {
    core::RunLoadOptions options;
    options.useCache = false;
    auto ds = core::loadRun({run}, options);
    EXPECT_TRUE(ds.ok()) << ds.error().toString();
    if (!ds) return {};
    auto ctx = core::AnalysisContext::of(*ds);
    auto t = core::rankStepsAnalysis(*ctx, window);
    EXPECT_TRUE(t.ok()) << t.error().toString();
    return t ? *t : core::Table{};
}

void expectSameTable(const core::Table& got, const core::Table& want) {
    ASSERT_EQ(got.columns, want.columns);
    ASSERT_EQ(got.rows.size(), want.rows.size());
    for (size_t r = 0; r < want.rows.size(); ++r)
        for (size_t c = 0; c < want.columns.size(); ++c)
            EXPECT_EQ(got.rows[r][c], want.rows[r][c])
                << "row " << r << " (rank " << core::Table::text(want.rows[r][0]) << ", step "
                << core::Table::text(want.rows[r][1]) << ") column " << want.columns[c] << ": "
                << core::Table::text(got.rows[r][c]) << " vs " << core::Table::text(want.rows[r][c]);
    EXPECT_EQ(got.messages, want.messages);
}

std::optional<int64_t> intOrNull(simdjson::dom::element e) {
    if (e.is_null()) return std::nullopt;
    return int64_t(e.get_int64().value_unsafe());
}

std::optional<int64_t> cellInt(const core::Table& t, size_t row, core::ColumnKey c) {
    if (const auto* i = std::get_if<int64_t>(&t.at(row, c))) return *i;
    return std::nullopt;
}

}  // namespace

TEST(RankStepsFromSummaries, EqualTheLoadedRunCellForCellAndPython) {
    test::TempDir cache("strobe-rank-steps-summary");
    convert({kDlrm, kSampled}, cache.path());
    for (const std::string& run : {kDlrm, kSampled}) {
        SCOPED_TRACE(run);
        const auto summaries = summariesOf(run, cache.path());
        ASSERT_EQ(summaries.size(), run == kDlrm ? 8u : 2u);
        const core::Table got = core::rankStepsFromSummaries(summaries, core::WindowSpec{});
        const core::Table want = loadedTable(run, core::WindowSpec{});
        ASSERT_FALSE(want.rows.empty());
        expectSameTable(got, want);
        // Some collective is matched across ranks (the wait columns are exercised, not all null).
        bool matched = false;
        for (size_t r = 0; r < got.rows.size(); ++r) matched = matched || core::Table::number(got.at(r, core::col::kCollectives)) > 0;
        EXPECT_TRUE(matched);
        // A step list limits the steps the same way.
        const int64_t step = *cellInt(want, want.rows.size() - 1, core::col::kStep);
        expectSameTable(core::rankStepsFromSummaries(summaries, core::WindowSpec::stepList({step})),
                        loadedTable(run, core::WindowSpec::stepList({step})));
        expectSameTable(core::rankStepsFromSummaries(summaries, core::WindowSpec::stepList({99999})),
                        loadedTable(run, core::WindowSpec::stepList({99999})));
    }

    // And the independent Python computation of the DLRM sample.
    const core::Table t = core::rankStepsFromSummaries(summariesOf(kDlrm, cache.path()), core::WindowSpec{});
    simdjson::dom::parser parser;
    simdjson::dom::element doc =
        parser.load(std::string(STROBE_TEST_DATA_DIR) + "/expected/rank_steps/dlrm_sample.json").value_unsafe();
    size_t checked = 0;
    const simdjson::dom::object files = doc.get_object().value_unsafe();
    for (auto [file, v] : files) {
        const int64_t rank = v["rank"].get_int64().value_unsafe();
        const simdjson::dom::object steps = v["steps"].get_object().value_unsafe();
        for (auto [step, s] : steps) {
            SCOPED_TRACE(std::string(file) + " step " + std::string(step));
            size_t row = t.rows.size();
            for (size_t r = 0; r < t.rows.size(); ++r)
                if (cellInt(t, r, core::col::kRank) == rank && cellInt(t, r, core::col::kStep) == std::stoll(std::string(step)))
                    row = r;
            ASSERT_LT(row, t.rows.size());
            EXPECT_EQ(cellInt(t, row, core::col::kDurNs), intOrNull(s["dur_ns"].value_unsafe()));
            EXPECT_EQ(cellInt(t, row, core::col::kIdleNs), intOrNull(s["idle_ns"].value_unsafe()));
            EXPECT_EQ(cellInt(t, row, core::col::kWaitNs), intOrNull(s["wait_ns"].value_unsafe()));
            EXPECT_EQ(cellInt(t, row, core::col::kCausedWaitNs), intOrNull(s["caused_wait_ns"].value_unsafe()));
            ++checked;
        }
    }
    EXPECT_EQ(checked, 8u);
    EXPECT_EQ(t.rows.size(), 8u);
}

// analyze rank-steps on a converted run: from the summaries (the note says so), the load cache untouched (its
// entries removed after convert are not made again: no event was loaded), the rows of the loaded run.
TEST(RankStepsFromSummaries, AnalyzeAnswersFromSummariesWithoutLoadingEvents) {
    test::TempDir cache("strobe-rank-steps-summary-cli");
    convert({kDlrm}, cache.path());
    size_t removed = 0;
    for (const auto& e : fs::directory_iterator(cache.path())) {
        const std::string ext = e.path().extension().string();
        if (ext != core::kRankSummaryExtension && ext != ".strobe-convert") {
            fs::remove_all(e.path());
            ++removed;
        }
    }
    EXPECT_GE(removed, 8u);  // the load cache entries

    const test::CliResult fromSummaries =
        test::runCli("analyze", {"rank-steps", kDlrm, "--cache-dir", cache.path().string(), "--json"});
    ASSERT_EQ(fromSummaries.code, 0) << fromSummaries.err;
    EXPECT_NE(fromSummaries.out.find("from summaries: 8 ranks"), std::string::npos) << fromSummaries.out;
    for (const auto& e : fs::directory_iterator(cache.path())) {
        const std::string ext = e.path().extension().string();
        EXPECT_TRUE(ext == core::kRankSummaryExtension || ext == ".strobe-convert") << "made: " << e.path();
    }

    const test::CliResult loaded = test::runCli("analyze", {"rank-steps", kDlrm, "--no-cache", "--json"});
    ASSERT_EQ(loaded.code, 0) << loaded.err;
    EXPECT_EQ(loaded.out.find("from summaries"), std::string::npos);
    test::Json a(fromSummaries.out), b(loaded.out);
    ASSERT_TRUE(a.ok && b.ok);
    EXPECT_EQ(simdjson::to_string(a.root["columns"].value_unsafe()), simdjson::to_string(b.root["columns"].value_unsafe()));
    EXPECT_EQ(simdjson::to_string(a.root["rows"].value_unsafe()), simdjson::to_string(b.root["rows"].value_unsafe()));
    EXPECT_EQ(simdjson::to_string(a.root["window"].value_unsafe()), simdjson::to_string(b.root["window"].value_unsafe()));

    // A corrupt summary: named in one warning, its rank loaded and its summary made again; the same rows.
    const fs::path broken = core::rankSummaryPath(cache.path(), kDlrm + "/worker3_step_12.1694128201557.pt.trace.json");
    { std::ofstream(broken, std::ios::binary | std::ios::trunc) << "not a summary"; }
    const test::CliResult remade =
        test::runCli("analyze", {"rank-steps", kDlrm, "--cache-dir", cache.path().string(), "--json"});
    ASSERT_EQ(remade.code, 0) << remade.err;
    EXPECT_NE(remade.err.find("corrupt summary " + broken.string()), std::string::npos) << remade.err;
    EXPECT_NE(remade.out.find("from summaries: 8 ranks (1 loaded"), std::string::npos) << remade.out;
    test::Json c(remade.out);
    ASSERT_TRUE(c.ok);
    EXPECT_EQ(simdjson::to_string(c.root["rows"].value_unsafe()), simdjson::to_string(b.root["rows"].value_unsafe()));
    EXPECT_EQ(core::lookupRankSummary(cache.path(), kDlrm + "/worker3_step_12.1694128201557.pt.trace.json").state,
              core::SummaryState::Current);

    // Text output says it too; another analysis loads the run as before.
    const test::CliResult text = test::runCli("analyze", {"rank-steps", kDlrm, "--cache-dir", cache.path().string()});
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("note: rank-steps: from summaries: 8 ranks"), std::string::npos) << text.out;
    const test::CliResult temporal =
        test::runCli("analyze", {"temporal", kDlrm, "--cache-dir", cache.path().string(), "--json"});
    ASSERT_EQ(temporal.code, 0) << temporal.err;
    EXPECT_EQ(temporal.out.find("from summaries"), std::string::npos);
}
