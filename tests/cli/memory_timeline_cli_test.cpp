// strobe-cli analyze memory-timeline (issue 27): the analyze JSON envelope with one row per device, its views, on
// TraceLens's normalization trace (expected values: tests/core/memory_timeline_replay.py, see memory_timeline_test).
#include <string>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "tests/cli/cli_capture.h"
#include "tests/test_paths.h"

namespace {

const std::string kMtTrace =
    std::string(STROBE_TEST_DATA_DIR) + "/kineto/memory/tracelens_normalization_layer_test_profile_memory.json.gz";

}  // namespace

TEST(MemoryTimelineCli, JsonRowsPerDevice) {
    auto r = strobe::test::runCli("analyze", {"memory-timeline", kMtTrace, "--json", "--no-cache"});
    ASSERT_EQ(r.code, 0) << r.err;
    simdjson::dom::parser p;
    simdjson::dom::element doc;
    ASSERT_FALSE(p.parse(r.out).get(doc)) << r.out;
    EXPECT_EQ(std::string(doc["analysis"].get_string().value_unsafe()), "memory-timeline");
    auto rows = doc["rows"].get_array().value_unsafe();
    ASSERT_EQ(rows.size(), 2u);
    auto gpu = rows.at(1);
    EXPECT_EQ(std::string(gpu["device_type"].get_string().value_unsafe()), "hip");
    EXPECT_EQ(gpu["device"].get_int64().value_unsafe(), 0);
    EXPECT_EQ(gpu["peak_allocated_bytes"].get_int64().value_unsafe(), 8154624);
    EXPECT_EQ(gpu["peak_reserved_bytes"].get_int64().value_unsafe(), 8388608);
    EXPECT_EQ(gpu["peak_ts_ns"].get_int64().value_unsafe(), 3545057582937663);
    EXPECT_EQ(gpu["running_sum_peak_bytes"].get_int64().value_unsafe(), 7489024);
    EXPECT_EQ(std::string(rows.at(0)["device_type"].get_string().value_unsafe()), "cpu");
    EXPECT_EQ(rows.at(0)["device"].get_int64().value_unsafe(), -1);
}

TEST(MemoryTimelineCli, LiveViewNamesTheOperators) {
    auto r = strobe::test::runCli("analyze", {"memory-timeline", kMtTrace, "--view", "live", "--no-cache"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("aten::layer_norm"), std::string::npos) << r.out;
    EXPECT_EQ(strobe::test::runCli("analyze", {"memory-timeline", kMtTrace, "--view", "sideways"}).code, 2);
}

// strobe-cli analyze ops: one row per operator instance with the documented columns, and the modelled share.
TEST(OpsCli, JsonRowsAndModelledShare) {
    const std::string trace = std::string(STROBE_TEST_DATA_DIR) + "/kineto/tracelens/mi300x_resnet_act_checkpoint_rank0of8.json.gz";
    auto r = strobe::test::runCli("analyze", {"ops", trace, "--json", "--no-cache"});
    ASSERT_EQ(r.code, 0) << r.err;
    simdjson::dom::parser p;
    simdjson::dom::element doc;
    ASSERT_FALSE(p.parse(r.out).get(doc)) << r.out;
    auto rows = doc["rows"].get_array().value_unsafe();
    ASSERT_EQ(rows.size(), 909u);
    simdjson::dom::object row0;
    ASSERT_FALSE(rows.at(0).get_object().get(row0));
    for (const char* c : {"op", "family", "shapes", "dtype", "flops", "bytes", "kernel_ns", "tflops_per_s", "tb_per_s",
                          "intensity", "peak_pct", "bound"}) {
        simdjson::dom::element v;
        EXPECT_FALSE(row0.at_key(c).get(v)) << c;
    }
    std::string messages;
    simdjson::dom::array list;
    ASSERT_FALSE(doc["messages"].get_array().get(list));
    for (simdjson::dom::element m : list) {
        std::string_view text;
        if (!m.get_string().get(text)) messages += std::string(text);
    }
    EXPECT_NE(messages.find("19.4 % of GPU kernel time modelled"), std::string::npos) << messages;
    EXPECT_NE(messages.find("(communication)"), std::string::npos) << messages;
    auto byShape = strobe::test::runCli("analyze", {"ops", trace, "--group-by", "shape", "--no-cache"});
    ASSERT_EQ(byShape.code, 0) << byShape.err;
    EXPECT_NE(byShape.out.find("aten::convolution_backward"), std::string::npos);
}

// Another source (tests/data/expected/memory_sources.py): rocprofv3's allocation trace. (analyze wants a trace:
// telemetry alone is refused, so the smi source is tested in core and in the plots.)
TEST(MemoryTimelineCli, Rocprofv3Source) {
    auto r = strobe::test::runCli(
        "analyze", {"memory-timeline", std::string(STROBE_TEST_DATA_DIR) + "/rocprof/docs-2025/memory_allocation_trace.csv",
                    "--json", "--no-cache"});
    ASSERT_EQ(r.code, 0) << r.err;
    simdjson::dom::parser p;
    simdjson::dom::element doc;
    ASSERT_FALSE(p.parse(r.out).get(doc)) << r.out;
    auto rows = doc["rows"].get_array().value_unsafe();
    ASSERT_EQ(rows.size(), 1u);
    auto row = rows.at(0);
    EXPECT_EQ(std::string(row["source"].get_string().value_unsafe()), "rocprofv3");
    EXPECT_EQ(std::string(row["device_type"].get_string().value_unsafe()), "agent");
    EXPECT_EQ(row["peak_allocated_bytes"].get_int64().value_unsafe(), 2048);
    EXPECT_EQ(row["peak_ts_ns"].get_int64().value_unsafe(), 816098791350331);
}
