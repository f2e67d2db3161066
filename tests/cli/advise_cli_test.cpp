// strobe-cli advise (issue 30): the findings document on the bundled DLRM sample (figures: the Python oracle
// tests/data/expected/findings.py, run as `/usr/bin/python3 tests/data/expected/findings.py`), the text table, usage
// errors.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "tests/cli/cli_capture.h"
#include "tests/test_paths.h"

namespace {

using strobe::test::CliResult;

const std::string kAdviseDlrm = std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank";

TEST(AdviseCli, JsonFindingsOrderedByTimeAtStake) {
    CliResult r = strobe::test::runCli("advise", {kAdviseDlrm, "--json", "--no-cache"});
    ASSERT_EQ(r.code, 0) << r.err;
    simdjson::dom::parser p;
    simdjson::dom::element doc;
    ASSERT_FALSE(p.parse(r.out).get(doc)) << r.out;
    EXPECT_EQ(doc["schema"].get_int64().value_unsafe(), 1);
    std::vector<std::string> rules;
    double prev = 1e300;
    for (auto f : doc["findings"].get_array()) {
        rules.emplace_back(f["rule"].get_string().value_unsafe());
        const double ms = f["ms_per_step"].get_double().value_unsafe();
        EXPECT_LE(ms, prev);
        prev = ms;
        const double share = f["share"].get_double().value_unsafe();
        EXPECT_GE(share, 0.01);
        const std::string sev(f["severity"].get_string().value_unsafe());
        EXPECT_EQ(sev, share >= 0.10 ? "high" : share >= 0.03 ? "medium" : "low");
        EXPECT_FALSE(f["evidence"].get_object().error());
        for (auto range : f["ranges"].get_array()) {
            EXPECT_LT(range["start_ns"].get_int64().value_unsafe(), range["end_ns"].get_int64().value_unsafe());
            EXPECT_FALSE(range["rank"].get_int64().error());
        }
    }
    // The oracle's list for this run (tests/data/expected/findings.json, "dlrm" -> "fired"), in its order.
    EXPECT_EQ(rules, (std::vector<std::string>{"launch_bound", "exposed_comm", "straggler", "host_sync",
                                               "dataloader_stall", "small_elementwise", "gemm_below_peak"}));
}

TEST(AdviseCli, TextIsARankedTableWithWhatToTry) {
    CliResult r = strobe::test::runCli("advise", {kAdviseDlrm, "--no-cache", "--no-critical-path"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("rule"), std::string::npos);
    EXPECT_NE(r.out.find("exposed_comm"), std::string::npos);
    EXPECT_NE(r.out.find("try: "), std::string::npos);
    EXPECT_NE(r.out.find("critical path not asked for"), std::string::npos);
}

TEST(AdviseCli, UsageErrors) {
    CliResult none = strobe::test::runCli("advise", {});
    EXPECT_EQ(none.code, 2);
    EXPECT_NE(none.err.find("expected at least one trace"), std::string::npos);
    CliResult missing = strobe::test::runCli("advise", {kAdviseDlrm + "/does-not-exist"});
    EXPECT_EQ(missing.code, 3);
    EXPECT_NE(missing.err.find("does-not-exist: no such file"), std::string::npos);
    CliResult bogus = strobe::test::runCli("advise", {"--bogus", kAdviseDlrm});
    EXPECT_EQ(bogus.code, 2);
}

}  // namespace
