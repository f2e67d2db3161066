// nsys stats --format csv reports: built from documentation (no real output was available); the inputs are written
// by hand in the published column layout and the expected values are read off them.
#include <gtest/gtest.h>

#include "core/formats/nsys_stats_csv.h"
#include "core/formats/source_format.h"
#include "core/merge/merge.h"
#include "core/model/classification.h"
#include "core/model/validate.h"
#include "tests/test_paths.h"

namespace strobe::core {
namespace {

TEST(NsysStatsCsv, GpuTrace) {
    const std::string text =
        "\nProcessing [report1.sqlite] with [/opt/nsys/reports/cuda_gpu_trace.py]... \n\n"
        " ** CUDA GPU Trace (cuda_gpu_trace):\n\n"
        "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),"
        "Throughput (MBps),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name\n"
        "1000,500,11,128,1,1,256,1,1,32,0.000,0.004,,,,,NVIDIA H100 (0),1,,7,ampere_sgemm_128x64_nn\n"
        "2000,300,12,,,,,,,,,,4.194,13981.0,Pageable,Device,NVIDIA H100 (0),1,,7,[CUDA memcpy Host-to-Device]\n";
    SniffInput in;
    in.head = text;
    EXPECT_EQ(sniffNsysStatsCsv(in), 75);
    auto r = parseNsysStatsCsv(text, "r_cuda_gpu_trace.csv", {});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    RankData& rank = **r;
    ASSERT_EQ(rank.gpu.size(), 2u);
    EXPECT_EQ(rank.gpu.kind[0], EventKind::Kernel);
    EXPECT_EQ(rank.gpu.kind[1], EventKind::Memcpy);
    EXPECT_EQ(rank.gpu.ts[1], 2000);
    EXPECT_EQ(rank.gpu.dur[0], 500);
    EXPECT_EQ(rank.gpu.gridX[0], 128);
    EXPECT_EQ(rank.gpu.blockX[0], 256);
    EXPECT_EQ(rank.gpu.registers[0], 32);
    EXPECT_EQ(rank.gpu.sharedMemory[0], 4000);  // 0.004 MB
    EXPECT_EQ(rank.gpu.bytes[1], 4194000);      // 4.194 MB
    EXPECT_EQ(rank.gpu.stream[0], 7);
    EXPECT_EQ(rank.gpu.correlation[1], 12);
    EXPECT_EQ(rank.info.clock.domain, ClockDomain::SessionRelative);
    auto rules = ClassificationRules::fromFile((std::string(STROBE_RESOURCE_DIR) + "/classification.yaml"));
    ASSERT_TRUE(rules.ok());
    ASSERT_TRUE(mergeRank(rank, rules.value()).ok());
    EXPECT_TRUE(validateRankData(rank).ok());
}

TEST(NsysStatsCsv, KernelSummaryBothSpellings) {
    const std::string now =
        "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
        "75.0,3000,3,1000.0,1000.0,900,1100,100.0,gemm_kernel\n"
        "25.0,1000,1,1000.0,1000.0,1000,1000,0.0,elementwise_kernel\n";
    auto r = parseNsysStatsCsv(now, "x_cuda_gpu_kern_sum.csv", {});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const RankData& rank = **r;
    ASSERT_EQ(rank.slices.size(), 2u);
    EXPECT_EQ(rank.slices.dur[0], 3000);
    EXPECT_EQ(rank.slices.ts[1], 3000);  // laid after the first
    EXPECT_EQ(rank.strings.str(rank.slices.cat[0]), "nsys-stats cuda_gpu_kern_sum");
    EXPECT_NE(rank.strings.str(rank.slices.args[0]).find("\"count\":3"), std::string::npos);
    EXPECT_NE(rank.strings.str(rank.slices.args[0]).find("\"max_ns\":1100"), std::string::npos);
    // The 2021 layout (gpukernsum): Time(%), Average, Minimum, Maximum.
    const std::string old = "Time(%),Total Time (ns),Instances,Average,Minimum,Maximum,Name\n60.0,600,2,300.0,250,350,k\n";
    auto o = parseNsysStatsCsv(old, "gpukernsum.csv", {});
    ASSERT_TRUE(o.ok()) << o.error().toString();
    EXPECT_EQ((*o)->slices.dur[0], 600);
    EXPECT_NE((*o)->strings.str((*o)->slices.args[0]).find("\"min_ns\":250"), std::string::npos);
    EXPECT_FALSE(parseNsysStatsCsv("hello\n", "n.csv", {}).ok());
}

TEST(NsysStatsCsv, ApiTraceIsRuntimeWithCorrelation) {
    const std::string text = "Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name\n"
                             "900,50,cudaLaunchKernel,0,11,42,42,20,python\n";
    auto r = parseNsysStatsCsv(text, "a_cuda_api_trace.csv", {});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    ASSERT_EQ((*r)->slices.size(), 1u);
    EXPECT_EQ((*r)->slices.kind[0], EventKind::Runtime);
    EXPECT_EQ((*r)->slices.correlation[0], 11);
}

}  // namespace
}  // namespace strobe::core
