// Sweep comparison (issue 9) on a generated sweep (tests/core/sweep_gen.h): per-step statistics per kernel and
// configuration, and which deltas against the baseline are significant.
#include "core/analysis/sweep_compare.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/engine/run_loader.h"
#include "core/sweep/sweep_discovery.h"
#include "tests/core/sweep_gen.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

namespace strobe::core {
namespace {

RunSet loadSweep(const std::string& dir) {
    RunSet out;
    RunLoadOptions options;
    options.useCache = false;
    for (const auto& run : sweep::discoverSweep({dir}).runs) {
        auto loaded = loadRun(run.paths, options);
        EXPECT_TRUE(static_cast<bool>(loaded)) << run.path();
        if (!loaded) continue;
        RunEntry entry = run;
        entry.dataset = *loaded;
        out.push_back(std::move(entry));
    }
    return out;
}

const SweepCompareRow* find(const SweepComparison& c, const std::string& group, const std::string& config) {
    auto it = std::find_if(c.rows.begin(), c.rows.end(),
                           [&](const SweepCompareRow& r) { return r.group == group && r.config == config; });
    return it == c.rows.end() ? nullptr : &*it;
}

TEST(SweepCompare, TenPercentSlowerKernelIsSignificantNoiseIsNot) {
    test::TempDir dir("strobe-sweep-compare");
    test::writeGeneratedSweep(dir.path());
    const auto runs = loadSweep(dir.path().string());
    ASSERT_EQ(runs.size(), 6u);
    SweepCompareOptions o;
    o.baseline = "bs=1";
    const SweepComparison c = compareSweep(runs, o);
    ASSERT_EQ(c.rows.size(), 4u);
    ASSERT_TRUE(c.method.has_value());
    EXPECT_NE(c.method->find("resampling runs"), std::string::npos) << *c.method;  // was "repeats" (issue 21 wording)
    EXPECT_NE(c.method->find("Holm"), std::string::npos) << *c.method;

    // gemm, bs=1: per-step times over 3 repeats x 4 steps are 1000*{0.99,1,1.01} + {0,4,-4,0}:
    // {990,994,986,990, 1000,1004,996,1000, 1010,1014,1006,1010}; mean 1000, median (1000+1000)/2 = 1000,
    // p5 at rank 0.05*11 = 0.55 between 986 and 990: 988.2; p95 at 10.45 between 1010 and 1014: 1011.8;
    // deviations from 1000: -10,-6,-14,-10, 0,4,-4,0, 10,14,6,10; squares sum to 432+32+432 = 896, sample
    // stddev sqrt(896 / 11) = 9.025; 12 kernels.
    const auto* g1 = find(c, "gemm", "bs=1");
    ASSERT_NE(g1, nullptr);
    EXPECT_EQ(g1->count, 12u);
    EXPECT_NEAR(g1->perStepNs, 1000.0, 0.5);
    EXPECT_NEAR(g1->medianNs, 1000.0, 0.5);
    EXPECT_NEAR(g1->p5Ns, 988.2, 0.5);
    EXPECT_NEAR(g1->p95Ns, 1011.8, 0.5);
    EXPECT_NEAR(g1->stddevNs, 9.025, 0.05);
    EXPECT_FALSE(g1->deltaPct.has_value());  // the baseline itself
    // gemm, bs=2: 1100 * mean{0.99,1,1.01} = 1100 per step: +10 %, the repeats {1089,1100,1111} never overlap
    // the baseline's {990,1000,1010}, so every resample's delta is > 0.
    const auto* g2 = find(c, "gemm", "bs=2");
    ASSERT_NE(g2, nullptr);
    EXPECT_NEAR(g2->perStepNs, 1100.0, 0.5);
    ASSERT_TRUE(g2->deltaPct.has_value());
    EXPECT_NEAR(*g2->deltaPct, 10.0, 0.05);
    EXPECT_GT(*g2->ciLowPct, 0.0);
    EXPECT_TRUE(g2->significant);
    // relu: 500 vs 502 per step (+0.4 %), the repeat means spread +-5 %: the CI holds 0, not flagged.
    const auto* r2 = find(c, "relu", "bs=2");
    ASSERT_NE(r2, nullptr);
    EXPECT_NEAR(find(c, "relu", "bs=1")->perStepNs, 500.0, 0.5);
    EXPECT_NEAR(r2->perStepNs, 502.0, 0.5);
    EXPECT_NEAR(*r2->deltaPct, 0.4, 0.05);
    EXPECT_LT(*r2->ciLowPct, 0.0);
    EXPECT_GT(*r2->ciHighPct, 0.0);
    EXPECT_FALSE(r2->significant);
}

TEST(SweepCompare, SkipStepsTopAndRunBaseline) {
    test::TempDir dir("strobe-sweep-compare");
    test::writeGeneratedSweep(dir.path());
    const auto runs = loadSweep(dir.path().string());
    SweepCompareOptions o;
    o.skipSteps = 2;  // keeps steps 2 and 3: gemm bs=1 per-step {986,990, 996,1000, 1006,1010}: mean 998
    o.top = 1;        // gemm only (1100 ns per step beats relu's 502)
    o.baseline = runs.front().label;
    const SweepComparison c = compareSweep(runs, o);
    ASSERT_EQ(c.rows.size(), 2u);
    EXPECT_EQ(c.rows[0].group, "gemm");
    EXPECT_EQ(c.rows[0].count, 6u);
    EXPECT_NEAR(c.rows[0].perStepNs, 998.0, 0.5);
    EXPECT_TRUE(c.rows[1].deltaPct.has_value());
}

// Two configurations (mode=a, mode=b), one run each, 4 steps: "big" takes 5000 ns in both, "small" 100 ns in
// mode=a and 300 ns in mode=b. By time per step "big" leads; by change (+200 %) and by spread across
// configurations (stddev of {100, 300} = 141.42 ns vs 0 for big) "small" does.
void writeBigSmallSweep(const std::filesystem::path& dir) {
    for (int c = 0; c < 2; ++c) {
        std::string events;
        for (int s = 0; s < 4; ++s) {
            const double t = 1000.0 + 20.0 * s, smallUs = c == 0 ? 0.1 : 0.3;
            events += fmt::format(
                "{}{{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#{}\", \"pid\": 1, "
                "\"tid\": 1, \"ts\": {}, \"dur\": 20}},\n"
                "{{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"big\", \"pid\": 0, \"tid\": 7, \"ts\": {}, "
                "\"dur\": 5, \"args\": {{\"device\": 0, \"stream\": 7, \"correlation\": {}}}}},\n"
                "{{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"small\", \"pid\": 0, \"tid\": 7, \"ts\": {}, "
                "\"dur\": {}, \"args\": {{\"device\": 0, \"stream\": 7, \"correlation\": {}}}}}",
                s ? ",\n" : "", s, t, t + 1, 2 * s + 1, t + 8, smallUs, 2 * s + 2);
        }
        test::writeFile(dir / (c == 0 ? "mode=a" : "mode=b") / "trace.json",
                        "{\"traceEvents\": [\n" + events + "\n]}\n");
    }
}

TEST(SweepCompare, TopRanksByTimeDeltaOrSpread) {
    test::TempDir dir("strobe-sweep-rank");
    writeBigSmallSweep(dir.path());
    const auto runs = loadSweep(dir.path().string());
    ASSERT_EQ(runs.size(), 2u);
    SweepCompareOptions o;
    o.top = 1;
    o.rankBy = SweepRankBy::Time;
    EXPECT_EQ(compareSweep(runs, o).rows.front().group, "big");
    o.rankBy = SweepRankBy::Variance;
    const SweepComparison v = compareSweep(runs, o);
    ASSERT_EQ(v.rows.size(), 2u);
    EXPECT_EQ(v.rows.front().group, "small");
    EXPECT_NEAR(v.rows.front().spreadNs, 141.42, 0.05);
    // Auto with a baseline ranks by |change| (issue 21: every comparison is made and Holm-corrected whatever --top
    // keeps; one run of 4 steps per configuration allows no interval, so none is given).
    o.rankBy = SweepRankBy::Auto;
    o.baseline = "mode=a";
    const SweepComparison d = compareSweep(runs, o);
    ASSERT_EQ(d.rows.size(), 2u);
    EXPECT_EQ(d.rows.front().group, "small");
    ASSERT_TRUE(d.rows[1].deltaPct.has_value());
    EXPECT_NEAR(*d.rows[1].deltaPct, 200.0, 0.01);
    ASSERT_TRUE(d.method.has_value());
    EXPECT_NE(d.method->find("Holm"), std::string::npos) << *d.method;
    EXPECT_FALSE(d.rows[0].ciLowPct.has_value());  // "small" at mode=a: the baseline itself
    EXPECT_EQ(d.rows[0].reason, "baseline");
    EXPECT_FALSE(d.rows[1].ciLowPct.has_value());  // 1 run and 4 kept steps: n/a
    EXPECT_TRUE(d.rows[1].reason.starts_with("n/a: mode=b has 1 run and 4 kept steps")) << d.rows[1].reason;
    EXPECT_FALSE(std::any_of(d.rows.begin(), d.rows.end(), [](const SweepCompareRow& r) { return r.group == "big"; }));
    // Delta without a baseline falls back to time, and says so.
    o.rankBy = SweepRankBy::Delta;
    o.baseline.clear();
    const SweepComparison f = compareSweep(runs, o);
    EXPECT_EQ(f.rows.front().group, "big");
    EXPECT_TRUE(std::any_of(f.messages.begin(), f.messages.end(),
                            [](const std::string& m) { return m.find("ranked by time") != std::string::npos; }));
    SweepRankBy by{};
    EXPECT_TRUE(parseSweepRankBy("variance", by));
    EXPECT_EQ(by, SweepRankBy::Variance);
    EXPECT_FALSE(parseSweepRankBy("size", by));
}

TEST(SweepCompare, OneRunPerConfigurationSaysThereIsNoNoiseEstimate) {
    test::TempDir dir("strobe-sweep-compare");
    test::writeGeneratedSweep(dir.path(), 1);
    const auto runs = loadSweep(dir.path().string());
    ASSERT_EQ(runs.size(), 2u);
    SweepCompareOptions o;
    o.baseline = "bs=1";
    const SweepComparison c = compareSweep(runs, o);
    EXPECT_TRUE(std::any_of(c.messages.begin(), c.messages.end(),
                            [](const std::string& m) { return m.find("no noise estimate") != std::string::npos; }));
    // One run of 4 steps per configuration: below both thresholds (2 runs, 5 steps), so no interval at all
    // (issue 21; this expected "resampling steps" before, an interval from 4 steps of one run).
    ASSERT_TRUE(c.method.has_value());
    EXPECT_NE(c.method->find("resampling nothing"), std::string::npos) << *c.method;
    for (const auto& r : c.rows) EXPECT_FALSE(r.significant || r.ciLowPct.has_value()) << r.group;
}

TEST(SweepCompare, UnknownBaselineIsAMessageNotADelta) {
    test::TempDir dir("strobe-sweep-compare");
    test::writeGeneratedSweep(dir.path(), 1);
    SweepCompareOptions o;
    o.baseline = "bs=7";
    const SweepComparison c = compareSweep(loadSweep(dir.path().string()), o);
    EXPECT_FALSE(c.baseline.has_value());
    EXPECT_FALSE(c.messages.empty());
    for (const auto& r : c.rows) EXPECT_FALSE(r.deltaPct.has_value());
}

// Expected by hand from the rule: argument list and template arguments dropped, tokens that are tile shapes
// (letters then NxM[xK...]) or hex hashes of 8+ digits dropped.
TEST(SweepGroupBy, NormalizedNamesDropShapesTemplatesAndHashes) {
    EXPECT_EQ(normalizedKernelName("void ns::gemm<float, 128>(float*, int)"), "ns::gemm");
    EXPECT_EQ(normalizedKernelName("ampere_sgemm_128x64_tn"), "ampere_sgemm_tn");
    EXPECT_EQ(normalizedKernelName("ampere_sgemm_64x32_tn"), "ampere_sgemm_tn");
    EXPECT_EQ(normalizedKernelName("Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0"),
              "Cijk_Ailk_Bljk_HHS_BH_SN_1LDSB0");
    EXPECT_EQ(normalizedKernelName("kernel_0x7f3a9c2e"), "kernel");
    EXPECT_EQ(normalizedKernelName("triton_fused_9f86d081884c7d65"), "triton_fused");
    EXPECT_EQ(normalizedKernelName("volta_scudnn_128x128_stridedB_splitK_medium_nn_v1"),
              "volta_scudnn_stridedB_splitK_medium_nn_v1");
    EXPECT_EQ(normalizedKernelName("relu"), "relu");
    EXPECT_EQ(normalizedKernelName("deadbeef_kernel"), "deadbeef_kernel");  // letters only: a word, not a hash
}

TEST(SweepGroupBy, ParsesEveryModeAndRejectsTheRest) {
    SweepGroupBy by{};
    std::string re, error;
    EXPECT_TRUE(parseSweepGroupBy("op", by, re, error));
    EXPECT_EQ(by, SweepGroupBy::Op);
    EXPECT_TRUE(parseSweepGroupBy("normalized", by, re, error));
    EXPECT_EQ(by, SweepGroupBy::Normalized);
    EXPECT_TRUE(parseSweepGroupBy("regex:^(ge|re)", by, re, error));
    EXPECT_EQ(by, SweepGroupBy::Regex);
    EXPECT_EQ(re, "^(ge|re)");
    EXPECT_FALSE(parseSweepGroupBy("regex:(unclosed", by, re, error));
    EXPECT_NE(error.find("(unclosed"), std::string::npos) << error;
    EXPECT_FALSE(parseSweepGroupBy("kernels", by, re, error));
    EXPECT_NE(error.find("normalized"), std::string::npos) << error;
    EXPECT_EQ(error.find("--group-by"), std::string::npos) << error;  // the caller names its flag or key
    by = SweepGroupBy::Category;
    EXPECT_TRUE(parseSweepGroupBy("kernel", by, re, error));  // kernel-breakdown's spelling of name
    EXPECT_EQ(by, SweepGroupBy::Name);
}

// On the generated sweep (gemm and relu, 4 steps x 3 repeats per configuration, no CPU operators): a regex's
// capture group names the group, kernels it misses are "(other)"; by operator every kernel is "(no operator)".
TEST(SweepGroupBy, RegexAndOperatorGroupsOnTheGeneratedSweep) {
    test::TempDir dir("strobe-sweep-groupby");
    test::writeGeneratedSweep(dir.path());
    const auto runs = loadSweep(dir.path().string());
    SweepCompareOptions o;
    o.groupBy = SweepGroupBy::Regex;
    o.groupRegex = "^(rel)u";
    auto c = compareSweep(runs, o);
    ASSERT_NE(find(c, "rel", "bs=1"), nullptr);
    ASSERT_NE(find(c, "(other)", "bs=2"), nullptr);
    EXPECT_EQ(find(c, "rel", "bs=1")->count, 12u);      // relu: 4 steps x 3 repeats
    EXPECT_EQ(find(c, "(other)", "bs=2")->count, 12u);  // gemm
    EXPECT_EQ(c.rows.size(), 4u);
    o.groupBy = SweepGroupBy::Op;
    c = compareSweep(runs, o);
    ASSERT_EQ(c.rows.size(), 2u);
    EXPECT_EQ(c.rows[0].group, "(no operator)");
    EXPECT_EQ(c.rows[0].count, 24u);
}

}  // namespace
}  // namespace strobe::core

namespace strobe::core {
namespace {

// Cross-vendor matching on real traces: the MI300X ResNet (tests/data/kineto/tracelens) against the V100 ResNet-50
// (kineto-configs, num_workers 0). Expected from tests/data/expected/sweep_cross_vendor.py (Python json, no
// Strobe): no kernel name is shared; by call site 15 of 28 groups are found in both, holding 68.1 % of the MI300X
// kernel time and 95.8 % of the V100's.
TEST(SweepCrossVendor, CallSitesMatchWhereKernelNamesDoNot) {
    RunLoadOptions options;
    options.useCache = false;
    RunSet runs;
    for (const auto& [gpu, dir] : {std::pair<std::string, std::string>{"mi300x", "/kineto/tracelens"},
                                   {"v100", "/kineto/kineto-configs/resnet50_num_workers_0"}}) {
        auto d = loadRun({std::string(STROBE_TEST_DATA_DIR) + dir}, options);
        ASSERT_TRUE(d.ok()) << dir;
        runs.push_back(RunEntry{gpu, *d, {{"gpu", gpu}}, {dir}});
    }
    SweepCompareOptions o;
    auto byName = compareSweep(runs, o);
    ASSERT_FALSE(byName.messages.empty());
    EXPECT_NE(byName.messages.front().find("groups found in every configuration: 0 of"), std::string::npos)
        << byName.messages.front();
    o.groupBy = SweepGroupBy::Op;
    auto bySite = compareSweep(runs, o);
    ASSERT_FALSE(bySite.messages.empty());
    EXPECT_NE(bySite.messages.front().find("15 of 28, holding 68.1%-95.8%"), std::string::npos)
        << bySite.messages.front();
    const std::vector<std::string> common{"AddmmBackward", "BatchNormBackward", "ConvolutionBackward",
                                          "MaxPool2DWithIndicesBackward", "MeanBackward", "ReluBackward",
                                          "aten::adaptive_avg_pool2d", "aten::add_", "aten::batch_norm", "aten::conv2d",
                                          "aten::linear", "aten::max_pool2d", "aten::ones_like", "aten::relu_",
                                          "torch::autograd::AccumulateGrad"};
    for (const auto& g : common) {
        EXPECT_NE(find(bySite, g, "gpu=mi300x"), nullptr) << g;
        EXPECT_NE(find(bySite, g, "gpu=v100"), nullptr) << g;
    }
}

}  // namespace
}  // namespace strobe::core

namespace strobe::core {
namespace {

// Issue 21's real pairs, expected values from tests/data/expected/sweep_step_ci.py (json + gzip, its own
// mt19937_64 bootstrap mirroring compareSweep's draws; the commands are in its docstring).
RunSet realPair(const std::string& a, const std::string& b, const std::string& axis) {
    RunLoadOptions options;
    options.useCache = false;
    RunSet runs;
    int i = 0;
    for (const auto& path : {a, b}) {
        auto d = loadRun({path}, options);
        EXPECT_TRUE(d.ok()) << path;
        if (!d.ok()) continue;
        const std::string value = std::to_string(i++);
        runs.push_back(RunEntry{axis + "=" + value, *d, {{axis, value}}, {path}});
    }
    return runs;
}

// Two DLRM ranks (one ProfilerStep each) as two configurations: step medians 14.455 and 19.901 ms (+5.446 ms,
// +37.68 %), but one run and one step each: no interval, nothing significant, and every row says why.
TEST(SweepCompareHonest, SingleStepPairHasNoIntervalAndSaysWhy) {
    const std::string dir = std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank/";
    const RunSet runs = realPair(dir + "worker0_step_12.1694128201545.pt.trace.json",
                                 dir + "worker1_step_12.1694128201556.pt.trace.json", "rank");
    ASSERT_EQ(runs.size(), 2u);
    SweepCompareOptions o;
    o.baseline = "rank=0";
    const SweepComparison c = compareSweep(runs, o);
    ASSERT_EQ(c.stepRows.size(), 2u);
    const SweepCompareRow& step = c.stepRows[1];
    EXPECT_EQ(step.kind, SweepRowKind::Step);
    EXPECT_NEAR(step.medianNs / 1e6, 19.901, 1e-6);
    ASSERT_TRUE(step.deltaNs.has_value());
    EXPECT_NEAR(*step.deltaNs / 1e6, 5.446, 1e-6);
    EXPECT_NEAR(*step.deltaPct, 37.67554479418886, 1e-9);
    EXPECT_FALSE(step.ciLowNs.has_value());
    EXPECT_NE(step.reason.find("n/a: rank=1 has 1 run and 1 kept step"), std::string::npos) << step.reason;
    EXPECT_EQ(c.stepRows[0].reason, "baseline");
    size_t checked = 0;
    for (const auto* v : {&c.stepRows, &c.gpuRows, &c.rows})
        for (const auto& r : *v) {
            EXPECT_FALSE(r.significant) << r.group;
            EXPECT_FALSE(r.ciLowNs.has_value()) << r.group;
            EXPECT_FALSE(r.reason.empty()) << r.group;
            ++checked;
        }
    EXPECT_GT(checked, 20u);
    ASSERT_TRUE(c.method.has_value());
    EXPECT_NE(c.method->find("resampling nothing"), std::string::npos) << *c.method;
}

// ResNet-50, DataLoader workers 0 vs 4 (one run, 6 steps each): step time leads; medians 176.273 and 126.548 ms,
// change -49.725 ms (-28.21 %), step-level 95 % interval [-56.258, -3.760] ms (the step family holds this one
// comparison, so Holm's level is 0.05), p 0.023. With --skip-steps 1: 5 steps each, -50.196 ms, [-60.322, -13.007].
TEST(SweepCompareHonest, ResnetPairLeadsWithStepTimeAndItsStepLevelInterval) {
    const std::string dir = std::string(STROBE_TEST_DATA_DIR) + "/kineto/kineto-configs/";
    const RunSet runs = realPair(dir + "resnet50_num_workers_0", dir + "resnet50_num_workers_4", "num_workers");
    ASSERT_EQ(runs.size(), 2u);
    SweepCompareOptions o;
    o.baseline = "num_workers=0";
    SweepComparison c = compareSweep(runs, o);
    ASSERT_EQ(c.stepRows.size(), 2u);
    const SweepCompareRow& s = c.stepRows[1];
    EXPECT_EQ(s.steps, 6u);
    EXPECT_EQ(s.runs, 1u);
    EXPECT_NEAR(c.stepRows[0].medianNs / 1e6, 176.273, 1e-6);
    EXPECT_NEAR(s.medianNs / 1e6, 126.548, 1e-6);
    ASSERT_TRUE(s.ciLowNs.has_value()) << s.reason;
    EXPECT_NEAR(*s.deltaNs / 1e6, -49.725, 1e-6);
    EXPECT_NEAR(*s.deltaPct, -28.209084771916288, 1e-9);
    EXPECT_NEAR(s.ciLevel, 0.05, 1e-12);
    EXPECT_NEAR(*s.ciLowNs / 1e6, -56.258, 1e-6);
    EXPECT_NEAR(*s.ciHighNs / 1e6, -3.76, 1e-6);
    EXPECT_NEAR(*s.ciLowPct, -31.915267794840958, 1e-9);
    EXPECT_NEAR(*s.p, 0.023, 1e-12);
    EXPECT_EQ(s.resampled, "steps");
    EXPECT_TRUE(s.significant);
    ASSERT_TRUE(c.method.has_value());
    EXPECT_NE(c.method->find("resampling steps"), std::string::npos) << *c.method;
    EXPECT_NE(c.method->find("step time (1 comparisons)"), std::string::npos) << *c.method;
    // GPU rows: busy + idle and kernels + memcpy + memset per step, each configuration.
    ASSERT_EQ(c.gpuRows.size(), 10u);
    EXPECT_EQ(c.gpuRows[0].group, "busy");
    EXPECT_EQ(c.gpuRows[1].group, "idle");
    // Groups are ranked by |change| in time per step.
    double last = 1e300;
    std::set<std::string> seen;
    for (const auto& r : c.rows) {
        if (!r.deltaNs || seen.count(r.group)) continue;
        seen.insert(r.group);
        EXPECT_LE(std::abs(*r.deltaNs), last + 1e-9) << r.group;
        last = std::abs(*r.deltaNs);
    }
    o.skipSteps = 1;
    c = compareSweep(runs, o);
    EXPECT_EQ(c.stepRows[1].steps, 5u);
    EXPECT_NEAR(*c.stepRows[1].deltaNs / 1e6, -50.196, 1e-6);
    ASSERT_TRUE(c.stepRows[1].ciLowNs.has_value());
    EXPECT_NEAR(*c.stepRows[1].ciLowNs / 1e6, -60.322, 1e-6);
    EXPECT_NEAR(*c.stepRows[1].ciHighNs / 1e6, -13.007, 1e-6);
    o.skipSteps = 2;  // 4 steps and one run each: below both thresholds
    c = compareSweep(runs, o);
    EXPECT_FALSE(c.stepRows[1].ciLowNs.has_value());
    EXPECT_TRUE(c.stepRows[1].reason.starts_with("n/a")) << c.stepRows[1].reason;
}

// The generated sweep (gemm 10 % slower at bs=2, relu +0.4 % under +-5 % noise, 3 repeats x 4 steps): resampled
// by runs; gemm is flagged, and so are only the GPU rows that hold it (kernels, busy; idle is the step minus busy);
// relu, the step time (the same 10 us spans) and memcpy/memset (none) are not.
TEST(SweepCompareHonest, InjectedSlowdownIsFlaggedAndNothingBelowTheNoise) {
    test::TempDir dir("strobe-sweep-honest");
    test::writeGeneratedSweep(dir.path());
    const auto runs = loadSweep(dir.path().string());
    SweepCompareOptions o;
    o.baseline = "bs=1";
    const SweepComparison c = compareSweep(runs, o);
    std::set<std::string> flagged;
    for (const auto* v : {&c.stepRows, &c.gpuRows, &c.rows})
        for (const auto& r : *v) {
            if (r.significant) flagged.insert(std::string(toString(r.kind)) + ":" + r.group);
            if (r.config == "bs=2") {
                EXPECT_EQ(r.resampled, "runs") << r.group;
                EXPECT_EQ(r.runs, 3u);
                EXPECT_EQ(r.steps, 12u);
            }
        }
    EXPECT_TRUE(flagged.count("group:gemm"));
    EXPECT_FALSE(flagged.count("group:relu"));
    EXPECT_FALSE(flagged.count("step:step"));
    for (const auto& f : flagged)
        EXPECT_TRUE(f == "group:gemm" || f == "gpu:kernels" || f == "gpu:busy" || f == "gpu:idle") << f;
    ASSERT_EQ(c.stepRows.size(), 2u);
    EXPECT_NEAR(c.stepRows[0].medianNs, 10000.0, 0.5);
    const auto* gemm = find(c, "gemm", "bs=2");
    ASSERT_NE(gemm, nullptr);
    EXPECT_NEAR(*gemm->deltaNs, 100.0, 0.01);  // medians 1100 - 1000
}

// Runs without GPU activity compare by step time and CPU operators, and say so: a generated CPU-only pair (mode=a,
// mode=b; 6 ProfilerSteps of 100 us each; inside each, aten::mm of 40 us (a) or 60 us (b) with an aten::add_ of
// 5 us nested in it, and a top-level aten::relu of 10 us). Groups are the outermost operators: aten::mm (+20 us per
// step) and aten::relu (no change); aten::add_ is inside aten::mm, not a group.
TEST(SweepCompareHonest, CpuOnlyRunsCompareStepTimeAndOperators) {
    test::TempDir dir("strobe-sweep-cpu");
    for (int c = 0; c < 2; ++c) {
        std::string events;
        for (int k = 0; k < 6; ++k) {
            const double t = 1000.0 + 100.0 * k, mm = c == 0 ? 40.0 : 60.0;
            events += fmt::format(
                "{}{{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#{}\", \"pid\": 1, "
                "\"tid\": 1, \"ts\": {}, \"dur\": 100}},\n"
                "{{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": {}, "
                "\"dur\": {}}},\n"
                "{{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add_\", \"pid\": 1, \"tid\": 1, \"ts\": {}, "
                "\"dur\": 5}},\n"
                "{{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::relu\", \"pid\": 1, \"tid\": 1, \"ts\": {}, "
                "\"dur\": 10}}",
                k ? ",\n" : "", k, t, t + 1, mm, t + 2, t + 70);
        }
        test::writeFile(dir.path() / (c == 0 ? "mode=a" : "mode=b") / "trace.json",
                        "{\"traceEvents\": [\n" + events + "\n]}\n");
    }
    const auto runs = loadSweep(dir.path().string());
    ASSERT_EQ(runs.size(), 2u);
    SweepCompareOptions o;
    o.baseline = "mode=a";
    const SweepComparison c = compareSweep(runs, o);
    EXPECT_FALSE(c.gpuActivity);
    EXPECT_TRUE(c.gpuRows.empty());
    ASSERT_EQ(c.stepRows.size(), 2u);
    EXPECT_NEAR(c.stepRows[1].medianNs, 100000.0, 0.5);
    EXPECT_NEAR(*c.stepRows[1].deltaNs, 0.0, 0.5);
    EXPECT_TRUE(std::any_of(c.messages.begin(), c.messages.end(), [](const std::string& m) {
        return m.find("no GPU activity in these runs") != std::string::npos;
    }));
    const auto* mm = find(c, "aten::mm", "mode=b");
    ASSERT_NE(mm, nullptr);
    EXPECT_EQ(mm->count, 6u);
    EXPECT_NEAR(mm->medianNs, 60000.0, 0.5);
    ASSERT_TRUE(mm->deltaNs.has_value());
    EXPECT_NEAR(*mm->deltaNs, 20000.0, 0.5);
    EXPECT_TRUE(mm->ciLowNs.has_value());  // 6 steps: a step-level interval
    ASSERT_NE(find(c, "aten::relu", "mode=b"), nullptr);
    EXPECT_EQ(find(c, "aten::add_", "mode=b"), nullptr);
    EXPECT_EQ(c.rows.front().group, "aten::mm");  // ranked by |change|
}

}  // namespace
}  // namespace strobe::core
