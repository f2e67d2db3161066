// Findings (issue 30) on real traces and one hand-built 2-rank trace: every rule's time at stake per step, share, and
// whether it fires, against an independent Python computation from the raw JSON:
//   /usr/bin/python3 tests/data/expected/findings.py > tests/data/expected/findings.json
// Each rule fires on at least one run here and is absent (the oracle says so too) on at least one other:
//   exposed_comm       fires: dlrm, mi300x              absent: resnet50_nw0, hand_2rank
//   launch_bound       fires: dlrm, resnet50            absent: mi300x, alexnet, hand_2rank (host_wait large there)
//   dataloader_stall   fires: dlrm, resnet50_nw0        absent: resnet50_nw4 (num_workers=4)
//   host_sync          fires: dlrm                      absent: resnet50_nw0, resnet50_nw4, alexnet (< 1 %)
//   pageable_h2d       fires: resnet50_nw0, _nw4        absent: dlrm, alexnet (< 1 %)
//   straggler          fires: dlrm (rank 7)             absent: hand_2rank (two ranks, no collective)
//   gemm_below_peak    fires: dlrm, resnet50            absent: mi300x (< 1 %), hand_2rank (no shapes)
//   small_elementwise  fires: dlrm, mi300x              absent: resnet50 (< 1 %), alexnet (< 50 per step)
//   rank_imbalance     fires: cifar_ddp_4rank, hand_2rank absent: dlrm (0.86 %)
//   inter_step_gaps    fires: resnet50_nw0, _nw4, hand_2rank  absent: mi300x, cifar_ddp_4rank, dlrm (one step)
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "core/analysis/context.h"
#include "core/analysis/findings.h"
#include "core/engine/run_loader.h"
#include "tests/test_paths.h"

namespace strobe::core {
namespace {

std::string findingsData(const std::string& rel) { return std::string(STROBE_TEST_DATA_DIR) + "/" + rel; }

const std::map<std::string, std::vector<std::string>>& findingsRuns() {
    static const std::map<std::string, std::vector<std::string>> kRuns = {
        {"dlrm", {std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank"}},
        {"resnet50_nw0", {findingsData("kineto/kineto-configs/resnet50_num_workers_0")}},
        {"resnet50_nw4", {findingsData("kineto/kineto-configs/resnet50_num_workers_4")}},
        {"mi300x", {findingsData("kineto/tracelens/mi300x_resnet_act_checkpoint_rank0of8.json.gz")}},
        {"alexnet", {findingsData("kineto/hta/critical_path/alexnet")}},
        {"cifar_ddp_4rank", {findingsData("kineto/multirank/cifar100_ddp_4rank_tracefusion_first_quarter.json.gz")}},
        {"hand_2rank", {findingsData("small/findings_2rank/rank0.json"), findingsData("small/findings_2rank/rank1.json")}},
    };
    return kRuns;
}

FindingsResult findingsOf(const std::string& run, bool criticalPath = false) {
    RunLoadOptions options;
    options.useCache = false;
    auto loaded = loadRun(findingsRuns().at(run), options);
    EXPECT_TRUE(static_cast<bool>(loaded)) << run;
    if (!loaded) return {};
    AnalysisContext ctx(loaded.value());
    FindingsOptions fo;
    fo.criticalPath = criticalPath;
    auto r = computeFindings(ctx, fo);
    EXPECT_TRUE(static_cast<bool>(r)) << run;
    return r ? r.value() : FindingsResult{};
}

const Finding* findingNamed(const FindingsResult& r, const std::string& rule) {
    for (const auto& f : r.findings)
        if (f.rule == rule) return &f;
    return nullptr;
}

// Every rule of the run as the oracle has it: fires or not, and when it fires the same ms per step and share.
void expectLikeOracle(const std::string& run) {
    simdjson::dom::parser p;
    simdjson::dom::element all;
    ASSERT_FALSE(p.load(findingsData("expected/findings.json")).get(all));
    simdjson::dom::element exp = all[run].value_unsafe();
    const FindingsResult r = findingsOf(run);
    EXPECT_NEAR(r.stepMs, exp["step_ms"].get_double().value_unsafe(), 1e-9 * r.stepMs) << run;
    std::set<std::string> seen;
    for (auto [rule, v] : exp["rules"].get_object()) {
        const std::string id(rule);
        seen.insert(id);
        const bool fires = v["fires"].get_bool().value_unsafe();
        const Finding* f = findingNamed(r, id);
        EXPECT_EQ(f != nullptr, fires) << run << ": " << id;
        if (!f || !fires) continue;
        const double ms = v["ms_per_step"].get_double().value_unsafe();
        EXPECT_NEAR(f->msPerStep, ms, 1e-9 * std::max(1.0, ms)) << run << ": " << id;
        EXPECT_NEAR(f->share, v["share"].get_double().value_unsafe(), 1e-9) << run << ": " << id;
        EXPECT_EQ(f->severity, std::string(findingSeverity(f->share)));
    }
    EXPECT_EQ(seen.size(), findingRules().size());
    // Ordered by ms per step, descending, as the oracle's `fired` list.
    std::vector<std::string> order;
    for (auto s : exp["fired"].get_array()) order.emplace_back(s.get_string().value_unsafe());
    std::vector<std::string> got;
    for (const auto& f : r.findings) got.push_back(f.rule);
    EXPECT_EQ(got, order) << run;
}

TEST(Findings, DlrmLikeOracle) { expectLikeOracle("dlrm"); }
TEST(Findings, Resnet50NumWorkers0LikeOracle) { expectLikeOracle("resnet50_nw0"); }
TEST(Findings, Resnet50NumWorkers4LikeOracle) { expectLikeOracle("resnet50_nw4"); }
TEST(Findings, Mi300xLikeOracle) { expectLikeOracle("mi300x"); }
TEST(Findings, AlexnetWithoutStepsLikeOracle) { expectLikeOracle("alexnet"); }
TEST(Findings, HandBuiltTwoRanksLikeOracle) { expectLikeOracle("hand_2rank"); }
// One file holding 4 ranks (TraceLens TraceFusion); the oracle splits it by the `rank` in every event's args.
TEST(Findings, CifarDdpFourRanksInOneFileLikeOracle) { expectLikeOracle("cifar_ddp_4rank"); }

// rank_imbalance on a real run: rank 0 of the CIFAR-100 DDP run computes 15.82 ms per step, the mean is 14.79 ms.
TEST(Findings, CifarDdpRankImbalanceNamesTheBusiestRank) {
    const FindingsResult r = findingsOf("cifar_ddp_4rank");
    const Finding* f = findingNamed(r, "rank_imbalance");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->ranks, std::vector<int>{0});
    EXPECT_EQ(f->severity, "medium");
    EXPECT_NEAR(f->msPerStep, 1.53282225, 1e-9);
    ASSERT_GE(f->evidence.size(), 3u);
    EXPECT_EQ(f->evidence[0].first, "busiest_rank");
    EXPECT_EQ(f->evidence[0].second, 0);
    EXPECT_NEAR(f->evidence[1].second, 15.820194, 1e-9);
    EXPECT_NEAR(f->evidence[2].second, (15.820194 + 13.916295 + 13.994212 + 13.418786) / 4, 1e-9);
    for (const auto& x : f->ranges) EXPECT_EQ(x.rank, 0);
}

// inter_step_gaps on a real run: ResNet-50 with num_workers=4 has no data-loader stall, yet the GPU idles 2.341 ms
// per step between the last kernel of one step and the first of the next (5 gaps over 6 steps).
TEST(Findings, Resnet50InterStepGapsWithoutDataLoaderStall) {
    const FindingsResult r = findingsOf("resnet50_nw4");
    EXPECT_EQ(findingNamed(r, "dataloader_stall"), nullptr);
    const Finding* f = findingNamed(r, "inter_step_gaps");
    ASSERT_NE(f, nullptr);
    EXPECT_NEAR(f->msPerStep, 2.341, 1e-9);
    ASSERT_EQ(f->evidence.size(), 2u);
    EXPECT_EQ(f->evidence[1].first, "gaps");
    EXPECT_EQ(f->evidence[1].second, 5);
    ASSERT_EQ(f->ranges.size(), 5u);
    TimeNs sum = 0;
    for (const auto& x : f->ranges) sum += x.end - x.start;
    EXPECT_EQ(sum, 2'341'000 * 6);
}

// The bundled DLRM sample: its exposed communication is real (84.6 % of its GPU time is communication).
TEST(Findings, DlrmExposedCommunicationWithItsEvidence) {
    const FindingsResult r = findingsOf("dlrm", true);
    const Finding* f = findingNamed(r, "exposed_comm");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->severity, "high");
    EXPECT_EQ(f->ranks, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
    ASSERT_FALSE(f->ranges.empty());
    EXPECT_LE(f->ranges.size(), FindingsOptions{}.maxRanges);
    for (const auto& x : f->ranges) {
        EXPECT_LT(x.start, x.end);
        EXPECT_GE(x.rank, 0);
        EXPECT_LT(x.rank, 8);
    }
    ASSERT_EQ(f->evidence.front().first, "comm_ms_per_step");
    EXPECT_NEAR(f->evidence.front().second, 6.06775, 1e-9);  // the overlap analysis' comm_ns, mean per step
    // The critical path was computed (small run): every finding says on/off or why not.
    for (const auto& g : r.findings) {
        EXPECT_FALSE(g.criticalPathReason.empty()) << g.rule;
        if (g.rule == "straggler") {
            EXPECT_FALSE(g.onCriticalPath.has_value());
        }
    }
    EXPECT_TRUE(f->onCriticalPath.has_value());
    const Finding* s = findingNamed(r, "straggler");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->ranks, std::vector<int>{7});
}

TEST(Findings, JsonDocumentHasTheSchema) {
    const FindingsResult r = findingsOf("hand_2rank");
    const std::string json = findingsJson(r);
    simdjson::dom::parser p;
    simdjson::dom::element doc;
    ASSERT_FALSE(p.parse(json).get(doc)) << json;
    EXPECT_EQ(doc["schema"].get_int64().value_unsafe(), 1);
    auto list = doc["findings"].get_array().value_unsafe();
    ASSERT_EQ(list.size(), 2u);
    double prev = 1e300;
    for (auto f : list) {
        const double ms = f["ms_per_step"].get_double().value_unsafe();
        EXPECT_LE(ms, prev);
        prev = ms;
        for (const char* key : {"rule", "severity", "share", "evidence", "ranks", "ranges", "definition", "what_to_try",
                                "on_critical_path"})
            EXPECT_FALSE(f[key].error()) << key;
    }
    // inter_step_gaps: the GPU idles 2 x 900 µs (rank 0) and 2 x 1300 µs (rank 1) between the steps' kernels over 3
    // steps (worked by hand in tests/data/small/findings_2rank/make.py).
    auto first = list.at(0).value_unsafe();
    EXPECT_EQ(std::string(first["rule"].get_string().value_unsafe()), "inter_step_gaps");
    EXPECT_NEAR(first["ms_per_step"].get_double().value_unsafe(), (1.8 / 3 + 2.6 / 3) / 2, 1e-12);
    auto ranges = first["ranges"].get_array().value_unsafe();
    ASSERT_EQ(ranges.size(), 4u);
    EXPECT_EQ(ranges.at(0)["rank"].get_int64().value_unsafe(), 0);
    EXPECT_EQ(ranges.at(0)["start_ns"].get_int64().value_unsafe(), 1'620'000);
    EXPECT_EQ(ranges.at(0)["end_ns"].get_int64().value_unsafe(), 2'520'000);
    EXPECT_EQ(ranges.at(2)["rank"].get_int64().value_unsafe(), 1);
    EXPECT_EQ(ranges.at(2)["start_ns"].get_int64().value_unsafe(), 1'220'000);
}

TEST(Findings, SeverityThresholds) {
    EXPECT_STREQ(findingSeverity(0.10), "high");
    EXPECT_STREQ(findingSeverity(0.0999), "medium");
    EXPECT_STREQ(findingSeverity(0.03), "medium");
    EXPECT_STREQ(findingSeverity(0.0299), "low");
}

TEST(Findings, EveryRuleHasADefinitionAndAdvice) {
    std::set<std::string> ids;
    for (const auto& r : findingRules()) {
        EXPECT_TRUE(ids.insert(r.id).second) << r.id;
        EXPECT_GT(std::string(r.definition).size(), 20u) << r.id;
        EXPECT_GT(std::string(r.whatToTry).size(), 20u) << r.id;
    }
    EXPECT_EQ(ids.size(), 10u);
}

}  // namespace
}  // namespace strobe::core
