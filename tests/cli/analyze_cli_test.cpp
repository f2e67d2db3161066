// strobe-cli analyze: --list, usage errors and exit codes, and CSV/JSON output with the documented columns on
// the bundled 8-rank sample.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "app/cli/command.h"
#include "core/analysis/registry.h"
#include "tests/cli/cli_capture.h"
#include "tests/test_paths.h"

using namespace strobe;
namespace fs = std::filesystem;

namespace {

using test::CliResult;

CliResult runAnalyze(const std::vector<std::string>& args) { return test::runCli("analyze", args); }

const std::string kSample = std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank";

}  // namespace

TEST(AnalyzeCli, ListNamesEveryAnalysisWithOptionsAndColumns) {
    auto r = runAnalyze({"--list"});
    EXPECT_EQ(r.code, app::kExitOk);
    for (const char* name : {"temporal", "kernel-types", "overlap", "idle", "straggler", "launch", "phases", "window",
                             "kernels", "memory"})
        EXPECT_NE(r.out.find(std::string(name) + "\n"), std::string::npos) << name;
    EXPECT_NE(r.out.find("--kernel-wait-ns int"), std::string::npos);
    EXPECT_NE(r.out.find("columns: rank, window_ns, idle_ns, compute_ns, non_compute_ns, idle_pct, compute_pct, "
                         "non_compute_pct"),
              std::string::npos);
    EXPECT_NE(r.out.find("columns: rank, stream, cause, idle_ns, ratio"), std::string::npos);
    EXPECT_NE(r.out.find("columns: rank, name, category, count, total_ns, mean_ns, median_ns, p5_ns, p95_ns, "
                         "stddev_ns, cv"),
              std::string::npos);
}

TEST(AnalyzeCli, UsageErrorsExitTwo) {
    EXPECT_EQ(runAnalyze({}).code, app::kExitUsage);
    EXPECT_EQ(runAnalyze({"no-such-analysis", kSample}).code, app::kExitUsage);
    EXPECT_EQ(runAnalyze({"temporal"}).code, app::kExitUsage);  // no path
    EXPECT_EQ(runAnalyze({"temporal", kSample, "--window", "yesterday"}).code, app::kExitUsage);
    EXPECT_EQ(runAnalyze({"temporal", kSample, "--steps", "a,b"}).code, app::kExitUsage);
    EXPECT_EQ(runAnalyze({"temporal", kSample, "--json", "--csv", "x.csv"}).code, app::kExitUsage);
    EXPECT_EQ(runAnalyze({"temporal", kSample, "--kernel-wait-ns", "5"}).code, app::kExitUsage);  // idle's option
    auto r = runAnalyze({"idle", kSample, "--kernel-wait-ns"});  // missing value
    EXPECT_EQ(r.code, app::kExitUsage);
    EXPECT_FALSE(r.err.empty());
}

// Strict coercion from `--OPTION value`: an integer option given 2.5 or abc is a usage error naming the option
// and the value (before the run is loaded).
TEST(AnalyzeCli, OptionValuesAreCoercedStrictly) {
    for (const char* given : {"2.5", "abc"}) {
        auto r = runAnalyze({"kernels", kSample, "--top", given});
        EXPECT_EQ(r.code, app::kExitUsage) << given;
        EXPECT_TRUE(r.out.empty());
        EXPECT_NE(r.err.find("'top'"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find(std::string("'") + given + "'"), std::string::npos) << r.err;
    }
    auto e = runAnalyze({"kernel-types", kSample, "--view", "sideways"});
    EXPECT_EQ(e.code, app::kExitUsage);
    EXPECT_NE(e.err.find("'sideways'"), std::string::npos) << e.err;
}

// The command's own options and the analysis' parameters go through the same typed parser: the inline form is
// coerced too, and a valid value reaches the analysis (kernels --top N: N rows per rank, the sample's 8 ranks
// each run more than 3 distinct kernels).
TEST(AnalyzeCli, TypedOptionsInlineAndValid) {
    auto bad = runAnalyze({"kernels", kSample, "--top=2.5"});
    EXPECT_EQ(bad.code, app::kExitUsage);
    EXPECT_NE(bad.err.find("'--top'"), std::string::npos) << bad.err;
    EXPECT_NE(bad.err.find("'2.5'"), std::string::npos) << bad.err;
    auto window = runAnalyze({"temporal", kSample, "--window", "7x"});
    EXPECT_EQ(window.code, app::kExitUsage);
    EXPECT_NE(window.err.find("'7x'"), std::string::npos) << window.err;
    auto flag = runAnalyze({"temporal", kSample, "--json=yes"});
    EXPECT_EQ(flag.code, app::kExitUsage);
    EXPECT_NE(flag.err.find("'--json'"), std::string::npos) << flag.err;
    EXPECT_NE(flag.err.find("'yes'"), std::string::npos) << flag.err;
    for (int top : {2, 3}) {
        auto r = runAnalyze({"kernels", kSample, "--top", std::to_string(top), "--json", "--no-cache"});
        ASSERT_EQ(r.code, app::kExitOk) << r.err;
        simdjson::dom::parser parser;
        simdjson::dom::element doc;
        ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS);
        simdjson::dom::array rows;
        ASSERT_EQ(doc["rows"].get(rows), simdjson::SUCCESS);
        EXPECT_EQ(rows.size(), 8u * static_cast<size_t>(top));
    }
}

// An analysis' options are checked before any trace is loaded: with a path that does not exist, the error names
// the option (exit 2), not the file. Choices from core/analysis/kernel_stats.cpp (group-by name|category|regex).
TEST(AnalyzeCli, OptionsAreCheckedBeforeAnyTraceIsLoaded) {
    const std::string missing = "/nonexistent/strobe/never_loaded_trace.json";
    struct Case {
        std::vector<std::string> args;
        std::vector<std::string> expected;
    };
    const std::vector<Case> cases = {
        {{"kernels", missing, "--group-by", "stack"}, {"'group-by'", "'stack' is not one of: name, category, regex"}},
        {{"kernels", missing, "--top", "2.5"}, {"'top'", "'2.5'"}},
        {{"kernels", missing, "--colour", "red"}, {"unknown option '--colour'"}},
    };
    for (const auto& c : cases) {
        auto r = runAnalyze(c.args);
        EXPECT_EQ(r.code, app::kExitUsage) << r.err;
        for (const auto& e : c.expected) EXPECT_NE(r.err.find(e), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find(missing), std::string::npos) << "the file was looked at first: " << r.err;
    }
}

TEST(AnalyzeCli, MissingInputExitsThree) {
    auto r = runAnalyze({"temporal", "/nonexistent/strobe/trace.json"});
    EXPECT_EQ(r.code, app::kExitBadInput);
    EXPECT_NE(r.err.find("/nonexistent/strobe/trace.json"), std::string::npos);
}

TEST(AnalyzeCli, JsonDocumentHasRowsWithTheDocumentedColumns) {
    auto r = runAnalyze({"temporal", kSample, "--window", "hta", "--json", "--no-cache"});
    ASSERT_EQ(r.code, app::kExitOk) << r.err;
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out.substr(0, 500);
    std::string_view analysis, window;
    ASSERT_EQ(doc["analysis"].get(analysis), simdjson::SUCCESS);
    EXPECT_EQ(analysis, "temporal");
    ASSERT_EQ(doc["window"].get(window), simdjson::SUCCESS);
    EXPECT_EQ(window, "hta");
    simdjson::dom::array rows;
    ASSERT_EQ(doc["rows"].get(rows), simdjson::SUCCESS);
    EXPECT_EQ(rows.size(), 8u);  // one per rank of the sample
    for (auto row : rows) {
        for (const char* col : {"rank", "window_ns", "idle_ns", "compute_ns", "non_compute_ns", "idle_pct",
                                "compute_pct", "non_compute_pct"}) {
            simdjson::dom::element v;
            EXPECT_EQ(row[col].get(v), simdjson::SUCCESS) << col;
        }
        int64_t win = 0, idle = 0, comp = 0, non = 0;
        ASSERT_EQ(row["window_ns"].get(win), simdjson::SUCCESS);
        ASSERT_EQ(row["idle_ns"].get(idle), simdjson::SUCCESS);
        ASSERT_EQ(row["compute_ns"].get(comp), simdjson::SUCCESS);
        ASSERT_EQ(row["non_compute_ns"].get(non), simdjson::SUCCESS);
        EXPECT_EQ(idle + comp + non, win);
    }
}

TEST(AnalyzeCli, CsvFileHasTheHeaderAndOneLinePerRow) {
    const fs::path out = fs::temp_directory_path() / ("strobe_analyze_" + std::to_string(::getpid()) + ".csv");
    auto r = runAnalyze({"overlap", kSample, "--csv", out.string(), "--no-cache"});
    ASSERT_EQ(r.code, app::kExitOk) << r.err;
    std::ifstream f(out);
    std::string header;
    std::getline(f, header);
    EXPECT_EQ(header, "rank,comm_ns,comp_ns,overlap_ns,overlap_pct\r");
    int lines = 0;
    for (std::string l; std::getline(f, l);) ++lines;
    EXPECT_EQ(lines, 8);
    fs::remove(out);
}
