// strobe-cli sweep gemm-overlap: the JSON document's shape on a two-configuration sweep made of the real DLRM sample
// (nccl=1 and nccl=2 hold the same 8 ranks), its numbers against tests/data/expected/kernel_overlap.py, --instances,
// the text table and the exit codes.
#include <filesystem>
#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "tests/cli/cli_capture.h"
#include "tests/cli/cli_json.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

namespace strobe::app {
namespace {

using test::Json;

// Two configurations (directory names nccl=1, nccl=2), each a copy of the 8-rank DLRM sample.
void writeTwoConfigs(const std::filesystem::path& dir) {
    const std::filesystem::path src = std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank";
    for (const char* config : {"nccl=1", "nccl=2"}) {
        std::filesystem::create_directories(dir / config);
        for (const auto& f : std::filesystem::directory_iterator(src))
            if (f.path().extension() == ".json") std::filesystem::copy_file(f.path(), dir / config / f.path().filename());
    }
}

TEST(SweepOverlapCli, JsonRowsPerConfigurationAndGroup) {
    test::TempDir dir("strobe-sweep-overlap-cli");
    writeTwoConfigs(dir.path());
    const auto r = test::runCli("sweep", {"gemm-overlap", "--json", "--no-cache", "--top", "2", dir.path().string()});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    Json j(r.out);
    ASSERT_TRUE(j.ok) << r.out;
    int64_t schema = 0;
    ASSERT_EQ(j.root["schema"].get(schema), simdjson::SUCCESS);
    EXPECT_EQ(schema, 1);
    for (const char* key : {"method", "confidence", "baseline", "messages"})
        EXPECT_EQ(j.root[key].error(), simdjson::SUCCESS) << key;
    simdjson::dom::array rows, ranks;
    ASSERT_EQ(j.root["rows"].get(rows), simdjson::SUCCESS);
    ASSERT_EQ(rows.size(), 4u);  // 2 groups x 2 configurations
    for (simdjson::dom::element row : rows)
        for (const char* key : {"group", "config", "instances", "overlapped_instances", "per_step_ns", "total_ns",
                                "overlapped_ns", "overlapped_share", "mean_overlapped_ns", "median_overlapped_ns",
                                "mean_alone_ns", "median_alone_ns", "slowdown", "slowdown_mean"})
            EXPECT_EQ(row[key].error(), simdjson::SUCCESS) << key;
    // The largest GEMM group; kernel_overlap.py: volta_sgemm_128x32_nt has 56 instances over the 8 ranks, 9 of
    // them overlapping communication for 61000 ns of its 409000 ns.
    std::string_view group, nccl;
    int64_t instances = 0, overlapped = 0;
    double share = 0;
    simdjson::dom::element first = rows.at(0);
    ASSERT_EQ(first["group"].get(group), simdjson::SUCCESS);
    ASSERT_EQ(first["config"]["nccl"].get(nccl), simdjson::SUCCESS);
    ASSERT_EQ(first["instances"].get(instances), simdjson::SUCCESS);
    ASSERT_EQ(first["overlapped_instances"].get(overlapped), simdjson::SUCCESS);
    ASSERT_EQ(first["overlapped_share"].get(share), simdjson::SUCCESS);
    EXPECT_EQ(group, "volta_sgemm_128x32_nt");
    EXPECT_EQ(nccl, "1");
    EXPECT_EQ(instances, 56);
    EXPECT_EQ(overlapped, 9);
    EXPECT_NEAR(share, 61000.0 / 409000.0, 1e-12);
    ASSERT_EQ(rows.at(1)["config"]["nccl"].get(nccl), simdjson::SUCCESS);
    EXPECT_EQ(nccl, "2");
    // Per configuration and rank: HTA's overlap (rank 0: 4.5016 %, kernel_overlap.py).
    ASSERT_EQ(j.root["ranks"].get(ranks), simdjson::SUCCESS);
    ASSERT_EQ(ranks.size(), 16u);
    double pct = 0;
    ASSERT_EQ(ranks.at(0)["overlap_pct"].get(pct), simdjson::SUCCESS);
    EXPECT_NEAR(pct, 4.501552259399793, 1e-9);
}

TEST(SweepOverlapCli, InstancesListTheCollectives) {
    const std::string dlrm = std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank";
    const auto r = test::runCli("sweep", {"gemm-overlap", "--json", "--no-cache", "--instances", "--top", "1", dlrm});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    Json j(r.out);
    ASSERT_TRUE(j.ok) << r.out;
    simdjson::dom::array rows;
    ASSERT_EQ(j.root["rows"].get(rows), simdjson::SUCCESS);
    ASSERT_EQ(rows.size(), 56u);
    for (simdjson::dom::element row : rows)
        for (const char* key : {"group", "config", "run", "rank", "start_ns", "dur_ns", "overlapped_ns", "collectives"})
            EXPECT_EQ(row[key].error(), simdjson::SUCCESS) << key;
    // kernel_overlap.py, rank 0: the third instance starts at 1694128201436463 us, runs 6 us, all of it during
    // ncclKernel_AllReduce_RING_LL_Sum_float.
    simdjson::dom::element third = rows.at(2);
    int64_t start = 0, overlappedNs = 0, overlapNs = 0;
    std::string_view name;
    ASSERT_EQ(third["start_ns"].get(start), simdjson::SUCCESS);
    ASSERT_EQ(third["overlapped_ns"].get(overlappedNs), simdjson::SUCCESS);
    ASSERT_EQ(third["collectives"].at(0)["name"].get(name), simdjson::SUCCESS);
    ASSERT_EQ(third["collectives"].at(0)["overlap_ns"].get(overlapNs), simdjson::SUCCESS);
    EXPECT_EQ(start, 1694128201436463000);
    EXPECT_EQ(overlappedNs, 6000);
    EXPECT_EQ(overlapNs, 6000);
    EXPECT_TRUE(name.starts_with("ncclKernel_AllReduce_RING_LL_Sum_float")) << name;

    const auto text = test::runCli("sweep", {"gemm-overlap", "--no-cache", dlrm});
    ASSERT_EQ(text.code, kExitOk) << text.err;
    EXPECT_NE(text.out.find("slowdown"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("volta_sgemm_128x32_nt"), std::string::npos) << text.out;
}

TEST(SweepOverlapCli, ExitCodes) {
    const std::string dlrm = std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank";
    EXPECT_EQ(test::runCli("sweep", {"gemm-overlap"}).code, kExitUsage);
    EXPECT_EQ(test::runCli("sweep", {"gemm-overlap", "--baseline", "x=1", dlrm}).code, kExitUsage);
    EXPECT_EQ(test::runCli("sweep", {"gemm-overlap", "--group-by", "colour", "--no-cache", dlrm}).code, kExitUsage);
    EXPECT_EQ(test::runCli("sweep", {"gemm-overlap", dlrm + "/missing"}).code, kExitBadInput);
}

}  // namespace
}  // namespace strobe::app
