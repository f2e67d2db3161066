// CPU lanes of the GPU timeline on a real Kineto trace (tests/data/kineto/hta/trace_filter/sampled_rank-0.json.gz).
// Expected: /usr/bin/python3 tests/data/expected/timeline_cpu_lanes.py →
//   threads 2; thread 4037 23695: 1778 slices; thread 4037 4037: 1828 slices;
//   first kernel (correlation 6935929) → runtime cudaLaunchKernel at 1682725898082212 us, innermost enclosing cpu_op
//   fbgemm::permute_sparse_features at 1682725898081626 us;
//   flows: that operator launched 6 kernels through 6 runtime calls, its outermost enclosing operator ("forward" at
//   1682725898081597 us) 46 through 46.
#include <algorithm>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "core/engine/run_loader.h"
#include "plots/builtin/timeline_model.h"
#include "plots/plot_registry.h"
#include "plots/render.h"
#include "tests/test_paths.h"

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


struct Timeline {
    RunSet runs = kinetoRun();
    const Plot* plot = PlotRegistry::instance().find("gpu-timeline");
    ParamValues values;
    PreparedPtr prepared;
    const TimelinePrepared* p = nullptr;
    Timeline() {
        auto v = resolveValues(plot->parameters(runs), {});
        EXPECT_TRUE(v.ok());
        values = *v;
        auto pr = plot->prepare(runs, values, {}, {});
        EXPECT_TRUE(pr.ok());
        prepared = *pr;
        p = preparedAs<TimelinePrepared>(*prepared.get());
    }
    // The item of GPU activity `gpu` (stream lanes) or of slice `slice` (CPU lanes).
    std::optional<ItemRef> item(LaneKind kind, uint32_t src) const {
        for (size_t li = 0; li < p->lanes.size(); ++li)
            if (p->lanes[li].kind == kind)
                for (size_t k = 0; k < p->lanes[li].src.size(); ++k)
                    if (p->lanes[li].src[k] == src) return ItemRef{li, k, p->lanes[li].start[k], p->lanes[li].end[k]};
        return std::nullopt;
    }
    int64_t abs(const ItemRef& i) const { return i.start + p->runOrigin[0]; }
};

size_t firstKernel(const core::RankData& r) {
    size_t first = SIZE_MAX;
    for (size_t i = 0; i < r.gpu.size(); ++i)
        if (r.gpu.kind[i] == core::EventKind::Kernel && (first == SIZE_MAX || r.gpu.ts[i] < r.gpu.ts[first])) first = i;
    return first;
}

TEST(TimelineCpuLanes, OneLaneGroupPerThreadHoldingEverySlice) {
    const Plot* plot = PlotRegistry::instance().find("gpu-timeline");
    ASSERT_NE(plot, nullptr);
    auto runs = kinetoRun();
    auto values = resolveValues(plot->parameters(runs), {});
    ASSERT_TRUE(values.ok());
    auto prepared = plot->prepare(runs, *values, {}, {});
    ASSERT_TRUE(prepared.ok());
    const auto& p = *preparedAs<TimelinePrepared>(**prepared);
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
        // Named by process and thread (process_name, thread_name): "rank 0 pyper:trainer:0:0 · thread 4037 (python3.8)".
        if (thread.find("pyper:trainer:0:0 · thread 23695 (python3.8)") != std::string::npos) a = n;
        if (thread.find("pyper:trainer:0:0 · thread 4037 (python3.8)") != std::string::npos) b = n;
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
    for (const auto& l : preparedAs<TimelinePrepared>(**none)->lanes) EXPECT_NE(l.kind, LaneKind::Cpu);
}

TEST(TimelineCpuLanes, ClickingAThreadLabelExpandsItsDepths) {
    Timeline t;
    const Plot* plot = t.plot;
    const auto* values = &t.values;
    const auto* prepared = &t.prepared;
    const auto& p = *t.p;
    int depth0 = 0, all = 0;
    for (const auto& l : p.lanes) {
        all += l.kind == LaneKind::Cpu ? 1 : 0;
        depth0 += l.kind == LaneKind::Cpu && l.sub == 0 ? 1 : 0;
    }
    const QRectF rect(0, 0, 1400, 4000);
    auto geo = *plot->timeline()->geometry(**prepared, *values, rect);
    // Collapsed by default: the 2 threads are 1 row each, so the CPU rows are the last 2.
    ASSERT_EQ(depth0, 2);
    const int gpuRows = geo.laneCount - 2;
    const QPointF label(5, geo.plotArea.top() + (gpuRows + 0.5) * geo.laneHeight);
    auto next = plot->timeline()->gutterClick(**prepared, *values, rect, label);
    ASSERT_TRUE(next.has_value());
    auto geo2 = *plot->timeline()->geometry(**prepared, *next, rect);
    EXPECT_GT(geo2.laneCount, geo.laneCount);
    EXPECT_LT(geo2.laneCount, gpuRows + all + 1);
    auto back = plot->timeline()->gutterClick(**prepared, *next, rect, label);  // the same label collapses it again
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(plot->timeline()->geometry(**prepared, *back, rect)->laneCount, geo.laneCount);
    // The second row (a stream, not a CPU thread nor the rank's first row) toggles nothing.
    EXPECT_FALSE(plot->timeline()
                     ->gutterClick(**prepared, *values, rect, QPointF(5, geo.plotArea.top() + 1.5 * geo.laneHeight))
                     .has_value());
}

TEST(TimelineFlows, FromTheFirstKernelThroughItsRuntimeCallToItsOperator) {
    Timeline t;
    const auto& r = *t.runs[0].dataset->ranks.at(0);
    const auto kernel = t.item(LaneKind::Stream, uint32_t(firstKernel(r)));
    ASSERT_TRUE(kernel.has_value());
    const auto flows = t.plot->timeline()->flows(*t.prepared, t.values, *kernel, 256);
    ASSERT_EQ(flows.size(), 2u);
    // runtime call → kernel, then operator → runtime call.
    EXPECT_EQ(flows[0].to, *kernel);
    EXPECT_EQ(t.plot->timeline()->itemName(*t.prepared, flows[0].from), "cudaLaunchKernel");
    EXPECT_EQ(t.abs(flows[0].from), 1682725898082212000LL);
    EXPECT_EQ(t.p->lanes[flows[0].from.lane].kind, LaneKind::Cpu);
    EXPECT_EQ(flows[1].to, flows[0].from);
    EXPECT_EQ(flows[1].what, "runtime call");
    EXPECT_EQ(t.plot->timeline()->itemName(*t.prepared, flows[1].from), "fbgemm::permute_sparse_features");
    EXPECT_EQ(t.abs(flows[1].from), 1682725898081626000LL);
    // Revealed, every end is on screen: the operator and the call on their thread's rows (expanded by the reveal).
    const QRectF rect(0, 0, 1400, 900);
    const auto shown = t.plot->timeline()->revealItem(*t.prepared, t.values, rect, flows[1].from);
    const auto rects = t.plot->timeline()->itemRects(*t.prepared, shown, rect, {flows[0].from, flows[1].from});
    ASSERT_TRUE(rects[0].has_value());
    ASSERT_TRUE(rects[1].has_value());
    EXPECT_LT(rects[1]->top(), rects[0]->top());  // the operator encloses the call: a shallower row
}

TEST(TimelineFlows, FromAnOperatorToEveryKernelItAndItsNestedOperatorsLaunched) {
    Timeline t;
    const auto& r = *t.runs[0].dataset->ranks.at(0);
    const auto kernel = size_t(firstKernel(r));
    const auto inner = t.item(LaneKind::Cpu, uint32_t(r.gpu.cpuOp[kernel]));
    ASSERT_TRUE(inner.has_value());
    auto count = [&](const ItemRef& op, const char* what) {
        std::set<std::pair<size_t, size_t>> ends;
        for (const auto& f : t.plot->timeline()->flows(*t.prepared, t.values, op, 4096))
            if (f.what == what) ends.insert({f.to.lane, f.to.index});
        return ends.size();
    };
    EXPECT_EQ(count(*inner, "kernel"), 6u);
    EXPECT_EQ(count(*inner, "runtime call"), 6u);
    // The outermost operator (cpu_op) around it: "forward" (under the ProfilerStep annotation).
    int64_t outer = r.gpu.cpuOp[kernel];
    while (r.slices.parent[size_t(outer)] >= 0 &&
           r.slices.kind[size_t(r.slices.parent[size_t(outer)])] == core::EventKind::CpuOp)
        outer = r.slices.parent[size_t(outer)];
    ASSERT_EQ(r.strings.str(r.slices.name[size_t(outer)]), "forward");
    const auto forward = t.item(LaneKind::Cpu, uint32_t(outer));
    ASSERT_TRUE(forward.has_value());
    EXPECT_EQ(t.abs(*forward), 1682725898081597000LL);
    EXPECT_EQ(count(*forward, "kernel"), 46u);
    EXPECT_EQ(count(*forward, "runtime call"), 46u);
    // A cap bounds the links.
    EXPECT_EQ(t.plot->timeline()->flows(*t.prepared, t.values, *forward, 10).size(), 10u);
}

TEST(TimelineRanks, ClickingARanksFirstLabelCollapsesItIntoOneSummaryRow) {
    Timeline t;
    const QRectF rect(0, 0, 1400, 4000);
    const auto geo = *t.plot->timeline()->geometry(*t.prepared, t.values, rect);
    ASSERT_GT(geo.laneCount, 3);
    const QPointF firstLabel(5, geo.plotArea.top() + 0.5 * geo.laneHeight);
    auto collapsed = t.plot->timeline()->gutterClick(*t.prepared, t.values, rect, firstLabel);
    ASSERT_TRUE(collapsed.has_value());
    const auto* ranks = std::get_if<std::vector<std::string>>(&collapsed->at("collapsed_ranks"));
    ASSERT_NE(ranks, nullptr);
    EXPECT_EQ(*ranks, std::vector<std::string>{t.p->lanes[0].group});
    const auto geo2 = *t.plot->timeline()->geometry(*t.prepared, *collapsed, rect);
    EXPECT_EQ(geo2.laneCount, 1);  // one rank, one row
    // The first kernel is on that row, and a click there picks a kernel of some stream.
    const auto& r = *t.runs[0].dataset->ranks.at(0);
    const auto kernel = t.item(LaneKind::Stream, uint32_t(firstKernel(r)));
    const auto at = t.plot->timeline()->itemRects(*t.prepared, *collapsed, rect, {*kernel}).front();
    ASSERT_TRUE(at.has_value());
    EXPECT_EQ(at->top(), geo2.plotArea.top());
    const auto picked =
        t.plot->timeline()->itemAt(*t.prepared, *collapsed, rect, QPointF(at->left() + 0.5, at->center().y()));
    ASSERT_TRUE(picked.has_value());
    EXPECT_EQ(t.p->lanes[picked->lane].kind, LaneKind::Stream);
    // Revealing an item in it expands the rank; a second click on the label expands it too.
    const auto revealed = t.plot->timeline()->revealItem(*t.prepared, *collapsed, rect, *kernel);
    EXPECT_TRUE(std::get<std::vector<std::string>>(revealed.at("collapsed_ranks")).empty());
    auto expanded = t.plot->timeline()->gutterClick(*t.prepared, *collapsed, rect, firstLabel);
    ASSERT_TRUE(expanded.has_value());
    EXPECT_EQ(t.plot->timeline()->geometry(*t.prepared, *expanded, rect)->laneCount, geo.laneCount);
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

namespace {

// A CPU-only run (Debian's torch 1.13 without Kineto writes the legacy autograd trace: no GPU activity at all) is
// drawn, not "nothing to draw": its steps and its CPU thread's 376 operators (tests/data/expected/legacy_autograd.py)
// plus the 3 ProfilerStep ranges, on the thread lanes.
TEST(TimelineCpuLanes, ACpuOnlyRunIsDrawnWithItsThreads) {
    core::RunLoadOptions o;
    o.useCache = false;
    auto d = core::loadRun({std::string(STROBE_TEST_DATA_DIR) + "/kineto/legacy/legacy_autograd_cpu.json"}, o);
    ASSERT_TRUE(d.ok());
    const RunSet runs{RunEntry{"cpu", *d, {}}};
    const Plot* plot = PlotRegistry::instance().find("gpu-timeline");
    auto values = resolveValues(plot->parameters(runs), {});
    ASSERT_TRUE(values.ok());
    auto prepared = plot->prepare(runs, *values, {}, {});
    ASSERT_TRUE(prepared.ok());
    EXPECT_FALSE(plot->emptyMessage(**prepared, *values).has_value());
    const auto* p = preparedAs<TimelinePrepared>(*prepared->get());
    ASSERT_NE(p, nullptr);
    size_t cpuItems = 0, steps = 0;
    for (const auto& l : p->lanes) {
        if (l.kind == LaneKind::Cpu) cpuItems += l.start.size();
        if (l.kind == LaneKind::Steps) steps += l.start.size();
    }
    EXPECT_EQ(cpuItems, 379u);
    EXPECT_EQ(steps, 3u);
}

}  // namespace
