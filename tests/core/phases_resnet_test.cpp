// The two ResNet-50 traces of pytorch/kineto (tests/data/kineto/kineto-configs; 2021 schema: ProfilerStep#N has
// category Operator, backward runs on its own autograd thread, no fwdbwd flows, no backward annotation).
// Steps and forward/backward/optimizer phases agree with values worked out by hand with Python's json module:
// tests/data/expected/resnet_phases.py (its output is copied below; times in ns). The same steps reach the summary
// (strobe-cli summary) and RankData::steps (the GPU timeline's step bands), and the phases analysis finds them.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "core/analysis/phases.h"
#include "core/analysis/summary.h"
#include "core/engine/run_loader.h"

using namespace strobe::core;

namespace {

struct StepPhases {
    int64_t step;
    TimeNs start, end;         // ProfilerStep#N
    TimeNs backward, bwdEnd;   // forward is [start, backward)
    int64_t backwardCount;     // backward slices: every CPU op of the autograd thread in the step
    TimeNs optimizer, optEnd;  // Optimizer.step#SGD.step
};

// /usr/bin/python3 tests/data/expected/resnet_phases.py
const std::map<std::string, std::vector<StepPhases>> kExpected = {
    {"kineto-configs/resnet50_num_workers_0",
     {{5, 1623142623460172000, 1623142623636250000, 1623142623579595000, 1623142623615709000, 1442,
       1623142623615856000, 1623142623636240000},
      {6, 1623142623636318000, 1623142623810310000, 1623142623755188000, 1623142623791154000, 1442,
       1623142623791363000, 1623142623810299000},
      {7, 1623142623810379000, 1623142623987297000, 1623142623934862000, 1623142623969266000, 1442,
       1623142623969463000, 1623142623987285000},
      {8, 1623142623987366000, 1623142624168625000, 1623142624109555000, 1623142624147897000, 1442,
       1623142624148124000, 1623142624168615000},
      {9, 1623142624168693000, 1623142624345161000, 1623142624291693000, 1623142624327120000, 1442,
       1623142624327253000, 1623142624345150000},
      {10, 1623142624345228000, 1623142624509489000, 1623142624457711000, 1623142624491896000, 1442,
       1623142624492021000, 1623142624509478000}}},
    {"kineto-configs/resnet50_num_workers_4",
     {{5, 1623212388426996000, 1623212388608561000, 1623212388537996000, 1623212388586689000, 1442,
       1623212388586867000, 1623212388608550000},
      {6, 1623212388608626000, 1623212388732510000, 1623212388665955000, 1623212388710084000, 1442,
       1623212388710222000, 1623212388732498000},
      {7, 1623212388732580000, 1623212388859404000, 1623212388792817000, 1623212388837755000, 1442,
       1623212388837947000, 1623212388859393000},
      {8, 1623212388859473000, 1623212388985745000, 1623212388915913000, 1623212388961499000, 1442,
       1623212388961742000, 1623212388985734000},
      {9, 1623212388985809000, 1623212389149270000, 1623212389071060000, 1623212389124228000, 1442,
       1623212389124630000, 1623212389149260000},
      {10, 1623212389149340000, 1623212389265486000, 1623212389205029000, 1623212389243596000, 1442,
       1623212389243784000, 1623212389265476000}}},
};

using Row = std::tuple<std::string, int64_t, TimeNs, TimeNs, int64_t>;  // phase, step, start, end, count

class PhasesResNet : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(PhasesResNet, StepsAndPhasesMatchTheHandWorkedValues) {
    const auto& expected = kExpected.at(GetParam());
    RunLoadOptions o;
    o.useCache = false;
    auto loaded = loadRun({std::string(STROBE_TEST_DATA_DIR) + "/kineto/" + GetParam()}, o);
    ASSERT_TRUE(loaded.ok()) << loaded.error().toString();
    DatasetPtr ds = *loaded;
    ASSERT_EQ(ds->ranks.size(), 1u);
    const RankData& rank = *ds->ranks[0];

    // One definition of a step: RankData::steps (GPU timeline bands, gpu.step) and the summary.
    ASSERT_EQ(rank.steps.size(), expected.size());
    const RankSummary summary = summarizeRank(rank);
    ASSERT_EQ(summary.stepSpans.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(rank.steps.number[i], expected[i].step);
        EXPECT_EQ(rank.steps.start[i], expected[i].start);
        EXPECT_EQ(rank.steps.end[i], expected[i].end);
        EXPECT_EQ(summary.stepSpans[i].number, expected[i].step);
        EXPECT_EQ(summary.stepSpans[i].startNs, expected[i].start);
        EXPECT_EQ(summary.stepSpans[i].endNs, expected[i].end);
    }

    AnalysisContext ctx(ds);
    auto table = phaseStructure(ctx, WindowSpec{}, LayerRows::None);
    ASSERT_TRUE(table.ok()) << table.error().toString();
    std::vector<Row> got;
    for (size_t r = 0; r < table->rows.size(); ++r) {
        const std::string phase = Table::text(table->at(r, "phase"));
        if (phase != "step" && phase != "forward" && phase != "backward" && phase != "optimizer") continue;
        got.emplace_back(phase, std::get<int64_t>(table->at(r, "step")), std::get<int64_t>(table->at(r, "start_ns")),
                         std::get<int64_t>(table->at(r, "end_ns")), std::get<int64_t>(table->at(r, "count")));
    }
    std::vector<Row> want;
    for (const auto& s : expected) want.emplace_back("step", s.step, s.start, s.end, 1);
    for (const auto& s : expected) {
        want.emplace_back("forward", s.step, s.start, s.backward, 0);  // no forward marker: count 0
        want.emplace_back("backward", s.step, s.backward, s.bwdEnd, s.backwardCount);
        want.emplace_back("optimizer", s.step, s.optimizer, s.optEnd, 1);
    }
    EXPECT_EQ(got, want);
}

INSTANTIATE_TEST_SUITE_P(KinetoConfigs, PhasesResNet,
                         ::testing::Values("kineto-configs/resnet50_num_workers_0",
                                           "kineto-configs/resnet50_num_workers_4"),
                         [](const auto& info) { return std::string(info.index == 0 ? "NumWorkers0" : "NumWorkers4"); });
