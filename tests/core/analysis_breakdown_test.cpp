// Hand-worked answers for the HTA-defined analyses (temporal, overlap, kernel types, idle) on tiny datasets.
#include <cmath>
#include <sstream>

#include <gtest/gtest.h>

#include "analysis_test_util.h"
#include "core/analysis/idle.h"
#include "core/analysis/kernel_types.h"
#include "core/analysis/overlap.h"
#include "core/analysis/registry.h"
#include "core/analysis/temporal.h"

using namespace strobe::core;
using testutil::RankBuilder;

namespace {
double num(const Table& t, size_t row, const char* col) { return Table::number(t.at(row, col), NAN); }
const std::string kGemm = "ampere_sgemm_128x64_nn";
const std::string kNccl = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)";
}  // namespace

TEST(AnalysisHtaTypes, FollowsHtaRulesInOrder) {
    EXPECT_EQ(htaKernelType(kNccl), HtaType::Communication);
    EXPECT_EQ(htaKernelType("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)"), HtaType::Communication);
    EXPECT_EQ(htaKernelType("void foo<ncclKernel_x>"), HtaType::Communication);  // contains ncclKernel
    EXPECT_EQ(htaKernelType("hccl_allreduce"), HtaType::Communication);
    EXPECT_EQ(htaKernelType("Memcpy DtoD (Device -> Device)"), HtaType::Memory);
    EXPECT_EQ(htaKernelType("Memset (Device)"), HtaType::Memory);
    EXPECT_EQ(htaKernelType("dma_copy"), HtaType::Memory);
    EXPECT_EQ(htaKernelType(kGemm), HtaType::Computation);
    EXPECT_EQ(htaKernelType("Cijk_Ailk_Bljk_HHS_BH_MT128x128x32"), HtaType::Computation);
    // Not at the start: Memcpy/Memset/dma/Sync anywhere make it OTHER, not MEMORY.
    EXPECT_EQ(htaKernelType("void at::native::fooMemcpyKernel"), HtaType::Other);
    EXPECT_EQ(htaKernelType("cudaDeviceSynchronize"), HtaType::Other);
    EXPECT_EQ(htaKernelType("Stream Wait Event"), HtaType::Other);
    EXPECT_EQ(htaKernelType("cudaLaunchKernel"), HtaType::Other);
    EXPECT_EQ(htaKernelType("runFunction"), HtaType::Other);
}

TEST(AnalysisIntervals, MergeAndIntersect) {
    std::vector<Interval> in = {{0, 100}, {50, 150}, {150, 160}, {200, 300}, {210, 220}};
    auto m = mergeSortedIntervals(in);
    ASSERT_EQ(m.size(), 2u);  // touching [150,160) joins: start is not after the largest end
    EXPECT_EQ(m[0].start, 0);
    EXPECT_EQ(m[0].end, 160);
    EXPECT_EQ(m[1].start, 200);
    EXPECT_EQ(m[1].end, 300);
    EXPECT_EQ(totalLength(m), 260);
    std::vector<Interval> other = {{100, 210}, {290, 400}};
    EXPECT_EQ(intersectionLength(m, other), 60 + 10 + 10);
}

// Concurrent kernels on two streams, gaps at the edges of the window and between kernels.
TEST(AnalysisTemporal, ConcurrentStreamsAreNotDoubleCounted) {
    RankBuilder b(0);
    b.gpu(kGemm, 0, 100, 7);
    b.gpu(kGemm, 50, 100, 8);        // overlaps the first on another stream
    b.gpu(kNccl, 200, 100, 9);
    b.gpu("Memcpy HtoD (Pageable -> Device)", 300, 20, 7, kNone, EventKind::Memcpy);
    b.gpu(kGemm, 400, 50, 7);
    AnalysisContext ctx(testutil::makeDataset({b.build()}));
    auto t = temporalBreakdown(ctx, WindowSpec{});
    ASSERT_TRUE(t.ok()) << t.error().toString();
    ASSERT_EQ(t->rows.size(), 1u);
    // window 450; union [0,150)+[200,320)+[400,450) = 320 → idle 130; compute [0,150)+[400,450) = 200.
    EXPECT_EQ(num(*t, 0, "window_ns"), 450);
    EXPECT_EQ(num(*t, 0, "idle_ns"), 130);
    EXPECT_EQ(num(*t, 0, "compute_ns"), 200);
    EXPECT_EQ(num(*t, 0, "non_compute_ns"), 120);
    EXPECT_NEAR(num(*t, 0, "idle_pct"), 100.0 * 130 / 450, 1e-9);
    EXPECT_NEAR(num(*t, 0, "compute_pct") + num(*t, 0, "idle_pct") + num(*t, 0, "non_compute_pct"), 100.0, 1e-9);
}

namespace {
// COMP [0,150) [250,260) [280,400); COMM [100,300); MEMORY [120,130).
std::shared_ptr<const RankData> overlapRank(int rank = 0) {
    RankBuilder b(rank);
    b.gpu(kGemm, 0, 150, 7);
    b.gpu(kNccl, 100, 200, 20);
    b.gpu("Memcpy DtoD (Device -> Device)", 120, 10, 8, kNone, EventKind::Memcpy);
    b.gpu(kGemm, 250, 10, 7);
    b.gpu(kGemm, 280, 120, 7);
    return b.build();
}
}  // namespace

TEST(AnalysisOverlap, ShareOfCommunicationUnderComputation) {
    AnalysisContext ctx(testutil::makeDataset({overlapRank()}));
    auto t = commCompOverlap(ctx, WindowSpec{});
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(num(*t, 0, "comm_ns"), 200);
    EXPECT_EQ(num(*t, 0, "comp_ns"), 150 + 10 + 120);
    EXPECT_EQ(num(*t, 0, "overlap_ns"), 50 + 10 + 20);
    EXPECT_NEAR(num(*t, 0, "overlap_pct"), 40.0, 1e-12);
}

TEST(AnalysisOverlap, NoCommunicationIsNullWithMessage) {
    RankBuilder b(0);
    b.gpu(kGemm, 0, 10);
    AnalysisContext ctx(testutil::makeDataset({b.build()}));
    auto t = commCompOverlap(ctx, WindowSpec{});
    ASSERT_TRUE(t.ok());
    EXPECT_TRUE(std::holds_alternative<std::monostate>(t->at(0, "overlap_pct")));
    ASSERT_FALSE(t->messages.empty());
    EXPECT_NE(t->messages[0].find("no communication kernel"), std::string::npos);
}

TEST(AnalysisKernelTypes, SweepAttributesEveryCombination) {
    AnalysisContext ctx(testutil::makeDataset({overlapRank(0), overlapRank(1)}));
    auto t = kernelTypeBreakdown(ctx, WindowSpec{});
    ASSERT_TRUE(t.ok());
    std::map<std::string, double> rank0, all;
    for (size_t i = 0; i < t->rows.size(); ++i) {
        const std::string type = Table::text(t->at(i, "type"));
        if (Table::text(t->at(i, "rank")) == "0") rank0[type] = num(*t, i, "time_ns");
        if (Table::text(t->at(i, "rank")) == "all") all[type] = num(*t, i, "time_ns");
    }
    EXPECT_EQ(rank0["COMPUTATION"], 200);
    EXPECT_EQ(rank0["COMMUNICATION"], 120);
    EXPECT_EQ(rank0["COMPUTATION overlapping COMMUNICATION"], 70);
    EXPECT_EQ(rank0["COMPUTATION overlapping COMMUNICATION overlapping MEMORY"], 10);
    EXPECT_EQ(rank0.size(), 4u);
    EXPECT_EQ(all["COMPUTATION"], 400);  // both ranks
    // Per-category sums = the union of the typed kernels ([0,400)).
    double sum = 0;
    for (auto& [k, v] : rank0) sum += v;
    EXPECT_EQ(sum, 400);
    EXPECT_NEAR(num(*t, 0, "pct"), 50.0, 1e-12);  // first row: COMPUTATION of rank 0, the largest
}

TEST(AnalysisKernelTypes, TopKFoldsTheRestIntoOthersLikeHta) {
    RankBuilder b(0);
    // 12 kernels, one launch each: 120, 110, ..., 10. Running sums 120..780; pandas' linear 0.8 quantile of the
    // running sums is 720 + 0.8 × 30 = 744, so the names whose running sum exceeds it (30, 20, 10) fold.
    TimeNs t0 = 0;
    for (int i = 0; i < 12; ++i) {
        TimeNs d = 120 - 10 * i;
        b.gpu("kernel_" + std::string(1, static_cast<char>('a' + i)), t0, d);
        t0 += d + 5;
    }
    AnalysisContext ctx(testutil::makeDataset({b.build()}));
    auto t = kernelTypeTopKernels(ctx, WindowSpec{});
    ASSERT_TRUE(t.ok());
    ASSERT_EQ(t->rows.size(), 10u);  // 9 names + others
    size_t others = t->rows.size();
    for (size_t i = 0; i < t->rows.size(); ++i)
        if (Table::text(t->at(i, "name")) == "others") others = i;
    ASSERT_LT(others, t->rows.size());
    EXPECT_EQ(num(*t, others, "sum_ns"), 60);
    EXPECT_EQ(num(*t, others, "max_ns"), 30);
    EXPECT_EQ(num(*t, others, "min_ns"), 10);
    EXPECT_EQ(num(*t, others, "mean_ns"), 20);
    EXPECT_NEAR(num(*t, others, "stddev_ns"), 10.0, 1e-12);
    EXPECT_EQ(num(*t, others, "count"), 3);
}

TEST(AnalysisIdle, HostWaitKernelWaitOther) {
    RankBuilder b(0);
    b.runtime(-10, 1);
    b.gpu(kGemm, 0, 100, 7, 1);     // first: no gap
    b.runtime(50, 2);
    b.gpu(kGemm, 105, 95, 7, 2);    // launched before the previous end; gap 5 < 30 µs → kernel wait
    b.runtime(250, 3);
    b.gpu(kGemm, 300, 100, 7, 3);   // launched after the previous end (200) → host wait 100
    b.runtime(100, 4);
    b.gpu(kGemm, 450, 50, 7, 4);    // gap 50 ≥ threshold 30 → other
    b.gpu(kGemm, 510, 10, 7);       // no launching call, gap 10 → kernel wait
    b.gpu(kGemm, 0, 10, 9);         // another stream, alone: "other" with no gap
    AnalysisContext ctx(testutil::makeDataset({b.build()}));
    auto t = idleBreakdown(ctx, WindowSpec{}, 30);
    ASSERT_TRUE(t.ok());
    std::map<std::string, std::pair<double, double>> got;
    auto key = [](int64_t stream, const char* cause) { return std::to_string(stream) + "/" + cause; };
    for (size_t i = 0; i < t->rows.size(); ++i)
        got[Table::text(t->at(i, "stream")) + "/" + Table::text(t->at(i, "cause"))] = {num(*t, i, "idle_ns"),
                                                                                     num(*t, i, "ratio")};
    EXPECT_EQ(got[key(7, "host_wait")].first, 100);
    EXPECT_EQ(got[key(7, "kernel_wait")].first, 15);
    EXPECT_EQ(got[key(7, "other")].first, 50);
    EXPECT_NEAR(got[key(7, "host_wait")].second, 100.0 / 165, 1e-12);
    ASSERT_TRUE(got.count(key(9, "other")));
    EXPECT_EQ(got[key(9, "other")].first, 0);
    EXPECT_TRUE(std::isnan(got[key(9, "other")].second));  // no idle time: ratio undefined (null)
    EXPECT_EQ(got.size(), 4u);
}

TEST(AnalysisEdgeCases, CpuOnlyRankGivesMessagesNotZeros) {
    RankBuilder b(34);
    b.slice("aten::add", 0, 100);
    b.step(1, 0, 1000);
    AnalysisContext ctx(testutil::makeDataset({b.build()}));
    AnalysisRequest req;
    for (const auto& a : analysisRegistry()) {
        auto t = runAnalysis(ctx, a.name, req);
        ASSERT_TRUE(t.ok()) << a.name << ": " << t.error().toString();
        if (a.name == "window" || a.name == "events" || a.name == "phases") continue;
        EXPECT_FALSE(t->messages.empty()) << a.name << " says nothing about a CPU-only trace";
    }
    auto t = runAnalysis(ctx, "temporal", req);  // with the window's messages
    ASSERT_TRUE(t.ok());
    ASSERT_EQ(t->rows.size(), 1u);
    EXPECT_TRUE(std::holds_alternative<std::monostate>(t->at(0, "idle_pct")));
    bool cpuOnly = false;
    for (const auto& m : t->messages) cpuOnly = cpuOnly || m.find("CPU-only") != std::string::npos;
    EXPECT_TRUE(cpuOnly);
}

TEST(AnalysisEdgeCases, EmptyDatasetAndEmptyWindow) {
    AnalysisContext empty(testutil::makeDataset({}));
    for (const auto& a : analysisRegistry()) EXPECT_TRUE(runAnalysis(empty, a.name, AnalysisRequest{}).ok()) << a.name;
    RankBuilder b(0);
    b.gpu(kGemm, 0, 10);
    AnalysisContext ctx(testutil::makeDataset({b.build()}));
    auto w = WindowSpec::parse("1000:2000");
    ASSERT_TRUE(w.ok());
    auto t = temporalBreakdown(ctx, *w);
    ASSERT_TRUE(t.ok());
    auto sel = ctx.select(*w);
    ASSERT_TRUE(sel.ok());
    ASSERT_FALSE(sel.value()->messages.empty());
    EXPECT_NE(sel.value()->messages[0].find("holds none"), std::string::npos);
}

TEST(AnalysisTable, CsvQuotingAndJsonDocument) {
    Table t;
    t.columns = {"name", "v", "x"};
    t.addRow({std::string("a,\"b\""), int64_t{3}, Cell{}});
    t.addRow({std::string("plain"), 2.5, std::nan("")});
    t.messages.push_back("note \"1\"");
    std::ostringstream csv;
    t.writeCsv(csv);
    EXPECT_EQ(csv.str(), "name,v,x\r\n\"a,\"\"b\"\"\",3,\r\nplain,2.5,\r\n");
    std::ostringstream js;
    t.writeJsonDocument(js, "temporal", "hta");
    const std::string s = js.str();
    EXPECT_NE(s.find("\"analysis\": \"temporal\""), std::string::npos);
    EXPECT_NE(s.find("\"window\": \"hta\""), std::string::npos);
    EXPECT_NE(s.find("{\"name\": \"a,\\\"b\\\"\", \"v\": 3, \"x\": null}"), std::string::npos);
    EXPECT_NE(s.find("\"x\": null}"), std::string::npos);  // NaN is written as null
    EXPECT_NE(s.find("\"messages\": [\"note \\\"1\\\"\"]"), std::string::npos);
}
