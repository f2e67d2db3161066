// Communication overlapping computation kernels (core/analysis/kernel_overlap): a hand-built rank whose intervals
// were worked out by hand (two collectives overlapping each other and one GEMM: no double counting; a long
// collective spanning several GEMMs; another device), and the real 8-rank DLRM sample against
// tests/data/expected/kernel_overlap.py (brute force over every pair, Python's json only).
#include "core/analysis/kernel_overlap.h"

#include <algorithm>
#include <string>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "core/analysis/overlap.h"
#include "core/engine/run_loader.h"
#include "tests/core/analysis_test_util.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

namespace strobe::core {
namespace {

using testutil::RankBuilder;

// Device 0: GEMMs g1 [1000,2000), g2 [2400,2600), g3 [3000,3500), g4 [11000,11100), g5 [12000,12500),
// g6 [19900,20100); relu [1500,1700) (elementwise); on device 1, GEMM g7 [1100,1400).
// Collectives (device 0): A [500,1300) stream 20, B [1200,1600) stream 21 (overlaps A), C [1900,2500) stream 20,
// D [10000,20000) stream 22.
DatasetPtr handBuilt() {
    RankBuilder b(0);
    struct K {
        const char* name;
        TimeNs s, e;
        int32_t stream;
        KernelCategory cat;
        int16_t device;
    };
    const K kernels[] = {
        {"ncclKernel_AllReduce_A", 500, 1300, 20, KernelCategory::Communication, 0},
        {"volta_sgemm_g", 1000, 2000, 7, KernelCategory::Gemm, 0},
        {"volta_sgemm_g", 1100, 1400, 7, KernelCategory::Gemm, 1},
        {"ncclKernel_AllGather_B", 1200, 1600, 21, KernelCategory::Communication, 0},
        {"relu_kernel", 1500, 1700, 8, KernelCategory::Elementwise, 0},
        {"ncclKernel_SendRecv_C", 1900, 2500, 20, KernelCategory::Communication, 0},
        {"volta_sgemm_g", 2400, 2600, 7, KernelCategory::Gemm, 0},
        {"volta_sgemm_g", 3000, 3500, 7, KernelCategory::Gemm, 0},
        {"ncclKernel_AllReduce_D", 10000, 20000, 22, KernelCategory::Communication, 0},
        {"volta_sgemm_g", 11000, 11100, 7, KernelCategory::Gemm, 0},
        {"volta_sgemm_g", 12000, 12500, 7, KernelCategory::Gemm, 0},
        {"volta_sgemm_g", 19900, 20100, 7, KernelCategory::Gemm, 0},
    };
    for (const K& k : kernels) {
        const uint32_t row = b.gpu(k.name, k.s, k.e - k.s, k.stream);
        auto& g = b.data().gpu;
        g.device.at(row) = k.device;
        g.category.resize(g.size());
        g.category.at(row) = k.cat;
    }
    return testutil::makeDataset({b.build()});
}

TEST(KernelOverlap, UnionOfOverlappingCollectivesCountsOnce) {
    AnalysisContext ctx(handBuilt());
    auto ranks = kernelOverlap(ctx, WindowSpec{});
    ASSERT_TRUE(ranks) << ranks.error().toString();
    ASSERT_EQ(ranks->size(), 1u);
    const RankKernelOverlap& r = ranks->front();
    ASSERT_EQ(r.kernels.size(), 8u);  // 7 GEMMs and relu: every COMPUTATION kernel, in start order
    auto name = [&](uint32_t row) { return std::string(r.data->strings.view(r.data->gpu.name[row])); };

    // g1 [1000,2000): A gives 1300-1000 = 300, B 1600-1200 = 400, C 2000-1900 = 100 (800 summed), but A and B
    // overlap on [1200,1300): the union [1000,1600) + [1900,2000) is 600 + 100 = 700.
    const KernelOverlap& g1 = r.kernels[0];
    EXPECT_EQ(g1.start, 1000);
    EXPECT_EQ(g1.overlappedNs, 700);
    const auto c1 = r.commsOf(g1);
    ASSERT_EQ(c1.size(), 3u);
    EXPECT_EQ(name(c1[0].row), "ncclKernel_AllReduce_A");
    EXPECT_EQ(c1[0].overlapNs, 300);
    EXPECT_EQ(name(c1[1].row), "ncclKernel_AllGather_B");
    EXPECT_EQ(c1[1].overlapNs, 400);
    EXPECT_EQ(name(c1[2].row), "ncclKernel_SendRecv_C");
    EXPECT_EQ(c1[2].overlapNs, 100);
    // g7 on device 1 [1100,1400) runs during A and B, which are on device 0: nothing.
    EXPECT_EQ(r.kernels[1].start, 1100);
    EXPECT_EQ(r.kernels[1].overlappedNs, 0);
    EXPECT_EQ(r.kernels[1].commCount, 0u);
    // relu [1500,1700): B until 1600 = 100 (A ended at 1300).
    EXPECT_EQ(name(r.kernels[2].row), "relu_kernel");
    EXPECT_EQ(r.kernels[2].overlappedNs, 100);
    EXPECT_EQ(r.kernels[2].commCount, 1u);
    // g2 [2400,2600): C until 2500 = 100; g3 [3000,3500): none.
    EXPECT_EQ(r.kernels[3].overlappedNs, 100);
    EXPECT_EQ(r.kernels[4].overlappedNs, 0);
    // D [10000,20000) spans g4 (100 of 100), g5 (500 of 500), g6 [19900,20100) (100 of 200).
    EXPECT_EQ(r.kernels[5].overlappedNs, 100);
    EXPECT_EQ(r.kernels[6].overlappedNs, 500);
    EXPECT_EQ(r.kernels[7].overlappedNs, 100);
    EXPECT_EQ(r.kernels[7].commCount, 1u);
}

TEST(KernelOverlap, SweepPoolsRepeatsPerConfiguration) {
    const DatasetPtr ds = handBuilt();
    // Two repeats of one configuration (the same data twice) and one other configuration.
    RunSet runs{RunEntry{"a/rep0", ds, {{"x", 1LL}}}, RunEntry{"a/rep1", ds, {{"x", 1LL}}},
                RunEntry{"b", ds, {{"x", 2LL}}}};
    KernelOverlapOptions o;
    o.instances = true;
    auto res = sweepKernelOverlap(runs, o);
    ASSERT_TRUE(res) << res.error().toString();
    const SweepKernelOverlap& s = res.value();
    // GEMMs only: durations g1..g7 = 1000, 200, 500, 100, 500, 200, 300 (sum 2800); overlapped 700, 100, 0, 100,
    // 500, 100, 0 (sum 1500). Overlapped ones {1000,200,100,500,200}: median 200, mean 400; alone {500,300}:
    // median 400, mean 400.
    ASSERT_EQ(s.groups.size(), 2u);
    const OverlapGroupRow& a = s.groups[0];
    EXPECT_EQ(a.group, "volta_sgemm_g");
    EXPECT_EQ(a.config, "x=1");
    EXPECT_EQ(a.instances, 14u);
    EXPECT_EQ(a.overlappedInstances, 10u);
    EXPECT_EQ(a.totalNs, 5600);
    EXPECT_EQ(a.overlappedNs, 3000);
    EXPECT_NEAR(a.overlappedShare, 1500.0 / 2800.0, 1e-12);
    EXPECT_NEAR(a.perStepNs, 2800.0, 1e-9);  // no ProfilerStep: each repeat is one step
    EXPECT_NEAR(*a.medianOverlappedNs, 200.0, 1e-9);
    EXPECT_NEAR(*a.meanOverlappedNs, 400.0, 1e-9);
    EXPECT_NEAR(*a.medianAloneNs, 400.0, 1e-9);
    EXPECT_NEAR(*a.meanAloneNs, 400.0, 1e-9);
    EXPECT_NEAR(*a.slowdown, 0.5, 1e-12);
    EXPECT_NEAR(*a.slowdownMean, 1.0, 1e-12);
    EXPECT_EQ(s.groups[1].config, "x=2");
    EXPECT_EQ(s.groups[1].instances, 7u);

    // Instances: 7 GEMMs per run, 21 in all; the first is g1 of a/rep0 with its three collectives.
    ASSERT_EQ(s.instances.size(), 21u);
    const OverlapInstanceRow& i0 = s.instances[0];
    EXPECT_EQ(i0.run, 0u);
    EXPECT_EQ(i0.startNs, 1000);
    EXPECT_EQ(i0.durNs, 1000);
    EXPECT_EQ(i0.overlappedNs, 700);
    ASSERT_EQ(i0.collectives.size(), 3u);
    EXPECT_EQ(i0.collectives[1].name, "ncclKernel_AllGather_B");
    EXPECT_EQ(i0.collectives[1].overlapNs, 400);

    // HTA per rank: merged communication [500,1600) + [1900,2500) + [10000,20000) = 1100 + 600 + 10000 = 11700;
    // merged computation (every device) [1000,2000), [2400,2600), [3000,3500), [11000,11100), [12000,12500),
    // [19900,20100); both: 600 + 100 + 100 + 0 + 100 + 500 + 100 = 1500 per run; two repeats pooled.
    ASSERT_EQ(s.ranks.size(), 2u);
    EXPECT_EQ(s.ranks[0].runs, 2u);
    EXPECT_EQ(s.ranks[0].commNs, 23400);
    EXPECT_EQ(s.ranks[0].overlapNs, 3000);
    EXPECT_NEAR(*s.ranks[0].overlapPct, 100.0 * 1500 / 11700, 1e-9);

    // Every computation kernel, one group by category: relu joins as its own group.
    o.category.reset();
    o.groupBy = SweepGroupBy::Category;
    o.instances = false;
    auto all = sweepKernelOverlap(runs, o);
    ASSERT_TRUE(all);
    ASSERT_EQ(all->groups.size(), 4u);  // gemm and elementwise x two configurations
    EXPECT_EQ(all->groups[0].group, "gemm");
    EXPECT_EQ(all->groups[2].group, "elementwise");
    EXPECT_EQ(all->groups[2].overlappedNs, 200);  // relu: 100 per run, two repeats
    o.group = "no-such-group";
    auto none = sweepKernelOverlap(runs, o);
    ASSERT_TRUE(none);
    EXPECT_TRUE(none->groups.empty());
    EXPECT_FALSE(none->messages.empty());
}

struct Expected {
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    Expected() {
        simdjson::padded_string text;
        EXPECT_EQ(simdjson::padded_string::load(std::string(STROBE_TEST_DATA_DIR) + "/expected/kernel_overlap.json").get(text),
                  simdjson::SUCCESS);
        EXPECT_EQ(parser.parse(text).get(root), simdjson::SUCCESS);
    }
};

// Reading the expected values without exceptions: a missing key fails the test.
int64_t I(simdjson::dom::element e) {
    int64_t v = 0;
    EXPECT_EQ(e.get_int64().get(v), simdjson::SUCCESS);
    return v;
}
double D(simdjson::dom::element e) {
    double v = 0;
    EXPECT_EQ(e.get_double().get(v), simdjson::SUCCESS);
    return v;
}
std::string_view S(simdjson::dom::element e) {
    std::string_view v;
    EXPECT_EQ(e.get_string().get(v), simdjson::SUCCESS);
    return v;
}
simdjson::dom::element at(simdjson::dom::element e, const char* key) {
    simdjson::dom::element v;
    EXPECT_EQ(e[key].get(v), simdjson::SUCCESS) << key;
    return v;
}
simdjson::dom::array A(simdjson::dom::element e) {
    simdjson::dom::array v;
    EXPECT_EQ(e.get_array().get(v), simdjson::SUCCESS);
    return v;
}

DatasetPtr loadDlrm() {
    RunLoadOptions options;
    options.useCache = false;
    auto r = loadRun({std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank"}, options);
    EXPECT_TRUE(r) << r.error().toString();
    return r ? *r : nullptr;
}

TEST(KernelOverlap, RealDlrmGemmInstancesMatchPython) {
    Expected exp;
    const DatasetPtr ds = loadDlrm();
    ASSERT_TRUE(ds);
    AnalysisContext ctx(ds);
    auto ranks = kernelOverlap(ctx, WindowSpec{});
    ASSERT_TRUE(ranks);
    auto r0 = std::find_if(ranks->begin(), ranks->end(), [](const RankKernelOverlap& r) { return r.rank == 0; });
    ASSERT_NE(r0, ranks->end());
    for (const char* kernel : {"volta_sgemm_128x32_nt", "volta_sgemm_64x32_sliced1x4_nn"}) {
        simdjson::dom::element e = at(at(at(exp.root, "param-dlrm-8rank"), "kernels"), kernel);
        std::vector<const KernelOverlap*> mine;
        for (const auto& k : r0->kernels)
            if (r0->data->strings.view(r0->data->gpu.name[k.row]) == kernel) mine.push_back(&k);
        ASSERT_EQ(int64_t(mine.size()), I(at(e, "instances"))) << kernel;
        int64_t overlapped = 0;
        for (const auto* k : mine) overlapped += k->overlappedNs > 0;
        EXPECT_EQ(overlapped, I(at(e, "overlapped_instances"))) << kernel;
        size_t i = 0;
        for (simdjson::dom::element row : A(at(e, "rows"))) {
            ASSERT_LT(i, mine.size());
            EXPECT_EQ(mine[i]->start, I(at(row, "start_ns"))) << kernel << " #" << i;
            EXPECT_EQ(mine[i]->dur(), I(at(row, "dur_ns"))) << kernel << " #" << i;
            EXPECT_EQ(mine[i]->overlappedNs, I(at(row, "overlapped_ns"))) << kernel << " #" << i;
            const auto comms = r0->commsOf(*mine[i]);
            simdjson::dom::array colls = A(at(row, "collectives"));
            ASSERT_EQ(comms.size(), colls.size()) << kernel << " #" << i;
            size_t c = 0;
            for (simdjson::dom::element pair : colls) {
                EXPECT_EQ(r0->data->strings.view(r0->data->gpu.name[comms[c].row]), S(pair.at(0).value_unsafe()));
                EXPECT_EQ(comms[c].overlapNs, I(pair.at(1).value_unsafe()));
                ++c;
            }
            ++i;
        }
    }
}

TEST(KernelOverlap, RealDlrmPerRankAndPooledGroupMatchPython) {
    Expected exp;
    const DatasetPtr ds = loadDlrm();
    ASSERT_TRUE(ds);
    RunSet runs{RunEntry{"dlrm", ds}};
    KernelOverlapOptions o;
    o.top = 0;
    auto s = sweepKernelOverlap(runs, o);
    ASSERT_TRUE(s) << s.error().toString();
    // Per rank: Python's HTA overlap, and the existing `overlap` analysis (the sweep reuses it, pooled).
    AnalysisContext ctx(ds);
    auto hta = commCompOverlap(ctx, WindowSpec{});
    ASSERT_TRUE(hta);
    ASSERT_EQ(s->ranks.size(), 8u);
    for (simdjson::dom::element e : A(at(at(exp.root, "param-dlrm-8rank"), "ranks"))) {
        const int rank = int(I(at(e, "rank")));
        auto it = std::find_if(s->ranks.begin(), s->ranks.end(), [&](const OverlapRankRow& r) { return r.rank == rank; });
        ASSERT_NE(it, s->ranks.end()) << rank;
        EXPECT_EQ(it->commNs, I(at(e, "comm_ns"))) << rank;
        EXPECT_EQ(it->overlapNs, I(at(e, "overlap_ns"))) << rank;
        ASSERT_TRUE(it->overlapPct.has_value());
        EXPECT_NEAR(*it->overlapPct, D(at(e, "overlap_pct")), 1e-9) << rank;
        bool found = false;
        for (size_t row = 0; row < hta->rows.size(); ++row)
            if (Table::number(hta->at(row, "rank")) == rank) {
                found = true;
                EXPECT_NEAR(Table::number(hta->at(row, "overlap_pct")), *it->overlapPct, 1e-9) << rank;
            }
        EXPECT_TRUE(found) << rank;
    }
    // One GEMM name pooled over the 8 ranks.
    simdjson::dom::element pooled = at(at(exp.root, "param-dlrm-8rank"), "all_ranks");
    auto g = std::find_if(s->groups.begin(), s->groups.end(),
                          [](const OverlapGroupRow& r) { return r.group == "volta_sgemm_128x32_nt"; });
    ASSERT_NE(g, s->groups.end());
    EXPECT_EQ(int64_t(g->instances), I(at(pooled, "instances")));
    EXPECT_EQ(int64_t(g->overlappedInstances), I(at(pooled, "overlapped_instances")));
    EXPECT_EQ(g->overlappedNs, I(at(pooled, "overlapped_ns_total")));
    EXPECT_EQ(g->totalNs, I(at(pooled, "dur_ns_total")));
    // Every group here is a GEMM (the default category), none of them a collective or an elementwise kernel.
    for (const auto& row : s->groups) EXPECT_EQ(row.group.find("ncclKernel"), std::string::npos) << row.group;
}

TEST(KernelOverlap, RealTraceWithManyStepsSkipsWarmUp) {
    Expected exp;
    RunLoadOptions options;
    options.useCache = false;
    auto ds = loadRun({std::string(STROBE_TEST_DATA_DIR) + "/kineto/hta/df_index_resolver"}, options);
    ASSERT_TRUE(ds) << ds.error().toString();
    RunSet runs{RunEntry{"df", *ds}};
    KernelOverlapOptions o;
    o.group = "volta_sgemm_128x32_nt";
    auto all = sweepKernelOverlap(runs, o);
    ASSERT_TRUE(all);
    simdjson::dom::element e = at(at(at(exp.root, "df_index_resolver"), "kernels"), "volta_sgemm_128x32_nt");
    ASSERT_EQ(all->groups.size(), 1u);
    EXPECT_EQ(int64_t(all->groups[0].instances), I(at(e, "instances")));
    EXPECT_EQ(int64_t(all->groups[0].overlappedInstances), I(at(e, "overlapped_instances")));
    EXPECT_EQ(all->groups[0].totalNs, I(at(e, "dur_ns_total")));
    ASSERT_EQ(all->ranks.size(), 1u);
    EXPECT_EQ(all->ranks[0].commNs, I(at(at(at(exp.root, "df_index_resolver"), "rank"), "comm_ns")));
    // Skipping two of its steps keeps fewer instances, over fewer steps.
    o.skipSteps = 2;
    auto later = sweepKernelOverlap(runs, o);
    ASSERT_TRUE(later);
    ASSERT_EQ(later->groups.size(), 1u);
    EXPECT_LT(later->groups[0].instances, all->groups[0].instances);
    EXPECT_GT(later->groups[0].instances, 0u);
    o.skipSteps = 1000;
    auto none = sweepKernelOverlap(runs, o);
    ASSERT_TRUE(none);
    EXPECT_TRUE(none->groups.empty());
    EXPECT_FALSE(none->messages.empty());
}

}  // namespace
}  // namespace strobe::core
