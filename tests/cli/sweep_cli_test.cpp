// strobe-cli sweep runs / sweep compare: exit codes and the JSON document's shape on a generated sweep
// (tests/core/sweep_gen.h: bs=1 and bs=2, 3 repeats, gemm 10 % slower on bs=2).
#include <gtest/gtest.h>

#include <simdjson.h>

#include <string>
#include <string_view>
#include <vector>

#include "tests/cli/cli_json.h"
#include "tests/cli/cli_capture.h"
#include "tests/core/sweep_gen.h"
#include "tests/test_files.h"

namespace strobe::app {
namespace {

using test::Json;

TEST(SweepCli, RunsListsEveryRunWithItsParameters) {
    test::TempDir dir("strobe-sweep-cli");
    test::writeGeneratedSweep(dir.path());
    const auto r = test::runCli("sweep", {"runs", "--json", "--no-cache", dir.path().string()});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    Json j(r.out);
    ASSERT_TRUE(j.ok) << r.out;
    int64_t schema = 0;
    ASSERT_EQ(j.root["schema"].get(schema), simdjson::SUCCESS);
    EXPECT_EQ(schema, 1);
    EXPECT_TRUE(j.root["method"].is_null());
    simdjson::dom::array rows;
    ASSERT_EQ(j.root["rows"].get(rows), simdjson::SUCCESS);
    ASSERT_EQ(rows.size(), 6u);
    int64_t kernels = 0, repeat = -1, ranks = 0;
    std::string_view bs;
    simdjson::dom::element last = rows.at(5);
    ASSERT_EQ(last["kernels"].get(kernels), simdjson::SUCCESS);
    ASSERT_EQ(last["repeat"].get(repeat), simdjson::SUCCESS);
    ASSERT_EQ(last["ranks"].get(ranks), simdjson::SUCCESS);
    ASSERT_EQ(last["parameters"]["bs"].get(bs), simdjson::SUCCESS);
    EXPECT_EQ(kernels, 8);  // 4 steps x (gemm + relu)
    EXPECT_EQ(repeat, 2);
    EXPECT_EQ(ranks, 1);
    EXPECT_EQ(bs, "2");

    const auto text = test::runCli("sweep", {"runs", "--no-cache", dir.path().string()});
    ASSERT_EQ(text.code, kExitOk) << text.err;
    EXPECT_NE(text.out.find("parameters"), std::string::npos) << text.out;
}

TEST(SweepCli, CompareFlagsTheSlowerKernelOnly) {
    test::TempDir dir("strobe-sweep-cli");
    test::writeGeneratedSweep(dir.path());
    const auto r = test::runCli("sweep", {"compare", "--json", "--no-cache", "--baseline", "bs=1", dir.path().string()});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    Json j(r.out);
    ASSERT_TRUE(j.ok) << r.out;
    std::string_view method, baseline;
    ASSERT_EQ(j.root["method"].get(method), simdjson::SUCCESS);
    ASSERT_EQ(j.root["baseline"].get(baseline), simdjson::SUCCESS);
    EXPECT_EQ(baseline, "bs=1");
    double confidence = 0;
    ASSERT_EQ(j.root["confidence"].get(confidence), simdjson::SUCCESS);
    EXPECT_DOUBLE_EQ(confidence, 0.95);
    simdjson::dom::array rows;
    ASSERT_EQ(j.root["rows"].get(rows), simdjson::SUCCESS);
    ASSERT_EQ(rows.size(), 4u);
    int flagged = 0;
    for (simdjson::dom::element row : rows) {
        for (const char* key : {"group", "config", "count", "per_step_ns", "mean_ns", "median_ns", "p5_ns", "p95_ns",
                                "stddev_ns", "cv", "delta_pct", "ci_low_pct", "ci_high_pct", "significant"})
            EXPECT_EQ(row[key].error(), simdjson::SUCCESS) << key;
        bool significant = false;
        ASSERT_EQ(row["significant"].get(significant), simdjson::SUCCESS);
        std::string_view group, bs;
        ASSERT_EQ(row["group"].get(group), simdjson::SUCCESS);
        ASSERT_EQ(row["config"]["bs"].get(bs), simdjson::SUCCESS);
        if (significant) {
            ++flagged;
            EXPECT_EQ(group, "gemm");
            EXPECT_EQ(bs, "2");
        }
        if (bs == "1") {
            EXPECT_TRUE(row["delta_pct"].is_null());  // the baseline itself
        }
    }
    EXPECT_EQ(flagged, 1);
}

TEST(SweepCli, ExitCodes) {
    test::TempDir dir("strobe-sweep-cli");
    test::writeGeneratedSweep(dir.path(), 1);
    const std::string d = dir.path().string();
    EXPECT_EQ(test::runCli("sweep", {}).code, kExitUsage);
    EXPECT_EQ(test::runCli("sweep", {"frobnicate", d}).code, kExitUsage);
    EXPECT_EQ(test::runCli("sweep", {"compare"}).code, kExitUsage);
    EXPECT_EQ(test::runCli("sweep", {"runs", "--baseline", "bs=1", d}).code, kExitUsage);  // compare's option
    EXPECT_EQ(test::runCli("sweep", {"compare", "--group-by", "colour", d}).code, kExitUsage);
    EXPECT_EQ(test::runCli("sweep", {"compare", "--no-cache", "--baseline", "bs=9", d}).code, kExitUsage);
    EXPECT_EQ(test::runCli("sweep", {"compare", (dir.path() / "missing").string()}).code, kExitBadInput);
    const auto one = test::runCli("sweep", {"compare", "--no-cache", "--json", "--group-by", "category", d});
    ASSERT_EQ(one.code, kExitOk) << one.err;
    EXPECT_NE(one.out.find("no noise estimate"), std::string::npos) << one.out;
}

}  // namespace
}  // namespace strobe::app
