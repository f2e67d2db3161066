// strobe-cli sweep runs / sweep compare: exit codes and the JSON document's shape on a generated sweep
// (tests/core/sweep_gen.h: bs=1 and bs=2, 3 repeats, gemm 10 % slower on bs=2).
#include <gtest/gtest.h>

#include <simdjson.h>

#include <cmath>
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
    // Issue 21's rows: step (2 configurations), gpu (5 x 2), then the groups (2 x 2) by |delta_ms|.
    ASSERT_EQ(rows.size(), 16u);
    int flagged = 0;
    size_t i = 0;
    double lastDelta = 1e300;
    for (simdjson::dom::element row : rows) {
        for (const char* key : {"kind", "group", "configuration", "n_runs", "n_steps", "median_ms", "delta_ms",
                                "ci_low_ms", "ci_high_ms", "delta_pct", "ci_low_pct", "ci_high_pct", "significant",
                                "reason"})
            EXPECT_EQ(row[key].error(), simdjson::SUCCESS) << key;
        std::string_view kind, group, configuration;
        ASSERT_EQ(row["kind"].get(kind), simdjson::SUCCESS);
        ASSERT_EQ(row["group"].get(group), simdjson::SUCCESS);
        ASSERT_EQ(row["configuration"].get(configuration), simdjson::SUCCESS);
        EXPECT_EQ(kind, i < 2 ? "step" : i < 12 ? "gpu" : "group") << i;
        ++i;
        int64_t runs = 0, steps = 0;
        ASSERT_EQ(row["n_runs"].get(runs), simdjson::SUCCESS);
        ASSERT_EQ(row["n_steps"].get(steps), simdjson::SUCCESS);
        EXPECT_EQ(runs, 3);
        EXPECT_EQ(steps, 12);
        if (configuration == "bs=1") {
            EXPECT_TRUE(row["delta_ms"].is_null());  // the baseline itself
            EXPECT_TRUE(row["significant"].is_null());
            std::string_view reason;
            ASSERT_EQ(row["reason"].get(reason), simdjson::SUCCESS);
            EXPECT_EQ(reason, "baseline");
            continue;
        }
        bool significant = false;
        ASSERT_EQ(row["significant"].get(significant), simdjson::SUCCESS);
        EXPECT_TRUE(row["reason"].is_null());
        if (kind != "group") continue;
        double delta = 0;
        ASSERT_EQ(row["delta_ms"].get(delta), simdjson::SUCCESS);
        EXPECT_LE(std::abs(delta), lastDelta);
        lastDelta = std::abs(delta);
        if (significant) {
            ++flagged;
            EXPECT_EQ(group, "gemm");
            EXPECT_NEAR(delta, 100e-6, 1e-9);  // 1100 - 1000 ns per step
        }
    }
    EXPECT_EQ(flagged, 1);
    const auto text = test::runCli("sweep", {"compare", "--no-cache", "--baseline", "bs=1", dir.path().string()});
    ASSERT_EQ(text.code, kExitOk) << text.err;
    EXPECT_NE(text.out.find("Δ_ms/step"), std::string::npos) << text.out;
    EXPECT_LT(text.out.find("\nstep "), text.out.find("gemm")) << text.out;
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
