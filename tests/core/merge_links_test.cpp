// The merge on a hand-made rank whose answers are worked out below, event by event.
#include <algorithm>
#include <numeric>
#include <random>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "core/merge/annotation_index.h"
#include "core/merge/merge.h"
#include "tests/core/merge_builder.h"
#include "tests/test_paths.h"

namespace strobe::core {
namespace {

using testing::RankBuilder;

ClassificationRules bundledRules() {
    auto r = ClassificationRules::fromFile((std::string(STROBE_RESOURCE_DIR) + "/classification.yaml"));
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
    return r.ok() ? std::move(r.value()) : ClassificationRules{};
}

// Tracks: cpu (pid 100 tid 1), s7 (device 0 stream 7), s8 (device 0 stream 8), cpu2 (pid 100 tid 2).
//
// cpu:  S0  ProfilerStep#3      [0, 1000)
//       S1    aten::linear      [100, 400)   ext 11
//       S2      aten::addmm     [150, 350)   ext 12
//       S3        cudaLaunch    [200, 220)   ext 12 corr 501          → K0
//       S4  ProfilerStep#4      [1000, 2000)
//       S5    aten::mul         [1100, 1200) ext 13
//       S6      cudaLaunch      [1110, 1120) ext 13 corr 502          → K1 (duplicate id, see S8)
//       S7    nccl:all_reduce   [1490, 1530) user annotation
//       S8      cudaLaunch      [1500, 1510) corr 503 (no ext)        → K2
//       S9    cudaLaunch        [1800, 1810) corr 506                 → K5 (duplicate id, see S10)
//       S10   cudaLaunch        [1850, 1860) corr 506
//       S11   cudaMemcpyAsync   [1900, 1950) no corr; ac2g flow 900   → K3
// cpu2: S12 cudaLaunch          [1300, 1310) corr 502 (duplicate of S6)
//       S13 outer               [3000, 3100)
//       S14 partial             [3050, 3150) (partially overlaps S13)
//       S15 child               [3060, 3070)
// s7:   A0  ProfilerStep#3 (gpu_user_annotation) [250, 1400)
//       A1  inner (gpu_user_annotation)          [1200, 1350)
//       K0 sgemm [300, 500) corr 501; K1 elementwise [1250, 1300) corr 502; K2 ncclDevKernel_Generic [1520, 1600)
//       corr 503; K3 Memcpy HtoD [2100, 2150) no corr (flow 900); K4 triton_poi [2500, 2600) corr 999 (no call)
// s8:   K5 Cijk [1790, 1795) corr 506; K6 reduce_kernel [1260, 1280) no corr, no flow
class MergeLinksTest : public ::testing::Test {
protected:
    void SetUp() override {
        RankBuilder& b = builder;
        cpu = b.track(100, 1);
        s7 = b.track(0, 7);
        s8 = b.track(0, 8);
        cpu2 = b.track(100, 2);
        using K = EventKind;
        // Deliberately not in time order: the merge must not depend on the loader's order.
        S[4] = b.slice("ProfilerStep#4", K::UserAnnotation, cpu, 1000, 1000);
        S[0] = b.slice("ProfilerStep#3", K::UserAnnotation, cpu, 0, 1000);
        S[2] = b.slice("aten::addmm", K::CpuOp, cpu, 150, 200, 12);
        S[1] = b.slice("aten::linear", K::CpuOp, cpu, 100, 300, 11);
        S[3] = b.slice("cudaLaunchKernel", K::Runtime, cpu, 200, 20, 12, 501);
        S[5] = b.slice("aten::mul", K::CpuOp, cpu, 1100, 100, 13);
        S[6] = b.slice("cudaLaunchKernel", K::Runtime, cpu, 1110, 10, 13, 502);
        S[7] = b.slice("nccl:all_reduce", K::UserAnnotation, cpu, 1490, 40, 14);
        S[8] = b.slice("cudaLaunchKernel", K::Runtime, cpu, 1500, 10, kNone, 503);
        S[9] = b.slice("cudaLaunchKernel", K::Runtime, cpu, 1800, 10, kNone, 506);
        S[10] = b.slice("cudaLaunchKernel", K::Runtime, cpu, 1850, 10, kNone, 506);
        S[11] = b.slice("cudaMemcpyAsync", K::Runtime, cpu, 1900, 50);
        S[12] = b.slice("cudaLaunchKernel", K::Runtime, cpu2, 1300, 10, kNone, 502);
        S[13] = b.slice("outer", K::CpuOp, cpu2, 3000, 100);
        S[14] = b.slice("partial", K::CpuOp, cpu2, 3050, 100);
        S[15] = b.slice("child", K::CpuOp, cpu2, 3060, 10);
        A0 = b.slice("ProfilerStep#3", K::GpuUserAnnotation, s7, 250, 1150);
        A1 = b.slice("inner", K::GpuUserAnnotation, s7, 1200, 150);

        K4 = b.gpu("triton_poi_fused_add_0", K::Kernel, s7, 2500, 100, 999);
        K0 = b.gpu("volta_sgemm_128x64_nn", K::Kernel, s7, 300, 200, 501);
        K1 = b.gpu("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >()", K::Kernel,
                   s7, 1250, 50, 502);
        K2 = b.gpu("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", K::Kernel, s7, 1520, 80, 503);
        K3 = b.gpu("Memcpy HtoD (Pinned -> Device)", K::Memcpy, s7, 2100, 50, kNone);
        K5 = b.gpu("Cijk_Alik_Bljk_BBS_BH_MT64x64x64", K::Kernel, s8, 1790, 5, 506, 0, 8);
        K6 = b.gpu("void at::native::reduce_kernel<512, 1>()", K::Kernel, s8, 1260, 20, kNone, 0, 8);

        b.flow("ac2g", 's', 900, cpu, 1900);
        b.flow("ac2g", 'f', 900, s7, 2100);
        // A flow whose start binds to no runtime call (ts outside every slice) must not link anything.
        b.flow("ac2g", 's', 901, cpu, 5000);
        b.flow("ac2g", 'f', 901, s8, 1260);

        rank = &b.rank();
        auto st = mergeRank(*rank, rules);
        ASSERT_TRUE(st.ok()) << st.error().toString();
    }

    ClassificationRules rules = bundledRules();
    RankBuilder builder;
    RankData* rank = nullptr;
    uint32_t cpu = 0, s7 = 0, s8 = 0, cpu2 = 0;
    int32_t S[16] = {};
    int32_t A0 = -1, A1 = -1;
    int32_t K0 = -1, K1 = -1, K2 = -1, K3 = -1, K4 = -1, K5 = -1, K6 = -1;

    int32_t at(const Column<int32_t>& c, int32_t i) const { return c[static_cast<size_t>(i)]; }
};

TEST_F(MergeLinksTest, HierarchyParentsAndDepths) {
    const auto& s = rank->slices;
    struct Expect {
        int32_t slice, parent, depth;
    };
    const Expect expected[] = {
        {S[0], -1, 0},   {S[1], S[0], 1}, {S[2], S[1], 2}, {S[3], S[2], 3},  {S[4], -1, 0},
        {S[5], S[4], 1}, {S[6], S[5], 2}, {S[7], S[4], 1}, {S[8], S[7], 2},  {S[9], S[4], 1},
        {S[10], S[4], 1}, {S[11], S[4], 1}, {S[12], -1, 0}, {S[13], -1, 0},
        // partial overlap: S14 starts inside S13 but ends after it → not its child
        {S[14], -1, 0},  {S[15], S[14], 1}, {A0, -1, 0},    {A1, A0, 1},
    };
    for (const auto& e : expected) {
        EXPECT_EQ(s.parent[static_cast<size_t>(e.slice)], e.parent) << rank->strings.view(s.name[static_cast<size_t>(e.slice)]);
        EXPECT_EQ(s.depth[static_cast<size_t>(e.slice)], e.depth) << rank->strings.view(s.name[static_cast<size_t>(e.slice)]);
    }
    const bool warned = std::any_of(rank->diagnostics.begin(), rank->diagnostics.end(), [](const Diagnostic& d) {
        // A note (real PyTorch traces have partial overlaps: µs rounding, Python stack events), not a warning.
        return d.severity == Severity::Info && d.message.find("1 slice(s) partially overlap") != std::string::npos &&
               d.message.find("'partial'") != std::string::npos;
    });
    EXPECT_TRUE(warned);
}

TEST_F(MergeLinksTest, RuntimeLinksByCorrelationDuplicatesAndFlows) {
    const auto& g = rank->gpu;
    EXPECT_EQ(at(g.runtime, K0), S[3]);
    // 502 is on S6 (1110) and S12 (1300): K1 starts at 1250 → the call that starts last before it is S6.
    EXPECT_EQ(at(g.runtime, K1), S[6]);
    EXPECT_EQ(at(g.runtime, K2), S[8]);
    // No correlation: linked through the ac2g flow 900 (s at S11's start, f at K3's start).
    EXPECT_EQ(at(g.runtime, K3), S[11]);
    // Correlation 999 matches no call and there is no flow.
    EXPECT_EQ(at(g.runtime, K4), -1);
    // 506 is on S9 (1800) and S10 (1850); K5 starts at 1790, before both → the earliest, S9.
    EXPECT_EQ(at(g.runtime, K5), S[9]);
    // Flow 901 starts where no runtime call is: no link.
    EXPECT_EQ(at(g.runtime, K6), -1);

    const auto& s = rank->slices;
    EXPECT_EQ(at(s.launchedGpu, S[3]), K0);
    EXPECT_EQ(at(s.launchedGpu, S[11]), K3);
    EXPECT_EQ(at(s.launchedGpu, S[12]), -1);
    EXPECT_EQ(at(s.launchedGpu, S[1]), -1);

    // Two ids (502, 506) sit on more than one runtime call.
    const bool warned = std::any_of(rank->diagnostics.begin(), rank->diagnostics.end(), [](const Diagnostic& d) {
        return d.severity == Severity::Warning && d.message.find("2 correlation id(s)") != std::string::npos &&
               d.message.find("e.g. 502") != std::string::npos && d.where.file == "hand-made";
    });
    EXPECT_TRUE(warned);
}

// rocpd gives correlation id 0 to every API call that launched nothing: an id shared by calls that no GPU activity
// carries is valid input and raises no warning (it did, on three real rocprofv3 7.1 databases); one that a kernel
// carries still does. Worked by hand: calls A, B (id 0) and C (id 7); kernel K (id 7) links to C.
TEST(MergeLinks, ASharedIdThatNoGpuActivityCarriesIsNoWarning) {
    for (const bool kernelCarriesTheSharedId : {false, true}) {
        RankBuilder b;
        const uint32_t cpu = b.track(100, 1);
        const uint32_t gpu = b.track(0, 1);
        b.slice("hipMalloc", EventKind::Runtime, cpu, 0, 10, kNone, 0);
        b.slice("hipFree", EventKind::Runtime, cpu, 20, 10, kNone, 0);
        const int32_t c = b.slice("hipLaunchKernel", EventKind::Runtime, cpu, 40, 10, kNone, 7);
        const int32_t k = b.gpu("Cijk_Alik_Bljk", EventKind::Kernel, gpu, 60, 5, kernelCarriesTheSharedId ? 0 : 7);
        RankData& rank = b.rank();
        const auto st = mergeRank(rank, ClassificationRules{});
        ASSERT_TRUE(st.ok()) << st.error().toString();
        const bool warned = std::any_of(rank.diagnostics.begin(), rank.diagnostics.end(), [](const Diagnostic& d) {
            return d.message.find("correlation id") != std::string::npos;
        });
        EXPECT_EQ(warned, kernelCarriesTheSharedId);
        if (!kernelCarriesTheSharedId) {
            EXPECT_EQ(rank.gpu.runtime[static_cast<size_t>(k)], c);
        }
    }
}

TEST_F(MergeLinksTest, CpuOps) {
    const auto& g = rank->gpu;
    EXPECT_EQ(at(g.cpuOp, K0), S[2]);  // External id 12 = aten::addmm, not the outer aten::linear
    EXPECT_EQ(at(g.cpuOp, K1), S[5]);
    EXPECT_EQ(at(g.cpuOp, K2), S[7]);  // no External id, no CPU op: the user annotation (not the step)
    EXPECT_EQ(at(g.cpuOp, K3), -1);    // cudaMemcpyAsync directly under ProfilerStep#4
    EXPECT_EQ(at(g.cpuOp, K4), -1);
    EXPECT_EQ(at(g.cpuOp, K5), -1);
}

TEST_F(MergeLinksTest, Steps) {
    const auto& st = rank->steps;
    ASSERT_EQ(st.size(), 2u);  // the GPU-side ProfilerStep#3 annotation is not a step
    EXPECT_EQ(st.number[0], 3);
    EXPECT_EQ(st.start[0], 0);
    EXPECT_EQ(st.end[0], 1000);
    EXPECT_EQ(st.slice[0], S[0]);
    EXPECT_EQ(st.number[1], 4);
    EXPECT_EQ(st.slice[1], S[4]);

    const auto& g = rank->gpu;
    EXPECT_EQ(at(g.step, K0), 0);
    EXPECT_EQ(at(g.step, K1), 1);
    EXPECT_EQ(at(g.step, K2), 1);
    EXPECT_EQ(at(g.step, K3), 1);   // runs at 2100, after every step, but was launched at 1900 inside step 4
    EXPECT_EQ(at(g.step, K4), -1);  // no launch link and its own start (2500) is outside every step
    EXPECT_EQ(at(g.step, K5), 1);   // launch at 1800
    EXPECT_EQ(at(g.step, K6), 1);   // no link: its own start (1260) is in step 4
}

TEST_F(MergeLinksTest, GpuAnnotationsStayOnTheirStream) {
    const auto& g = rank->gpu;
    EXPECT_EQ(at(g.annotation, K0), A0);
    EXPECT_EQ(at(g.annotation, K1), A1);  // innermost
    EXPECT_EQ(at(g.annotation, K2), -1);  // 1520 is after both annotations
    // K6 runs on stream 8 during A1 (stream 7) and overlaps K1: it stays separate.
    EXPECT_EQ(at(g.annotation, K6), -1);
    // Both overlapping kernels are kept, each on its own track.
    EXPECT_EQ(g.track[static_cast<size_t>(K1)], s7);
    EXPECT_EQ(g.track[static_cast<size_t>(K6)], s8);
}

TEST_F(MergeLinksTest, Classification) {
    const auto& g = rank->gpu;
    auto cat = [&](int32_t k) { return g.category[static_cast<size_t>(k)]; };
    EXPECT_EQ(cat(K0), KernelCategory::Gemm);
    EXPECT_EQ(cat(K1), KernelCategory::Elementwise);
    EXPECT_EQ(cat(K2), KernelCategory::Communication);
    // The name does not say which collective; the launching annotation nccl:all_reduce does.
    EXPECT_EQ(g.collective[static_cast<size_t>(K2)], Collective::AllReduce);
    EXPECT_EQ(cat(K3), KernelCategory::Memcpy);
    EXPECT_EQ(g.copyDirection[static_cast<size_t>(K3)], CopyDirection::HtoD);
    EXPECT_EQ(cat(K4), KernelCategory::Elementwise);
    EXPECT_EQ(cat(K5), KernelCategory::Gemm);
    EXPECT_EQ(cat(K6), KernelCategory::Reduction);
    EXPECT_EQ(g.collective[static_cast<size_t>(K0)], Collective::None);
}

TEST_F(MergeLinksTest, AnnotationQueries) {
    AnnotationIndex idx(*rank);
    EXPECT_EQ(idx.innermostAt(cpu, 210), S[3]);
    EXPECT_EQ(idx.innermostAt(cpu, 210, {EventKind::CpuOp}), S[2]);
    EXPECT_EQ(idx.innermostAt(cpu, 220), S[2]);  // S3 ends at 220 (exclusive)
    EXPECT_EQ(idx.innermostAt(cpu, 999), S[0]);
    EXPECT_EQ(idx.innermostAt(cpu, 1000), S[4]);
    EXPECT_EQ(idx.innermostAt(cpu, 2000), -1);
    EXPECT_EQ(idx.innermostAt(cpu, -5), -1);
    EXPECT_EQ(idx.innermostAt(s8, 1262), -1);
    EXPECT_EQ(idx.innermostAt(99, 10), -1);  // unknown track

    std::vector<int32_t> stack;
    idx.stackAt(cpu, 210, stack);
    EXPECT_EQ(stack, (std::vector<int32_t>{S[3], S[2], S[1], S[0]}));
    idx.stackAt(cpu, 210, stack, {EventKind::UserAnnotation});
    EXPECT_EQ(stack, (std::vector<int32_t>{S[0]}));
    EXPECT_EQ(idx.enclosing(S[8], {EventKind::UserAnnotation}), S[7]);
    EXPECT_EQ(idx.enclosing(S[3], {EventKind::GpuUserAnnotation}), -1);

    idx.overlapping(cpu, 210, 1105, stack);
    EXPECT_EQ(stack, (std::vector<int32_t>{S[0], S[1], S[2], S[3], S[4], S[5]}));

    auto run = idx.gpuOverlapping(s7, 400, 1260);
    ASSERT_EQ(run.size(), 2u);
    EXPECT_EQ(static_cast<int32_t>(run[0]), K0);
    EXPECT_EQ(static_cast<int32_t>(run[1]), K1);

    auto on7 = idx.gpuOn(s7);
    std::vector<uint32_t> order(on7.begin(), on7.end());
    EXPECT_EQ(order, (std::vector<uint32_t>{static_cast<uint32_t>(K0), static_cast<uint32_t>(K1),
                                            static_cast<uint32_t>(K2), static_cast<uint32_t>(K3),
                                            static_cast<uint32_t>(K4)}));
    EXPECT_EQ(idx.stepAt(1500), 1);
    EXPECT_EQ(idx.stepAt(2000), -1);
    EXPECT_EQ(idx.stepAt(-1), -1);
}

TEST(MergeEdgeTest, EmptyRankAndCancellation) {
    RankData empty;
    ClassificationRules none;
    ASSERT_TRUE(mergeRank(empty, none).ok());
    EXPECT_EQ(empty.steps.size(), 0u);
    AnnotationIndex idx(empty);
    EXPECT_EQ(idx.innermostAt(0, 0), -1);

    RankBuilder b;
    auto t = b.track(1, 1);
    b.slice("x", EventKind::CpuOp, t, 0, 10);
    CancelToken cancel;
    cancel.cancel();
    auto st = mergeRank(b.rank(), none, cancel);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().message.find("cancelled"), std::string::npos);
}

TEST(MergeEdgeTest, InconsistentColumnsAreAnErrorNotACrash) {
    RankBuilder b;
    auto t = b.track(1, 1);
    b.slice("x", EventKind::CpuOp, t, 0, 10);
    b.rank().slices.dur.mut().clear();
    ClassificationRules none;
    auto st = mergeRank(b.rank(), none);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().where.file, "hand-made");
}

TEST(MergeEdgeTest, EqualIntervalsNestByIndexAndZeroLengthSlicesContainNothing) {
    RankBuilder b;
    auto t = b.track(1, 1);
    int32_t a = b.slice("a", EventKind::UserAnnotation, t, 100, 50);
    int32_t c = b.slice("c", EventKind::CpuOp, t, 100, 50);
    int32_t i = b.slice("instant", EventKind::CpuInstant, t, 120, 0);
    int32_t d = b.slice("d", EventKind::CpuOp, t, 120, 5);
    ClassificationRules none;
    ASSERT_TRUE(mergeRank(b.rank(), none).ok());
    const auto& s = b.rank().slices;
    EXPECT_EQ(s.parent[static_cast<size_t>(a)], -1);
    EXPECT_EQ(s.parent[static_cast<size_t>(c)], a);
    // At equal start the longer slice opens first: d (5 ns) encloses the instant (0 ns).
    EXPECT_EQ(s.parent[static_cast<size_t>(d)], c);
    EXPECT_EQ(s.parent[static_cast<size_t>(i)], d);
    AnnotationIndex idx(b.rank());
    EXPECT_EQ(idx.innermostAt(t, 120), d);
    EXPECT_EQ(idx.innermostAt(t, 126), c);
}

}  // namespace
}  // namespace strobe::core

namespace strobe::core {
namespace {

// Correlation ids far apart (no direct table): the sorted-pairs path, with a duplicate.
TEST(MergeEdgeTest, SparseCorrelationIdsWithDuplicates) {
    RankBuilder b;
    auto cpu = b.track(1, 1);
    auto gpu = b.track(0, 7);
    int32_t r1 = b.slice("cudaLaunchKernel", EventKind::Runtime, cpu, 100, 10, kNone, 5);
    int32_t r2 = b.slice("cudaLaunchKernel", EventKind::Runtime, cpu, 200, 10, kNone, 9000000000000LL);
    int32_t r3 = b.slice("cuLaunchKernel", EventKind::Driver, cpu, 300, 10, kNone, 9000000000000LL);
    int32_t r4 = b.slice("cudaLaunchKernel", EventKind::Runtime, cpu, 400, 10, kNone, 77);
    int32_t k1 = b.gpu("volta_sgemm_128x64_nn", EventKind::Kernel, gpu, 150, 10, 5);
    int32_t k2 = b.gpu("volta_sgemm_128x64_nn", EventKind::Kernel, gpu, 350, 10, 9000000000000LL);
    int32_t k3 = b.gpu("volta_sgemm_128x64_nn", EventKind::Kernel, gpu, 250, 10, 9000000000000LL);
    int32_t k4 = b.gpu("volta_sgemm_128x64_nn", EventKind::Kernel, gpu, 450, 10, 78);
    ClassificationRules none;
    ASSERT_TRUE(mergeRank(b.rank(), none).ok());
    const auto& rt = b.rank().gpu.runtime;
    EXPECT_EQ(rt[static_cast<size_t>(k1)], r1);
    EXPECT_EQ(rt[static_cast<size_t>(k2)], r3);  // 350: the driver call at 300 is the last one before it
    EXPECT_EQ(rt[static_cast<size_t>(k3)], r2);  // 250: only the call at 200 is before it
    EXPECT_EQ(rt[static_cast<size_t>(k4)], -1);  // 78 is on no call (77 is)
    EXPECT_EQ(b.rank().slices.launchedGpu[static_cast<size_t>(r4)], -1);
    ASSERT_EQ(b.rank().diagnostics.size(), 1u);
    EXPECT_NE(b.rank().diagnostics[0].message.find("1 correlation id(s)"), std::string::npos);
    EXPECT_NE(b.rank().diagnostics[0].message.find("9000000000000"), std::string::npos);
}

}  // namespace
}  // namespace strobe::core

namespace strobe::core {
namespace {

TEST_F(MergeLinksTest, RunningTheMergeAgainGivesTheSameColumns) {
    const std::vector<int32_t> runtime(rank->gpu.runtime.begin(), rank->gpu.runtime.end());
    const std::vector<int32_t> parent(rank->slices.parent.begin(), rank->slices.parent.end());
    const std::vector<int32_t> cpuOp(rank->gpu.cpuOp.begin(), rank->gpu.cpuOp.end());
    ASSERT_TRUE(mergeRank(*rank, rules).ok());
    EXPECT_EQ(std::vector<int32_t>(rank->gpu.runtime.begin(), rank->gpu.runtime.end()), runtime);
    EXPECT_EQ(std::vector<int32_t>(rank->slices.parent.begin(), rank->slices.parent.end()), parent);
    EXPECT_EQ(std::vector<int32_t>(rank->gpu.cpuOp.begin(), rank->gpu.cpuOp.end()), cpuOp);
    EXPECT_EQ(rank->steps.size(), 2u);
}

}  // namespace
}  // namespace strobe::core

// byTrack: every slice by (track, start, longest first, row) and every GPU activity by (track, start, row), whatever
// order the rows come in: in order, nearly in order (a tracer that writes each call when it ends puts a nested call
// before its parent: a few rows early, merged in), or shuffled (more than one row in nine out of order: one sort).
// Expected: std::stable_sort of the row numbers by the same keys, computed here beside the merge.
TEST(MergeLinks, ByTrackOrdersRowsThatComeInOrderNearlyOrShuffled) {
    std::mt19937_64 rng(20);
    for (const int shuffled : {0, 3, 400}) {  // rows swapped with a neighbour's place, of 2,000 per track
        RankBuilder b;
        const uint32_t t0 = b.track(100, 1), t1 = b.track(100, 2), g0 = b.track(0, 1);
        std::vector<TimeNs> starts(2000);
        for (size_t i = 0; i < starts.size(); ++i) starts[i] = static_cast<TimeNs>(i / 2) * 10;  // pairs share a start
        for (int s = 0; s < shuffled; ++s) {
            const size_t i = rng() % (starts.size() - 50);
            std::swap(starts[i], starts[i + 1 + rng() % 40]);
        }
        for (size_t i = 0; i < starts.size(); ++i) {
            const TimeNs dur = static_cast<TimeNs>(rng() % 3);
            b.slice("call", EventKind::Runtime, i % 3 == 0 ? t1 : t0, starts[i], dur);
            b.gpu("kernel", EventKind::Kernel, g0, starts[starts.size() - 1 - i], 5, kNone);
        }
        RankData& rank = b.rank();
        ASSERT_TRUE(mergeRank(rank, ClassificationRules{}).ok());
        std::vector<uint32_t> want(rank.slices.size());
        std::iota(want.begin(), want.end(), 0u);
        const auto& s = rank.slices;
        std::stable_sort(want.begin(), want.end(), [&](uint32_t x, uint32_t y) {
            return std::tuple(s.track[x], s.ts[x], -s.dur[x]) < std::tuple(s.track[y], s.ts[y], -s.dur[y]);
        });
        EXPECT_EQ(std::vector<uint32_t>(s.byTrack.begin(), s.byTrack.end()), want) << shuffled;
        std::vector<uint32_t> wantGpu(rank.gpu.size());
        std::iota(wantGpu.begin(), wantGpu.end(), 0u);
        const auto& g = rank.gpu;
        std::stable_sort(wantGpu.begin(), wantGpu.end(), [&](uint32_t x, uint32_t y) {
            return std::tuple(g.track[x], g.ts[x]) < std::tuple(g.track[y], g.ts[y]);
        });
        EXPECT_EQ(std::vector<uint32_t>(g.byTrack.begin(), g.byTrack.end()), wantGpu) << shuffled;
    }
}
