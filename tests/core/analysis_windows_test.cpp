// Windows (all, steps, step lists, ranges, hta, hta-include-last, auto) and the remaining analyses on small
// hand-made runs whose answers are worked out in the comments.
#include <cmath>

#include <gtest/gtest.h>

#include "analysis_test_util.h"
#include "core/analysis/event_summary.h"
#include "core/analysis/kernel_stats.h"
#include "core/analysis/launch.h"
#include "core/analysis/memory.h"
#include "core/analysis/phases.h"
#include "core/analysis/registry.h"
#include "core/analysis/straggler.h"
#include "core/analysis/temporal.h"
#include "core/analysis/window.h"

using namespace strobe::core;
using testutil::RankBuilder;

namespace {
double numAnalysisWindows(const Table& t, size_t row, const char* col) { return Table::number(t.at(row, col), NAN); }
const std::string kAnalysisWindowsGemm = "ampere_sgemm_128x64_nn";

// Three steps [0,1000) [1000,2000) [2000,3000) µs; one kernel launched in each (runtime at 100/1100/2100 µs,
// kernel 100 µs later, 100 µs long) and one kernel with no launching call at 3500 µs. Whole µs, as Kineto
// writes them, so HTA's rounding changes nothing.
constexpr TimeNs kUs = 1000;
std::shared_ptr<const RankData> threeSteps(int rank = 0) {
    RankBuilder b(rank);
    b.step(1, 0, 1000 * kUs);
    b.step(2, 1000 * kUs, 2000 * kUs);
    b.step(3, 2000 * kUs, 3000 * kUs);
    for (int i = 0; i < 3; ++i) {
        b.runtime((100 + 1000 * i) * kUs, i + 1, 5 * kUs);
        b.gpu(kAnalysisWindowsGemm, (200 + 1000 * i) * kUs, 100 * kUs, 7, i + 1);
    }
    b.gpu(kAnalysisWindowsGemm, 3500 * kUs, 100 * kUs, 7, 99);
    return b.build();
}
size_t selected(AnalysisContext& ctx, const std::string& window, const std::string& steps = {}) {
    auto spec = WindowSpec::parse(window, steps);
    EXPECT_TRUE(spec.ok());
    auto sel = ctx.select(*spec);
    EXPECT_TRUE(sel.ok());
    return sel.value()->ranks.at(0).size();
}
}  // namespace

TEST(AnalysisWindow, ParseAcceptsTheDocumentedForms) {
    EXPECT_EQ(WindowSpec::parse("").value().kind, WindowKind::All);
    EXPECT_EQ(WindowSpec::parse("hta-include-last").value().kind, WindowKind::HtaIncludeLast);
    auto r = WindowSpec::parse("1000:2000");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->from, 1000);
    EXPECT_EQ(r->to, 2000);
    auto s = WindowSpec::parse("all", "5,3-4");
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(s->steps, (std::vector<int64_t>{3, 4, 5}));
    EXPECT_FALSE(WindowSpec::parse("2000:1000").ok());
    EXPECT_FALSE(WindowSpec::parse("last").ok());
    EXPECT_FALSE(WindowSpec::parse("all", "3,x").ok());
}

TEST(AnalysisWindow, SelectionsFollowTheirDefinitions) {
    AnalysisContext ctx(testutil::makeDataset({threeSteps()}));
    EXPECT_EQ(selected(ctx, "all"), 4u);
    EXPECT_EQ(selected(ctx, "steps"), 3u);   // the unlaunched kernel at 3500 lies after the last step
    EXPECT_EQ(selected(ctx, "hta"), 2u);     // launched before the last step's start (2000)
    EXPECT_EQ(selected(ctx, "hta-include-last"), 3u);  // launched by its end; no launching call → dropped
    EXPECT_EQ(selected(ctx, "all", "2"), 1u);
    EXPECT_EQ(selected(ctx, "all", "1,3"), 2u);
    EXPECT_EQ(selected(ctx, "1250000:1260000"), 1u);  // clipped to the range
    auto sel = ctx.select(WindowSpec::parse("1250000:1260000").value());
    EXPECT_EQ(sel.value()->ranks[0].start[0], 1250000);
    EXPECT_EQ(sel.value()->ranks[0].end[0], 1260000);
    // The selection is computed once and shared.
    auto a = ctx.select(WindowSpec::parse("hta").value());
    auto b = ctx.select(WindowSpec::parse("hta").value());
    EXPECT_EQ(a.value().get(), b.value().get());
}

TEST(AnalysisWindow, HtaKeepsEverythingWithFewerThanTwoStepNames) {
    RankBuilder b(0);
    b.step(7, 0, 1000);
    b.runtime(100, 1);
    b.gpu(kAnalysisWindowsGemm, 200, 10, 7, 1);
    b.gpu(kAnalysisWindowsGemm, 5000, 10, 7);  // no launching call, after the step: still kept (HTA does not filter)
    AnalysisContext ctx(testutil::makeDataset({b.build()}));
    EXPECT_EQ(selected(ctx, "hta"), 2u);
    auto sel = ctx.select(WindowSpec::parse("hta").value());
    ASSERT_FALSE(sel.value()->messages.empty());
    EXPECT_NE(sel.value()->messages[0].find("distinct ProfilerStep"), std::string::npos);
}

TEST(AnalysisWindow, HtaRoundsFractionalMicrosecondsLikeHta) {
    // ts 1.5 µs, dur 2.0 µs: HTA takes ceil(1.5) = 2 and floor(3.5) = 3 → [2000, 3000) ns; `all` keeps it exact.
    RankBuilder b(0);
    b.gpu(kAnalysisWindowsGemm, 1500, 2000);
    b.gpu(kAnalysisWindowsGemm, 10000, 1000);
    AnalysisContext ctx(testutil::makeDataset({b.build()}));
    auto hta = temporalBreakdown(ctx, WindowSpec::parse("hta").value());
    auto all = temporalBreakdown(ctx, WindowSpec{});
    ASSERT_TRUE(hta.ok() && all.ok());
    EXPECT_EQ(numAnalysisWindows(*hta, 0, "window_ns"), 11000 - 2000);
    EXPECT_EQ(numAnalysisWindows(*hta, 0, "compute_ns"), 1000 + 1000);
    EXPECT_EQ(numAnalysisWindows(*all, 0, "window_ns"), 11000 - 1500);
    EXPECT_EQ(numAnalysisWindows(*all, 0, "compute_ns"), 2000 + 1000);
}

TEST(AnalysisWindow, SteadyStateDropsWarmUpAndTail) {
    // Step durations 500, 100, 102, 98, 101, 300: median 101.5 (→ 102), absolute deviations 398, 2, 0, 4, 1, 198
    // → MAD 3, scale max(1.4826 × 3, 5 % of 102) = 5.1; threshold 3 → |d − 102| > 15.3 is an outlier: steps 1
    // and 6, at the ends, are dropped.
    RankBuilder b(0);
    TimeNs t = 0;
    const TimeNs durs[] = {500, 100, 102, 98, 101, 300};
    for (int i = 0; i < 6; ++i) {
        b.step(i + 1, t, t + durs[i]);
        t += durs[i];
    }
    AnalysisContext ctx(testutil::makeDataset({b.build()}));
    SteadyState ss = findSteadyState(ctx);
    EXPECT_EQ(ss.kept, (std::vector<int64_t>{2, 3, 4, 5}));
    EXPECT_NE(ss.reason.find("warm-up steps 1"), std::string::npos);
    EXPECT_NE(ss.reason.find("tail steps 6"), std::string::npos);
    auto sel = ctx.select(WindowSpec::parse("auto").value());
    ASSERT_TRUE(sel.ok());
    EXPECT_EQ(sel.value()->spec.kind, WindowKind::StepList);
    EXPECT_EQ(sel.value()->spec.steps, ss.kept);
    auto table = steadyStateWindow(ctx);
    ASSERT_TRUE(table.ok());
    EXPECT_EQ(numAnalysisWindows(*table, 0, "kept"), 0);
    EXPECT_EQ(numAnalysisWindows(*table, 1, "kept"), 1);
}

TEST(AnalysisWindow, AutoWithoutStepsFallsBackWithAMessage) {
    RankBuilder b(0);
    b.gpu(kAnalysisWindowsGemm, 0, 10);
    AnalysisContext ctx(testutil::makeDataset({b.build()}));
    auto sel = ctx.select(WindowSpec::parse("auto").value());
    ASSERT_TRUE(sel.ok());
    EXPECT_EQ(sel.value()->ranks[0].size(), 1u);
    ASSERT_FALSE(sel.value()->messages.empty());
    EXPECT_NE(sel.value()->messages[0].find("no ProfilerStep"), std::string::npos);
}

TEST(AnalysisKernelStats, PercentilesAndSpread) {
    // Durations 10, 20, 30, 40: mean 25, median 25, p5 = 10 + 0.15 × 10 = 11.5, p95 = 30 + 0.85 × 10 = 38.5,
    // sample stddev √(500/3) = 12.90994..., cv = stddev / 25.
    RankBuilder b(0);
    for (int i = 0; i < 4; ++i) b.gpu(kAnalysisWindowsGemm, i * 100, 10 * (i + 1));
    b.gpu("other_kernel", 1000, 5);
    AnalysisContext ctx(testutil::makeDataset({b.build()}));
    auto t = kernelStatistics(ctx, WindowSpec{});
    ASSERT_TRUE(t.ok());
    ASSERT_EQ(t->rows.size(), 2u);
    EXPECT_EQ(Table::text(t->at(0, "name")), kAnalysisWindowsGemm);
    EXPECT_EQ(numAnalysisWindows(*t, 0, "count"), 4);
    EXPECT_EQ(numAnalysisWindows(*t, 0, "total_ns"), 100);
    EXPECT_DOUBLE_EQ(numAnalysisWindows(*t, 0, "mean_ns"), 25);
    EXPECT_DOUBLE_EQ(numAnalysisWindows(*t, 0, "median_ns"), 25);
    EXPECT_DOUBLE_EQ(numAnalysisWindows(*t, 0, "p5_ns"), 11.5);
    EXPECT_DOUBLE_EQ(numAnalysisWindows(*t, 0, "p95_ns"), 38.5);
    EXPECT_NEAR(numAnalysisWindows(*t, 0, "stddev_ns"), std::sqrt(500.0 / 3.0), 1e-9);
    EXPECT_NEAR(numAnalysisWindows(*t, 0, "cv"), std::sqrt(500.0 / 3.0) / 25.0, 1e-12);
    KernelStatsOptions o;
    o.groupBy = KernelGroupBy::Regex;
    o.regex = "sgemm";
    auto r = kernelStatistics(ctx, WindowSpec{}, o);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->rows.size(), 1u);
    EXPECT_EQ(numAnalysisWindows(*r, 0, "count"), 4);
    o.regex = "([";
    EXPECT_FALSE(kernelStatistics(ctx, WindowSpec{}, o).ok());
}

TEST(AnalysisMemory, BytesAndBandwidthByDirection) {
    RankBuilder b(0);
    b.gpu("Memcpy HtoD (Pageable -> Device)", 0, 100, 7, kNone, EventKind::Memcpy, 1000);
    b.gpu("Memcpy HtoD (Pinned -> Device)", 200, 100, 7, kNone, EventKind::Memcpy, 3000);
    b.gpu("Memcpy DtoH (Device -> Pinned)", 400, 50, 7, kNone, EventKind::Memcpy, 500);
    b.gpu("Memset (Device)", 500, 10, 7, kNone, EventKind::Memset, 64);
    b.gpu(kAnalysisWindowsGemm, 600, 10);
    AnalysisContext ctx(testutil::makeDataset({b.build()}));
    auto t = memoryTraffic(ctx, WindowSpec{});
    ASSERT_TRUE(t.ok());
    ASSERT_EQ(t->rows.size(), 3u);
    std::map<std::string, size_t> row;
    for (size_t i = 0; i < t->rows.size(); ++i)
        row[Table::text(t->at(i, "kind")) + "/" + Table::text(t->at(i, "direction"))] = i;
    ASSERT_TRUE(row.count("memcpy/HtoD"));
    EXPECT_EQ(numAnalysisWindows(*t, row["memcpy/HtoD"], "bytes"), 4000);
    EXPECT_EQ(numAnalysisWindows(*t, row["memcpy/HtoD"], "total_ns"), 200);
    EXPECT_DOUBLE_EQ(numAnalysisWindows(*t, row["memcpy/HtoD"], "bandwidth_gbps"), 20.0);  // 4000 B / 200 ns
    EXPECT_EQ(numAnalysisWindows(*t, row["memcpy/DtoH"], "count"), 1);
    EXPECT_EQ(numAnalysisWindows(*t, row["memset/-"], "bytes"), 64);
}

TEST(AnalysisStraggler, NamesTheRankThatArrivesLast) {
    // Collective 0: rank 0 100 ns, rank 1 40 ns → rank 1 arrived last, rank 0 waited 60.
    // Collective 1: rank 0 50 ns, rank 1 80 ns → rank 0 last, rank 1 waited 30.
    const std::string nccl = "ncclKernel_AllReduce_RING_LL_Sum_float";
    RankBuilder r0(0), r1(1);
    r0.gpu(nccl, 0, 100, 20);
    r0.gpu(nccl, 1000, 50, 20);
    r1.gpu(nccl, 60, 40, 20);
    r1.gpu(nccl, 970, 80, 20);
    AnalysisContext ctx(testutil::makeDataset({r0.build(), r1.build()}));
    auto t = stragglerAnalysis(ctx, WindowSpec{});
    ASSERT_TRUE(t.ok());
    ASSERT_EQ(t->rows.size(), 2u);
    EXPECT_EQ(numAnalysisWindows(*t, 0, "wait_ns"), 60);
    EXPECT_EQ(numAnalysisWindows(*t, 0, "caused_wait_ns"), 30);
    EXPECT_EQ(numAnalysisWindows(*t, 1, "wait_ns"), 30);
    EXPECT_EQ(numAnalysisWindows(*t, 1, "caused_wait_ns"), 60);
    EXPECT_EQ(numAnalysisWindows(*t, 1, "times_last"), 1);
    bool named = false;
    for (const auto& m : t->messages) named = named || m.find("rank 1 makes the others wait") != std::string::npos;
    EXPECT_TRUE(named);
    auto c = stragglerAnalysis(ctx, WindowSpec{}, "collectives");
    ASSERT_TRUE(c.ok());
    ASSERT_EQ(c->rows.size(), 2u);
    EXPECT_EQ(numAnalysisWindows(*c, 0, "straggler_rank"), 1);
    EXPECT_EQ(numAnalysisWindows(*c, 0, "start_spread_ns"), 60);
}

TEST(AnalysisStraggler, UsesProcessGroupAndSeqArgsWhenPresent) {
    // Same name, but rank 1 lists seq 2 first: matching by seq pairs 1↔1 and 2↔2 rather than by order.
    const std::string nccl = "ncclDevKernel_Generic";
    RankBuilder r0(0), r1(1);
    r0.gpu(nccl, 0, 100, 20, kNone, EventKind::Kernel, 0, R"({"Process Group Name": "0", "Seq": 1})");
    r0.gpu(nccl, 500, 100, 20, kNone, EventKind::Kernel, 0, R"({"Process Group Name": "0", "Seq": 2})");
    r1.gpu(nccl, 0, 30, 20, kNone, EventKind::Kernel, 0, R"({"Process Group Name": "0", "Seq": 2})");
    r1.gpu(nccl, 500, 90, 20, kNone, EventKind::Kernel, 0, R"({"Process Group Name": "0", "Seq": 1})");
    AnalysisContext ctx(testutil::makeDataset({r0.build(), r1.build()}));
    auto c = stragglerAnalysis(ctx, WindowSpec{}, "collectives");
    ASSERT_TRUE(c.ok());
    ASSERT_EQ(c->rows.size(), 2u);
    EXPECT_EQ(numAnalysisWindows(*c, 0, "seq"), 1);
    EXPECT_EQ(numAnalysisWindows(*c, 0, "max_wait_ns"), 10);  // 100 vs 90
    EXPECT_EQ(numAnalysisWindows(*c, 1, "max_wait_ns"), 70);  // 100 vs 30
}

TEST(AnalysisPhases, ForwardBackwardOptimizerAndVllm) {
    RankBuilder b(0);
    b.step(1, 0, 1000);
    b.slice("aten::mm", 10, 100);
    b.slice("autograd::engine::evaluate_function: MmBackward0", 400, 100);
    b.slice("FSDP::post_backward_reduce", 550, 50);
    b.slice("Optimizer.step#SGD.step", 700, 200);
    b.slice("execute_context_2(512)_generation_0(0)", 2000, 100, EventKind::UserAnnotation);
    b.slice("execute_context_0(0)_generation_4(4)", 2200, 50, EventKind::UserAnnotation);
    AnalysisContext ctx(testutil::makeDataset({b.build()}));
    auto t = phaseStructure(ctx, WindowSpec{});
    ASSERT_TRUE(t.ok());
    std::map<std::string, std::pair<double, double>> got;
    for (size_t i = 0; i < t->rows.size(); ++i)
        got[Table::text(t->at(i, "phase"))] = {numAnalysisWindows(*t, i, "start_ns"),
                                               numAnalysisWindows(*t, i, "end_ns")};
    EXPECT_EQ(got["forward"], std::make_pair(0.0, 400.0));
    EXPECT_EQ(got["backward"], std::make_pair(400.0, 600.0));
    EXPECT_EQ(got["optimizer"], std::make_pair(700.0, 900.0));
    EXPECT_EQ(got["prefill"], std::make_pair(2000.0, 2100.0));
    EXPECT_EQ(got["decode"], std::make_pair(2200.0, 2250.0));
}

TEST(AnalysisPhases, ZeroGradAtTheTopOfTheStepIsNotPartOfTheOptimizerPhase) {
    // As in the DLRM sample: zero_grad first, then forward, backward and the optimizer step.
    RankBuilder b(0);
    b.step(1, 0, 1000);
    b.slice("Optimizer.zero_grad#SGD.zero_grad", 5, 20);
    b.slice("aten::mm", 50, 100);
    b.slice("autograd::engine::evaluate_function: MmBackward0", 400, 100);
    b.slice("Optimizer.step#SGD.step", 700, 200);
    AnalysisContext ctx(testutil::makeDataset({b.build()}));
    auto t = phaseStructure(ctx, WindowSpec{});
    ASSERT_TRUE(t.ok());
    std::map<std::string, std::pair<double, double>> got;
    std::map<std::string, double> count;
    for (size_t i = 0; i < t->rows.size(); ++i) {
        got[Table::text(t->at(i, "phase"))] = {numAnalysisWindows(*t, i, "start_ns"),
                                               numAnalysisWindows(*t, i, "end_ns")};
        count[Table::text(t->at(i, "phase"))] = numAnalysisWindows(*t, i, "count");
    }
    EXPECT_EQ(got["forward"], std::make_pair(0.0, 400.0));
    EXPECT_EQ(got["backward"], std::make_pair(400.0, 500.0));
    EXPECT_EQ(got["optimizer"], std::make_pair(700.0, 900.0));  // not 5..900
    EXPECT_EQ(count["optimizer"], 1);
}

TEST(AnalysisPhases, LayersFromAttentionAndGemmPatterns) {
    // gemm gemm attn gemm elementwise | gemm gemm attn gemm: the second layer starts at the GEMM run before the
    // second attention kernel (index 5).
    RankBuilder b(0);
    const char* seq[] = {"sm90_gemm_a", "sm90_gemm_b", "flash_fwd_kernel", "sm90_gemm_o", "elementwise_add",
                         "sm90_gemm_a", "sm90_gemm_b", "flash_fwd_kernel", "sm90_gemm_o"};
    for (int i = 0; i < 9; ++i) b.gpu(seq[i], i * 10, 5);
    AnalysisContext ctx(testutil::makeDataset({b.build()}));
    auto t = phaseStructure(ctx, WindowSpec{}, LayerRows::Rows);
    ASSERT_TRUE(t.ok());
    std::vector<std::pair<double, double>> layers;
    for (size_t i = 0; i < t->rows.size(); ++i)
        if (Table::text(t->at(i, "phase")) == "layer")
            layers.emplace_back(numAnalysisWindows(*t, i, "start_ns"), numAnalysisWindows(*t, i, "count"));
    ASSERT_EQ(layers.size(), 2u);
    EXPECT_EQ(layers[0], std::make_pair(0.0, 5.0));
    EXPECT_EQ(layers[1], std::make_pair(50.0, 4.0));
    auto summary = phaseStructure(ctx, WindowSpec{});
    ASSERT_TRUE(summary.ok());
    bool found = false;
    for (size_t i = 0; i < summary->rows.size(); ++i)
        if (Table::text(summary->at(i, "phase")) == "layers") {
            found = true;
            EXPECT_EQ(numAnalysisWindows(*summary, i, "count"), 2);
            EXPECT_EQ(numAnalysisWindows(*summary, i, "dur_ns"), (45 + 35) / 2);  // layer 0: [0,45), layer 1: [50,85)
        }
    EXPECT_TRUE(found);
}

TEST(AnalysisLaunch, DelayAndPreparation) {
    RankBuilder b(0);
    b.slice("aten::mm", 50, 200);
    b.runtime(100, 1);
    b.gpu(kAnalysisWindowsGemm, 200, 10, 7, 1);
    b.runtime(300, 2);
    b.gpu(kAnalysisWindowsGemm, 330, 10, 7, 2);
    auto& d = b.data();
    d.gpu.cpuOp.push_back(0);   // the merge's links: both launched from aten::mm
    d.gpu.cpuOp.push_back(0);
    AnalysisContext ctx(testutil::makeDataset({b.build()}));
    auto t = launchOverhead(ctx, WindowSpec{});
    ASSERT_TRUE(t.ok());
    ASSERT_GE(t->rows.size(), 1u);
    EXPECT_EQ(Table::text(t->at(0, "category")), "all");
    EXPECT_EQ(numAnalysisWindows(*t, 0, "count"), 2);
    EXPECT_DOUBLE_EQ(numAnalysisWindows(*t, 0, "launch_mean_ns"), (100 + 30) / 2.0);
    EXPECT_DOUBLE_EQ(numAnalysisWindows(*t, 0, "launch_max_ns"), 100);
    EXPECT_DOUBLE_EQ(numAnalysisWindows(*t, 0, "prep_mean_ns"), (50 + 250) / 2.0);
}

TEST(AnalysisRegistry, ValidatesOptions) {
    AnalysisContext ctx(testutil::makeDataset({threeSteps()}));
    AnalysisRequest req;
    req.values["kernel-wait-ns"] = "abc";
    EXPECT_FALSE(runAnalysis(ctx, "idle", req).ok());
    req.values = {{"no-such-option", "1"}};
    EXPECT_FALSE(runAnalysis(ctx, "idle", req).ok());
    req.values = {{"view", "sideways"}};
    EXPECT_FALSE(runAnalysis(ctx, "kernel-types", req).ok());
    EXPECT_FALSE(runAnalysis(ctx, "no-such-analysis", AnalysisRequest{}).ok());
    for (const char* n : {"temporal", "kernel-types", "overlap", "idle", "straggler", "launch", "phases", "window",
                          "kernels", "memory"})
        EXPECT_NE(findAnalysis(n), nullptr) << n;
}

TEST(AnalysisEvents, CountsPerCategoryInTheWindow) {
    AnalysisContext ctx(testutil::makeDataset({threeSteps()}));
    auto t = eventSummary(ctx, WindowSpec::parse("hta").value());
    ASSERT_TRUE(t.ok());
    std::map<std::string, std::pair<double, double>> got;
    for (size_t i = 0; i < t->rows.size(); ++i)
        got[Table::text(t->at(i, "category"))] = {numAnalysisWindows(*t, i, "count"),
                                                  numAnalysisWindows(*t, i, "dur_ns")};
    EXPECT_EQ(got["kernel"], std::make_pair(2.0, 200.0 * kUs));
    EXPECT_EQ(got["cuda_runtime"], std::make_pair(2.0, 10.0 * kUs));     // runtime calls at 100 and 1100 µs
    EXPECT_EQ(got["user_annotation"], std::make_pair(2.0, 2000.0 * kUs));  // ProfilerStep#1 and #2 start before 2000 µs
}
