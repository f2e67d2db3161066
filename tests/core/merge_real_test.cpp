// The merge on the real traces (tests/data/kineto and the bundled 8-rank DLRM sample), checked against counts
// computed independently with python3's standard library:
//
//   events = json.load(file, parse_float=Decimal)["traceEvents"]; X = events with ph == "X"
//   gpu     = X with cat in {kernel, gpu_memcpy, gpu_memset}
//   linked  = gpu events whose args.correlation equals args.correlation of some X event with cat cuda_runtime
//             or cuda_driver
//   steps   = X with cat user_annotation named ProfilerStep#<digits>, as [ts, ts + dur) in integer ns
//   inStep  = gpu events for which the step containing t exists, t = ts of the linked runtime call (the one
//             starting last at or before the GPU event when several share the id) or, when unlinked, the GPU
//             event's own ts
//   annotated = gpu events whose ts lies in [ts, ts + dur) of a gpu_user_annotation with the same pid and tid
//
// (ts and dur are converted to integer nanoseconds from their exact decimal text.)
#include <cctype>
#include <string>

#include <gtest/gtest.h>

#include "core/formats/kineto_json.h"
#include "core/merge/annotation_index.h"
#include "core/merge/merge.h"
#include "tests/test_paths.h"

namespace strobe::core {
namespace {

struct Expected {
    const char* path;  // relative to tests/data or resources
    bool resource;
    size_t gpu, linked, steps, inStep, annotated;
};

const Expected kTraces[] = {
    {"kineto/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", false, 16, 16, 2, 16, 9},
    {"kineto/hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", false, 0, 0, 1, 0, 0},
    {"kineto/hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz", false, 98, 98, 0, 0, 0},
    {"kineto/hta/df_index_resolver/df_index_resolver.json.gz", false, 22290, 22290, 5, 22290, 0},
    {"kineto/hta/distributed_info_unavailable/distributed_info_not_found.json.gz", false, 0, 0, 1, 0, 0},
    {"kineto/hta/nccl_parser_config/nccl_data.json.gz", false, 3774, 3774, 3, 3774, 1416},
    {"kineto/hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", false, 6095, 6095, 5, 6095, 2375},
    {"kineto/hta/trace_filter/sampled_rank-0.json.gz", false, 1204, 1204, 2, 1204, 0},
    {"kineto/hta/trace_filter/sampled_rank-1.json.gz", false, 1154, 1154, 2, 1154, 0},
    {"kineto/hta/with_gpu_user_annotation/step_based_trace_2543932.json.gz", false, 140, 140, 0, 0, 40},
    // 968 GPU activities ran before the first recorded runtime call (their launches predate the trace); their
    // ac2g flows have an 'f' but no 's', so nothing links them.
    {"kineto/tracelens/mi300x_resnet_act_checkpoint_rank0of8.json.gz", false, 3653, 2685, 3, 3653, 864},
    {"sample/param-dlrm-8rank/worker0_step_12.1694128201545.pt.trace.json", true, 261, 261, 1, 261, 0},
    {"sample/param-dlrm-8rank/worker1_step_12.1694128201556.pt.trace.json", true, 326, 262, 1, 326, 0},
    {"sample/param-dlrm-8rank/worker2_step_12.1694128201554.pt.trace.json", true, 262, 262, 1, 262, 0},
    {"sample/param-dlrm-8rank/worker3_step_12.1694128201557.pt.trace.json", true, 337, 273, 1, 337, 0},
    {"sample/param-dlrm-8rank/worker4_step_12.1694128201547.pt.trace.json", true, 273, 273, 1, 273, 0},
    {"sample/param-dlrm-8rank/worker5_step_12.1694128201549.pt.trace.json", true, 261, 261, 1, 261, 0},
    {"sample/param-dlrm-8rank/worker6_step_12.1694128201553.pt.trace.json", true, 262, 262, 1, 262, 0},
    {"sample/param-dlrm-8rank/worker7_step_12.1694128201553.pt.trace.json", true, 262, 262, 1, 262, 0},
};

class MergeRealTest : public ::testing::TestWithParam<Expected> {};

TEST_P(MergeRealTest, LinksStepsAndAnnotationsMatchAnIndependentCount) {
    const Expected& e = GetParam();
    const std::string path = std::string(e.resource ? STROBE_RESOURCE_DIR : STROBE_TEST_DATA_DIR) + "/" + e.path;
    auto loaded = loadKinetoTrace(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error().toString();
    RankData& rank = **loaded;
    auto rules = ClassificationRules::fromFile((std::string(STROBE_RESOURCE_DIR) + "/classification.yaml"));
    ASSERT_TRUE(rules.ok());
    ASSERT_TRUE(mergeRank(rank, *rules).ok());

    const auto& g = rank.gpu;
    const auto& s = rank.slices;
    ASSERT_EQ(g.size(), e.gpu);
    size_t linked = 0, inStep = 0, annotated = 0, withOp = 0;
    for (size_t i = 0; i < g.size(); ++i) {
        const int32_t r = g.runtime[i];
        if (r >= 0) {
            ++linked;
            const auto ru = static_cast<size_t>(r);
            EXPECT_TRUE(s.kind[ru] == EventKind::Runtime || s.kind[ru] == EventKind::Driver);
            EXPECT_EQ(s.correlation[ru], g.correlation[i]);
            EXPECT_EQ(s.launchedGpu[ru] >= 0, true);
        }
        if (g.step[i] >= 0) ++inStep;
        if (g.annotation[i] >= 0) {
            ++annotated;
            const auto a = static_cast<size_t>(g.annotation[i]);
            EXPECT_EQ(s.kind[a], EventKind::GpuUserAnnotation);
            EXPECT_EQ(s.track[a], g.track[i]);
        }
        const int32_t op = g.cpuOp[i];
        if (op >= 0) {
            ++withOp;
            // The op encloses the launching call on its thread (it is one of its ancestors).
            ASSERT_GE(r, 0);
            bool ancestor = false;
            for (int32_t p = s.parent[static_cast<size_t>(r)]; p >= 0 && !ancestor; p = s.parent[static_cast<size_t>(p)])
                ancestor = p == op;
            EXPECT_TRUE(ancestor);
            const EventKind k = s.kind[static_cast<size_t>(op)];
            EXPECT_TRUE(k == EventKind::CpuOp || k == EventKind::UserAnnotation);
        }
    }
    EXPECT_EQ(linked, e.linked);
    // python3: for every file, each linked GPU activity's runtime call lies inside a cpu_op or a non-step
    // user_annotation on the same pid/tid (ts <= call.ts and ts + dur >= call.ts + call.dur), so withOp == linked.
    EXPECT_EQ(withOp, e.linked);
    EXPECT_EQ(rank.steps.size(), e.steps);
    EXPECT_EQ(inStep, e.inStep);
    EXPECT_EQ(annotated, e.annotated);

    // Steps are sorted by start and their numbers come from the names.
    for (size_t i = 0; i < rank.steps.size(); ++i) {
        const auto sl = static_cast<size_t>(rank.steps.slice[i]);
        EXPECT_EQ(rank.strings.view(s.name[sl]), "ProfilerStep#" + std::to_string(rank.steps.number[i]));
        if (i > 0) {
            EXPECT_LE(rank.steps.start[i - 1], rank.steps.start[i]);
        }
    }
    // The hierarchy is consistent: a parent is on the same track, contains its child, and is one level up.
    for (size_t i = 0; i < s.size(); ++i) {
        const int32_t p = s.parent[i];
        if (p < 0) {
            EXPECT_EQ(s.depth[i], 0);
            continue;
        }
        const auto pu = static_cast<size_t>(p);
        EXPECT_EQ(s.track[pu], s.track[i]);
        EXPECT_LE(s.ts[pu], s.ts[i]);
        EXPECT_GE(s.ts[pu] + s.dur[pu], s.ts[i] + s.dur[i]);
        EXPECT_EQ(s.depth[i], s.depth[pu] + 1);
    }
    // Every kernel has a category; communication kernels have a collective.
    for (size_t i = 0; i < g.size(); ++i) {
        if (g.category[i] == KernelCategory::Communication) {
            EXPECT_NE(g.collective[i], Collective::None);
        }
        if (g.kind[i] == EventKind::Memcpy) {
            EXPECT_EQ(g.category[i], KernelCategory::Memcpy);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Traces, MergeRealTest, ::testing::ValuesIn(kTraces),
                         [](const ::testing::TestParamInfo<Expected>& info) {
                             std::string n = std::to_string(info.index) + "_" + info.param.path;
                             for (char& c : n)
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             return n.substr(0, 60);
                         });

}  // namespace
}  // namespace strobe::core

namespace strobe::core {
namespace {

// ncclDevKernel_Generic does not name its collective; the merge takes it from the launching op chain.
// python3 over the file: of the 17 ncclDevKernel_Generic kernels, 12 have a runtime call (matched by
// correlation) whose innermost enclosing op on its thread is nccl:broadcast (6) or nccl:all_reduce (6); the
// other 5 ran before the first recorded runtime call.
TEST(MergeRealCollectives, GenericNcclKernelsTakeTheCollectiveOfTheirOp) {
    auto loaded = loadKinetoTrace(
        (std::string(STROBE_TEST_DATA_DIR) + "/kineto/tracelens/mi300x_resnet_act_checkpoint_rank0of8.json.gz"));
    ASSERT_TRUE(loaded.ok()) << loaded.error().toString();
    auto rules = ClassificationRules::fromFile((std::string(STROBE_RESOURCE_DIR) + "/classification.yaml"));
    ASSERT_TRUE(rules.ok());
    RankData& rank = **loaded;
    ASSERT_TRUE(mergeRank(rank, *rules).ok());
    size_t broadcast = 0, allReduce = 0, other = 0, generic = 0;
    for (size_t i = 0; i < rank.gpu.size(); ++i) {
        if (rank.strings.view(rank.gpu.name[i]).rfind("ncclDevKernel_Generic", 0) != 0) continue;
        ++generic;
        EXPECT_EQ(rank.gpu.category[i], KernelCategory::Communication);
        switch (rank.gpu.collective[i]) {
        case Collective::Broadcast: ++broadcast; break;
        case Collective::AllReduce: ++allReduce; break;
        case Collective::Other: ++other; break;
        default: ADD_FAILURE() << "unexpected collective " << toString(rank.gpu.collective[i]);
        }
    }
    EXPECT_EQ(generic, 17u);
    EXPECT_EQ(broadcast, 6u);
    EXPECT_EQ(allReduce, 6u);
    EXPECT_EQ(other, 5u);
}

}  // namespace
}  // namespace strobe::core
