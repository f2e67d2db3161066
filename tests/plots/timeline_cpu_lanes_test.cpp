// CPU lanes of the GPU timeline on a real Kineto trace (tests/data/kineto/hta/trace_filter/sampled_rank-0.json.gz).
// Expected: /usr/bin/python3 tests/data/expected/timeline_cpu_lanes.py →
//   threads 2; thread 4037 23695: 1778 slices; thread 4037 4037: 1828 slices;
//   first kernel (correlation 6935929) → runtime cudaLaunchKernel at 1682725898082212 us, innermost enclosing cpu_op
//   fbgemm::permute_sparse_features at 1682725898081626 us.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "core/engine/run_loader.h"
#include "plots/builtin/timeline_model.h"
#include "plots/plot_registry.h"
#include "plots/render.h"

using namespace strobe;
using namespace strobe::plots;
using namespace strobe::plots::timeline;

namespace {

RunSet kinetoRun() {
    core::RunLoadOptions o;
    o.useCache = false;
    auto d = core::loadRun({std::string(STROBE_TEST_DATA_DIR) + "/kineto/hta/trace_filter/sampled_rank-0.json.gz"}, o);
    EXPECT_TRUE(d.ok());
    return RunSet{RunEntry{"r0", d.ok() ? d.value() : std::make_shared<core::Dataset>(), {}}};
}

bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

TEST(TimelineCpuLanes, OneLaneGroupPerThreadHoldingEverySlice) {
    const Plot* plot = PlotRegistry::instance().find("gpu-timeline");
    ASSERT_NE(plot, nullptr);
    auto runs = kinetoRun();
    auto values = resolveValues(plot->parameters(runs), {});
    ASSERT_TRUE(values.ok());
    auto prepared = plot->prepare(runs, *values, {}, {});
    ASSERT_TRUE(prepared.ok());
    const auto& p = dynamic_cast<const TimelinePrepared&>(**prepared);
    std::map<std::string, size_t> slices;
    std::map<std::string, int> depths;
    for (const auto& l : p.lanes) {
        if (l.kind != LaneKind::Cpu) continue;
        slices[l.thread] += l.start.size();
        depths[l.thread] = std::max(depths[l.thread], l.sub + 1);
        EXPECT_EQ(l.depths, 0 + l.depths);
        for (size_t k = 1; k < l.start.size(); ++k) EXPECT_LE(l.start[k - 1], l.start[k]);
        for (size_t k = 0; k < l.src.size(); ++k) EXPECT_EQ(l.rank->slices.depth[l.src[k]], l.sub);
    }
    ASSERT_EQ(slices.size(), 2u);
    size_t a = 0, b = 0;
    for (const auto& [thread, n] : slices) {
        if (endsWith(thread, "thread 23695")) a = n;
        if (endsWith(thread, "thread 4037")) b = n;
        EXPECT_GT(depths[thread], 1);  // operators nest
    }
    EXPECT_EQ(a, 1778u);
    EXPECT_EQ(b, 1828u);
    QImage img = renderToImage(*plot, **prepared, *values, QSize(1400, 600));
    EXPECT_GT(countNonBackgroundPixels(img), 3000);

    auto off = resolveValues(plot->parameters(runs), {{"cpu_lanes", false}});
    ASSERT_TRUE(off.ok());
    auto none = plot->prepare(runs, *off, {}, {});
    ASSERT_TRUE(none.ok());
    for (const auto& l : dynamic_cast<const TimelinePrepared&>(**none).lanes) EXPECT_NE(l.kind, LaneKind::Cpu);
}

TEST(TimelineCpuLanes, FirstKernelLeadsToItsRuntimeCallAndOperator) {
    auto runs = kinetoRun();
    const auto& r = *runs[0].dataset->ranks.at(0);
    const auto& g = r.gpu;
    size_t first = SIZE_MAX;
    for (size_t i = 0; i < g.size(); ++i)
        if (g.kind[i] == core::EventKind::Kernel && (first == SIZE_MAX || g.ts[i] < g.ts[first])) first = i;
    ASSERT_NE(first, SIZE_MAX);
    ASSERT_GE(g.runtime[first], 0);
    ASSERT_GE(g.cpuOp[first], 0);
    const auto rt = size_t(g.runtime[first]);
    const auto op = size_t(g.cpuOp[first]);
    EXPECT_EQ(r.strings.str(r.slices.name[rt]), "cudaLaunchKernel");
    EXPECT_EQ(r.slices.correlation[rt], 6935929);
    EXPECT_EQ(r.slices.ts[rt], 1682725898082212000LL);
    EXPECT_EQ(r.strings.str(r.slices.name[op]), "fbgemm::permute_sparse_features");
    EXPECT_EQ(r.slices.ts[op], 1682725898081626000LL);
}

}  // namespace
