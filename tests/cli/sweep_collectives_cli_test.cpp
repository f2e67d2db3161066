// strobe-cli sweep collectives: the JSON envelope (schema 1) and row shape on the generated 4-rank sweep with an
// injected straggler (tests/core/collectives_gen.h), and the text table.
#include <gtest/gtest.h>

#include <simdjson.h>

#include <string>
#include <string_view>

#include "tests/cli/cli_capture.h"
#include "tests/core/collectives_gen.h"
#include "tests/test_files.h"

namespace strobe::app {
namespace {

TEST(SweepCollectivesCli, JsonRowsPerConfigurationAndType) {
    test::TempDir dir("strobe-sweep-coll-cli");
    test::writeCollectiveSweep(dir.path());
    const auto r = test::runCli("sweep", {"collectives", "--json", "--no-cache", dir.path().string()});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    simdjson::dom::parser parser;
    simdjson::padded_string padded(r.out);
    simdjson::dom::element root;
    ASSERT_EQ(parser.parse(padded).get(root), simdjson::SUCCESS) << r.out;
    int64_t schema = 0;
    ASSERT_EQ(root["schema"].get(schema), simdjson::SUCCESS);
    EXPECT_EQ(schema, 1);
    for (const char* key : {"method", "confidence", "baseline", "messages"})
        EXPECT_NE(root[key].error(), simdjson::NO_SUCH_FIELD) << key;
    simdjson::dom::array rows;
    ASSERT_EQ(root["rows"].get(rows), simdjson::SUCCESS);
    ASSERT_EQ(rows.size(), 2u);  // channels=1 and channels=2, all_reduce each
    simdjson::dom::element first = rows.at(0);
    for (const char* key : {"config", "parameters", "collective", "count", "bytes", "latency_mean_ns",
                            "latency_p50_ns", "latency_p99_ns", "algbw_gbps", "busbw_gbps", "start_skew_p50_ns",
                            "start_skew_max_ns", "wait_mean_ns"})
        EXPECT_NE(first[key].error(), simdjson::NO_SUCH_FIELD) << key;
    std::string_view collective, channels;
    ASSERT_EQ(first["collective"].get(collective), simdjson::SUCCESS);
    ASSERT_EQ(first["parameters"]["channels"].get(channels), simdjson::SUCCESS);
    EXPECT_EQ(collective, "all_reduce");
    EXPECT_EQ(channels, "1");
    // 3 steps x 2 repeats; the injected 200 us late arrival of rank 3 is the start skew (values in the core test).
    int64_t count = 0;
    double skew = 0, bytes = 0;
    ASSERT_EQ(first["count"].get(count), simdjson::SUCCESS);
    ASSERT_EQ(first["start_skew_max_ns"].get(skew), simdjson::SUCCESS);
    ASSERT_EQ(first["bytes"].get(bytes), simdjson::SUCCESS);
    EXPECT_EQ(count, 6);
    EXPECT_DOUBLE_EQ(skew, 200000.0);
    EXPECT_DOUBLE_EQ(bytes, 4194304.0);

    const auto text = test::runCli("sweep", {"collectives", "--no-cache", "--skip-steps", "1", dir.path().string()});
    ASSERT_EQ(text.code, kExitOk) << text.err;
    EXPECT_NE(text.out.find("busbw_GB/s"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("channels=2"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace strobe::app
