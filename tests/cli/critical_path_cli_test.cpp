// strobe-cli analyze critical-path / what-if (issue 26): the analyze JSON envelope with the path beside the rows,
// repeated --scale, usage errors.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "tests/cli/cli_capture.h"
#include "tests/test_paths.h"

namespace {

using strobe::test::CliResult;

const std::string kCpAlexnet = std::string(STROBE_TEST_DATA_DIR) + "/kineto/hta/critical_path/alexnet";
const std::string kCpAnnotation = "[param|pytorch.model.alex_net|0|0|0|measure|forward]";

TEST(CriticalPathCli, JsonHasTheEnvelopeAndThePath) {
    CliResult r = strobe::test::runCli("analyze", {"critical-path", kCpAlexnet, "--annotation", kCpAnnotation,
                                                   "--instance", "1", "--definition", "hta", "--json", "--no-cache"});
    ASSERT_EQ(r.code, 0) << r.err;
    simdjson::dom::parser p;
    simdjson::dom::element doc;
    ASSERT_FALSE(p.parse(r.out).get(doc)) << r.out;
    EXPECT_EQ(std::string(doc["analysis"].get_string().value_unsafe()), "critical-path");
    EXPECT_NE(std::string(doc["window"].get_string().value_unsafe()).find("instance 1"), std::string::npos);
    auto cols = doc["columns"].get_array().value_unsafe();
    ASSERT_EQ(cols.size(), 3u);
    EXPECT_EQ(std::string(cols.at(0).get_string().value_unsafe()), "bound_by");
    double shares = 0;
    for (auto row : doc["rows"].get_array()) shares += row["share"].get_double().value_unsafe();
    EXPECT_NEAR(shares, 1.0, 1e-9);
    // HTA's length for this window: 35834 µs (tests/data/expected/critical_path/hta_alexnet.json).
    EXPECT_NEAR(static_cast<double>(doc["length_ns"].get_int64().value_unsafe()), 35'834'000.0, 358'340.0);
    auto path = doc["path"].get_array().value_unsafe();
    ASSERT_GT(path.size(), 0u);
    for (auto seg : path) {
        EXPECT_EQ(seg["rank"].get_int64().value_unsafe(), 0);
        EXPECT_FALSE(seg["kind"].error());
        EXPECT_FALSE(seg["name"].error());
        EXPECT_LE(seg["start_ns"].get_int64().value_unsafe(), seg["end_ns"].get_int64().value_unsafe());
    }
}

TEST(CriticalPathCli, WhatIfTakesRepeatedScales) {
    CliResult r = strobe::test::runCli("analyze", {"what-if", kCpAlexnet, "--annotation", kCpAnnotation, "--instance",
                                                   "1", "--scale", "op:cudaMalloc=0", "--scale", "category:gemm=0.5",
                                                   "--json", "--no-cache"});
    ASSERT_EQ(r.code, 0) << r.err;
    simdjson::dom::parser p;
    simdjson::dom::element doc;
    ASSERT_FALSE(p.parse(r.out).get(doc)) << r.out;
    auto rows = doc["rows"].get_array().value_unsafe();
    ASSERT_GE(rows.size(), 3u);
    EXPECT_EQ(std::string(rows.at(1)["kind"].get_string().value_unsafe()), "scaled");
    EXPECT_EQ(std::string(rows.at(1)["group"].get_string().value_unsafe()), "op:cudaMalloc=0 category:gemm=0.5");
    EXPECT_LT(doc["scaled_length_ns"].get_int64().value_unsafe(), doc["length_ns"].get_int64().value_unsafe());
    EXPECT_EQ(std::string(rows.at(2)["kind"].get_string().value_unsafe()), "2x");
}

TEST(CriticalPathCli, WhatIfWithoutScalesRanksOnly) {
    CliResult r = strobe::test::runCli("analyze", {"what-if", kCpAlexnet, "--json", "--no-cache"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("the 2x ranking only"), std::string::npos);
    EXPECT_EQ(r.out.find("\"scaled\""), std::string::npos);
}

TEST(CriticalPathCli, UsageErrorsExitTwo) {
    EXPECT_EQ(strobe::test::runCli("analyze", {"what-if", kCpAlexnet, "--scale", "gemm", "--no-cache"}).code, 2);
    EXPECT_EQ(strobe::test::runCli("analyze", {"critical-path", kCpAlexnet, "--definition", "xla", "--no-cache"}).code, 2);
    EXPECT_EQ(strobe::test::runCli("analyze", {"critical-path", kCpAlexnet, "--step", "3", "--annotation", "x",
                                               "--no-cache"})
                  .code,
              2);
}

}  // namespace
