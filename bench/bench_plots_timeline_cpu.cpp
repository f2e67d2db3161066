// The GPU timeline with CPU lanes on 1 M kernels + 5 M CPU slices (8 ranks, each launch call under 4 operators,
// bench/timeline_fixture.h withCpu): whole-view paint with the threads collapsed (depth 0) and expanded (every
// depth), a wheel zoom step to a new picture, the flows of an operator and of a kernel, and the prepare. Run:
//   QT_QPA_PLATFORM=offscreen build/release/bench/bench_plots_timeline_cpu --benchmark_repetitions=5
//     --benchmark_report_aggregates_only   (one command line)
#include <benchmark/benchmark.h>

#include <algorithm>

#include <QImage>
#include <QPainter>

#include "bench/qt_bench_main.h"
#include "bench/timeline_fixture.h"
#include "plots/builtin/timeline_model.h"
#include "plots/plot_engine.h"
#include "plots/render.h"

using namespace strobe;
using namespace strobe::plots;

namespace {

using Fixture = strobe::bench::TimelineFixture;
using timeline::LaneKind;
using timeline::TimelinePrepared;

// The values with every CPU thread expanded (mode 1: 45 of the 112 lanes fit in 900 px; mode 2: 6 px lanes, all of
// them in view) or the defaults (mode 0: threads collapsed to depth 0, every lane in view).
ParamValues cpuValues(const Fixture& f, int mode) {
    ParamValues v = f.values;
    if (mode == 0) return v;
    if (mode == 2) v["lane_height"] = int64_t(6);
    std::vector<std::string> threads;
    for (const auto& l : dynamic_cast<const TimelinePrepared&>(*f.prepared).lanes)
        if (l.kind == LaneKind::Cpu && std::find(threads.begin(), threads.end(), l.thread) == threads.end())
            threads.push_back(l.thread);
    v["expanded_threads"] = threads;
    return v;
}

size_t cpuSlices(const Fixture& f) {
    size_t n = 0;
    for (const auto& l : dynamic_cast<const TimelinePrepared&>(*f.prepared).lanes)
        if (l.kind == LaneKind::Cpu) n += l.start.size();
    return n;
}

void paint(QImage& img, const Fixture& f, const Prepared& p, const ParamValues& v) {
    QPainter painter(&img);
    paintPlot(painter, QRectF(0, 0, img.width(), img.height()), *f.timeline, p, v);
}

void BM_TimelineCpuPaintWhole(benchmark::State& state) {
    auto& f = Fixture::withCpu();
    const auto v = cpuValues(f, int(state.range(0)));
    QImage img(1600, 900, QImage::Format_ARGB32_Premultiplied);
    for (auto _ : state) {
        paint(img, f, *f.prepared, v);
        benchmark::DoNotOptimize(img.constBits());
    }
    state.counters["cpu_slices"] = double(cpuSlices(f));
    const auto g = *f.timeline->timeline()->geometry(*f.prepared, v, QRectF(0, 0, 1600, 900));
    state.counters["lanes_drawn"] = double(std::min(g.laneCount, g.visibleLanes));
    state.counters["lanes"] = double(g.laneCount);
    state.SetLabel(state.range(0) == 0 ? "threads collapsed" : "threads expanded");
}
BENCHMARK(BM_TimelineCpuPaintWhole)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

// A wheel zoom step: new view values → engine (cache hit) → picture, every thread expanded; zooms in to 200 µs
// and back out, so both the merged-per-column and the one-by-one paths are timed.
void BM_TimelineCpuZoomStep(benchmark::State& state) {
    auto& f = Fixture::withCpu();
    strobe::bench::zoomStepsToPicture(state, f, cpuValues(f, 1));
}
BENCHMARK(BM_TimelineCpuZoomStep)->Unit(benchmark::kMillisecond);

// The flows of a selection: 0 = a kernel (its call and operator), 1 = a depth-0 operator (scans every kernel of
// its rank for those it launched).
void BM_TimelineFlows(benchmark::State& state) {
    auto& f = Fixture::withCpu();
    const auto& p = dynamic_cast<const TimelinePrepared&>(*f.prepared);
    const LaneKind kind = state.range(0) == 0 ? LaneKind::Stream : LaneKind::Cpu;
    std::optional<ItemRef> item;
    for (size_t li = 0; li < p.lanes.size() && !item; ++li)
        if (p.lanes[li].kind == kind && p.lanes[li].sub == 0 && p.lanes[li].start.size() > 1000)
            item = ItemRef{li, 1000, p.lanes[li].start[1000], p.lanes[li].end[1000]};
    if (!item) {
        state.SkipWithError("no item");
        return;
    }
    size_t links = 0;
    for (auto _ : state) {
        links = f.timeline->timeline()->flows(*f.prepared, f.values, *item, 256).size();
        benchmark::DoNotOptimize(links);
    }
    state.counters["links"] = double(links);
    state.SetLabel(state.range(0) == 0 ? "kernel" : "operator");
}
BENCHMARK(BM_TimelineFlows)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_TimelineCpuPrepare(benchmark::State& state) {
    auto& f = Fixture::withCpu();
    for (auto _ : state) benchmark::DoNotOptimize(prepareNow(*f.timeline, f.runs));
}
BENCHMARK(BM_TimelineCpuPrepare)->Unit(benchmark::kMillisecond)->Iterations(2);

}  // namespace

int main(int argc, char** argv) { return strobe::bench::runQtBenchmarks(argc, argv); }
