// strobe-cli diff (issue 22): the --json document's shape on the V100/MI300X ResNet pair, and the --sweep --a/--b
// form on the seismic-stencils runs (tests/data/diff); usage errors.
#include <gtest/gtest.h>

#include <simdjson.h>

#include <cmath>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tests/cli/cli_capture.h"
#include "tests/cli/cli_json.h"
#include "tests/test_paths.h"

namespace strobe::app {
namespace {

using test::Json;

std::string dataPath(const std::string& relative) { return std::string(STROBE_TEST_DATA_DIR) + "/" + relative; }

TEST(DiffCli, JsonHasTheSchemaOfIssue22) {
    const auto r = test::runCli("diff", {"--json", "--no-cache", dataPath("kineto/kineto-configs/resnet50_num_workers_0"),
                                         dataPath("kineto/tracelens")});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    Json j(r.out);
    ASSERT_TRUE(j.ok) << r.out.substr(0, 400);
    int64_t schema = 0;
    ASSERT_EQ(j.root["schema"].get(schema), simdjson::SUCCESS);
    EXPECT_EQ(schema, 1);
    uint64_t steps = 0;
    ASSERT_EQ(j.root["a"]["steps"].get(steps), simdjson::SUCCESS);
    EXPECT_EQ(steps, 6u);
    ASSERT_EQ(j.root["b"]["steps"].get(steps), simdjson::SUCCESS);
    EXPECT_EQ(steps, 3u);
    std::string_view mode;
    ASSERT_EQ(j.root["mode"].get(mode), simdjson::SUCCESS);
    EXPECT_EQ(mode, "call_site");
    for (const char* k : {"nodes_a", "nodes_b", "matched"}) {
        uint64_t v = 0;
        EXPECT_EQ(j.root["match"][k].get(v), simdjson::SUCCESS) << k;
        EXPECT_GT(v, 0u) << k;
    }
    for (const char* k : {"time_share_a", "time_share_b"}) {
        double v = -1;
        EXPECT_EQ(j.root["match"][k].get(v), simdjson::SUCCESS) << k;
        EXPECT_TRUE(v > 0 && v <= 1) << k;
    }
    simdjson::dom::array rows;
    ASSERT_EQ(j.root["rows"].get(rows), simdjson::SUCCESS);
    ASSERT_GT(rows.size(), 100u);
    const std::set<std::string_view> statuses{"added", "removed", "changed", "same"};
    size_t depth = 0;
    bool sawConv = false;
    for (auto row : rows) {
        simdjson::dom::array path;
        ASSERT_EQ(row["path"].get(path), simdjson::SUCCESS);
        ASSERT_GE(path.size(), 1u);
        EXPECT_LE(path.size(), depth + 1) << "tree order: a row is at most one below the row before it";
        depth = path.size();
        double a = 0, b = 0, delta = 0, ca = 0, cb = 0;
        ASSERT_EQ(row["per_step_ns_a"].get(a), simdjson::SUCCESS);
        ASSERT_EQ(row["per_step_ns_b"].get(b), simdjson::SUCCESS);
        ASSERT_EQ(row["delta_ns"].get(delta), simdjson::SUCCESS);
        ASSERT_EQ(row["count_a"].get(ca), simdjson::SUCCESS);
        ASSERT_EQ(row["count_b"].get(cb), simdjson::SUCCESS);
        EXPECT_NEAR(delta, b - a, 1e-6 * std::max(1.0, std::abs(b - a)));
        std::string_view status;
        ASSERT_EQ(row["status"].get(status), simdjson::SUCCESS);
        EXPECT_TRUE(statuses.count(status)) << status;
        if (status == "added") {
            EXPECT_EQ(a, 0.0);
        }
        if (status == "removed") {
            EXPECT_EQ(b, 0.0);
        }
        std::string_view first;
        ASSERT_EQ(path.at(0).get(first), simdjson::SUCCESS);
        if (path.size() == 1 && first == "aten::conv2d") {
            sawConv = true;
            EXPECT_EQ(status, "changed");
            EXPECT_EQ(ca, 53.0);
            EXPECT_EQ(cb, 20.0);
        }
    }
    EXPECT_TRUE(sawConv);
}

TEST(DiffCli, SweepConfigurationsByKeyValueDiffByKernelName) {
    const auto r = test::runCli("diff", {"--json", "--no-cache", "--sweep", dataPath("diff/seismic-stencils"), "--a",
                                         "arg5=128", "--b", "arg5=64"});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    Json j(r.out);
    ASSERT_TRUE(j.ok) << r.out.substr(0, 400);
    uint64_t runs = 0;
    ASSERT_EQ(j.root["a"]["runs"].get(runs), simdjson::SUCCESS);
    EXPECT_EQ(runs, 2u);
    ASSERT_EQ(j.root["b"]["runs"].get(runs), simdjson::SUCCESS);
    EXPECT_EQ(runs, 1u);
    std::string_view mode, per;
    ASSERT_EQ(j.root["mode"].get(mode), simdjson::SUCCESS);
    EXPECT_EQ(mode, "kernel_name");
    ASSERT_EQ(j.root["a"]["per"].get(per), simdjson::SUCCESS);
    EXPECT_EQ(per, "run");
    simdjson::dom::array messages;
    ASSERT_EQ(j.root["messages"].get(messages), simdjson::SUCCESS);
    std::string_view m0;
    ASSERT_EQ(messages.at(0).get(m0), simdjson::SUCCESS);
    EXPECT_NE(m0.find("diffed by kernel name"), std::string_view::npos) << m0;
    uint64_t matched = 0;
    ASSERT_EQ(j.root["match"]["matched"].get(matched), simdjson::SUCCESS);
    EXPECT_EQ(matched, 10u);
    simdjson::dom::array rows;
    ASSERT_EQ(j.root["rows"].get(rows), simdjson::SUCCESS);
    EXPECT_EQ(rows.size(), 16u);
}

TEST(DiffCli, UsageErrors) {
    EXPECT_EQ(test::runCli("diff", {dataPath("kineto/tracelens")}).code, kExitUsage);
    EXPECT_EQ(test::runCli("diff", {"--sweep", dataPath("diff/seismic-stencils"), "--a", "arg5=128"}).code, kExitUsage);
    const auto none = test::runCli("diff", {"--sweep", dataPath("diff/seismic-stencils"), "--a", "arg5=128", "--b",
                                            "arg5=32"});
    EXPECT_EQ(none.code, kExitBadInput);
    EXPECT_NE(none.err.find("no run of the sweep has arg5=32"), std::string::npos) << none.err;
    EXPECT_EQ(test::runCli("diff", {dataPath("nope"), dataPath("kineto/tracelens")}).code, kExitBadInput);
}

}  // namespace
}  // namespace strobe::app
