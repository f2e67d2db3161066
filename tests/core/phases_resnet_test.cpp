// The two ResNet-50 traces of pytorch/kineto (tests/data/kineto/kineto-configs; 2021 schema: ProfilerStep#N has
// category Operator, backward runs on its own autograd thread, no fwdbwd flows, no backward annotation).
// Steps and forward/backward/optimizer phases agree with values worked out by hand with Python's json module:
// tests/data/expected/resnet_phases.py (its output is copied below; times in ns). The same steps reach the summary
// (strobe-cli summary) and RankData::steps (the GPU timeline's step bands), and the phases analysis finds them.
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "core/analysis/phases.h"
#include "core/analysis/summary.h"
#include "core/engine/run_loader.h"
#include "tests/test_paths.h"

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

// On the GPU the phases end later than on the CPU: a backward pass's last kernels (cudnn::bn_bw_…, launched by
// aten::cudnn_batch_norm_backward) run while the CPU is already in the optimizer. gpu_start_ns/gpu_end_ns are the
// extent of the GPU activities launched in each phase; the GPU timeline draws the phase bands there, so no backward
// kernel sits under the optimizer band. Expected values: /usr/bin/python3 tests/data/expected/resnet_phase_gpu.py
namespace {
struct GpuExtents {
    int64_t step;
    TimeNs backwardStart, backwardEnd;
    int64_t lateBnBw;  // bn_bw kernels of the backward that end after its CPU end
    TimeNs optimizerStart, optimizerEnd;
};
const std::map<std::string, std::vector<GpuExtents>> kGpuExpected = {
    {"kineto-configs/resnet50_num_workers_0",
     {{5, 1623142623579729000, 1623142623646267000, 20, 1623142623646269000, 1623142623648120000},
      {6, 1623142623755333000, 1623142623821416000, 19, 1623142623821417000, 1623142623823273000},
      {7, 1623142623934932000, 1623142624001150000, 21, 1623142624001152000, 1623142624003006000},
      {8, 1623142624109623000, 1623142624175718000, 17, 1623142624175720000, 1623142624177570000},
      {9, 1623142624291761000, 1623142624357884000, 20, 1623142624357886000, 1623142624359742000},
      {10, 1623142624457777000, 1623142624523868000, 21, 1623142624523870000, 1623142624525725000}}},
    {"kineto-configs/resnet50_num_workers_4",
     {{5, 1623212388538212000, 1623212388607441000, 12, 1623212388607442000, 1623212388609302000},
      {6, 1623212388666056000, 1623212388733618000, 14, 1623212388733620000, 1623212388735485000},
      {7, 1623212388792898000, 1623212388860800000, 13, 1623212388860802000, 1623212388862666000},
      {8, 1623212388915981000, 1623212388982877000, 12, 1623212388982879000, 1623212388985637000},
      {9, 1623212389071156000, 1623212389143596000, 11, 1623212389143598000, 1623212389149161000},
      {10, 1623212389205112000, 1623212389271671000, 17, 1623212389271673000, 1623212389273538000}}}};

}  // namespace

TEST_P(PhasesResNet, GpuExtentsOfBackwardAndOptimizerMatchTheHandWorkedValues) {
    const auto& expected = kGpuExpected.at(GetParam());
    RunLoadOptions o;
    o.useCache = false;
    auto loaded = loadRun({std::string(STROBE_TEST_DATA_DIR) + "/kineto/" + GetParam()}, o);
    ASSERT_TRUE(loaded.ok()) << loaded.error().toString();
    AnalysisContext ctx(*loaded);
    auto table = phaseStructure(ctx, WindowSpec{}, LayerRows::None);
    ASSERT_TRUE(table.ok()) << table.error().toString();
    size_t checked = 0;
    for (size_t r = 0; r < table->rows.size(); ++r) {
        const std::string phase = Table::text(table->at(r, "phase"));
        if (phase != "backward" && phase != "optimizer") continue;
        const int64_t step = std::get<int64_t>(table->at(r, "step"));
        const GpuExtents* e = nullptr;
        for (const auto& x : expected)
            if (x.step == step) e = &x;
        ASSERT_NE(e, nullptr) << step;
        const TimeNs gs = std::get<int64_t>(table->at(r, "gpu_start_ns"));
        const TimeNs ge = std::get<int64_t>(table->at(r, "gpu_end_ns"));
        if (phase == "backward") {
            EXPECT_EQ(gs, e->backwardStart) << "step " << step;
            EXPECT_EQ(ge, e->backwardEnd) << "step " << step;
            // The CPU interval ends earlier: bands in CPU time would have put late bn_bw kernels under "optimizer".
            EXPECT_GT(e->lateBnBw, 0);
            EXPECT_GT(ge, std::get<int64_t>(table->at(r, "end_ns")));
        } else {
            EXPECT_EQ(gs, e->optimizerStart) << "step " << step;
            EXPECT_EQ(ge, e->optimizerEnd) << "step " << step;
        }
        ++checked;
    }
    EXPECT_EQ(checked, 2 * expected.size());
}

INSTANTIATE_TEST_SUITE_P(KinetoConfigs, PhasesResNet,
                         ::testing::Values("kineto-configs/resnet50_num_workers_0",
                                           "kineto-configs/resnet50_num_workers_4"),
                         [](const auto& info) { return std::string(info.index == 0 ? "NumWorkers0" : "NumWorkers4"); });
