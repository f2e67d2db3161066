// Plot drawing speed: the GPU timeline painting 1 M kernels on 8 ranks (whole range and zoomed), and a drawing-
// parameter change turned into a new picture (engine cache hit + draw), and the second analysis plot's prepare on a
// run already analysed by a first one. Run:
//   QT_QPA_PLATFORM=offscreen build/release/bench/bench_plots --benchmark_repetitions=5 --benchmark_report_aggregates_only
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>

#include <QGuiApplication>
#include <QImage>
#include <QPainter>

#include "bench/synthetic_dataset.h"
#include "bench/qt_bench_main.h"
#include "bench/timeline_fixture.h"
#include "plots/plot_engine.h"
#include "plots/plot_registry.h"
#include "plots/render.h"
#include "plots/timeline_view.h"

using namespace strobe;
using namespace strobe::plots;

namespace {

using Fixture = strobe::bench::TimelineFixture;

void paintInto(QImage& img, const Plot& plot, const Prepared& p, const ParamValues& v) {
    QPainter painter(&img);
    paintPlot(painter, QRectF(0, 0, img.width(), img.height()), plot, p, v);
}

void BM_TimelinePaint1MWhole(benchmark::State& state) {
    auto& f = Fixture::get();
    QImage img(1600, 900, QImage::Format_ARGB32_Premultiplied);
    for (auto _ : state) {
        paintInto(img, *f.timeline, *f.prepared, f.values);
        benchmark::DoNotOptimize(img.constBits());
    }
    state.counters["kernels"] = 1e6;
}
BENCHMARK(BM_TimelinePaint1MWhole)->Unit(benchmark::kMillisecond);

void BM_TimelinePaint1MZoomed(benchmark::State& state) {
    auto& f = Fixture::get();
    QImage img(1600, 900, QImage::Format_ARGB32_Premultiplied);
    auto g = *f.timeline->timeline()->geometry(*f.prepared, f.values, QRectF(0, 0, 1600, 900));
    // 1% of the range around the middle: kernels wide enough to draw one by one, with names.
    auto v = setView(f.values, g.fullEnd / 2, g.fullEnd / 2 + g.fullEnd / 100);
    for (auto _ : state) {
        paintInto(img, *f.timeline, *f.prepared, v);
        benchmark::DoNotOptimize(img.constBits());
    }
}
BENCHMARK(BM_TimelinePaint1MZoomed)->Unit(benchmark::kMillisecond);

// Wheel zoom step: new view values → engine (cache hit, no prepare) → picture.
void BM_TimelineZoomStepToPicture(benchmark::State& state) {
    auto& f = Fixture::get();
    strobe::bench::zoomStepsToPicture(state, f, f.values);
}
BENCHMARK(BM_TimelineZoomStepToPicture)->Unit(benchmark::kMillisecond);

// A drawing parameter of a chart (kernel-breakdown "percent") toggled: cache hit + draw, for every builtin plot's
// first drawing parameter the same path applies.
void BM_DrawParamChangeToPicture(benchmark::State& state) {
    auto& f = Fixture::get();
    const Plot* plot = PlotRegistry::instance().find(state.range(0) == 0 ? "kernel-breakdown" : "kernel-durations");
    core::JobRunner runner(1);
    PlotEngine engine(runner);
    auto base = *resolveValues(plot->parameters(f.runs), {});
    engine.cache().insert(makePreparedKey(*plot, f.runs, plot->parameters(f.runs), base), *prepareNow(*plot, f.runs));
    const char* key = state.range(0) == 0 ? "percent" : "log_scale";
    QImage img(1400, 800, QImage::Format_ARGB32_Premultiplied);
    bool on = false;
    for (auto _ : state) {
        on = !on;
        ParamValues v = base;
        v[key] = on;
        auto r = engine.request("view", *plot, f.runs, v, {});
        if (!r.prepared) state.SkipWithError("cache miss");
        paintInto(img, *plot, *r.prepared, r.values);
    }
    state.SetLabel(plot->id());
}
BENCHMARK(BM_DrawParamChangeToPicture)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_TimelinePrepare1M(benchmark::State& state) {
    auto& f = Fixture::get();
    for (auto _ : state) benchmark::DoNotOptimize(prepareNow(*f.timeline, f.runs));
}
BENCHMARK(BM_TimelinePrepare1M)->Unit(benchmark::kMillisecond)->Iterations(3);

// The second analysis plot opened on a run: temporal-breakdown was prepared first (window auto), then another
// analysis plot on the same dataset and window is prepared (the prepared cache is bypassed: plot->prepare()).
// What the first prepare computed for the window (steady-state steps, the selection of 1 M activities, sorted,
// classified and merged) is what a shared per-dataset AnalysisContext lets the second one reuse.
// Arg 0: comm-comp-overlap, 1: idle-by-cause.
void BM_SecondPlotPrepare1M(benchmark::State& state) {
    auto& f = Fixture::get();
    const Plot* first = PlotRegistry::instance().find("temporal-breakdown");
    const Plot* second = PlotRegistry::instance().find(state.range(0) == 0 ? "comm-comp-overlap" : "idle-by-cause");
    if (!first || !second || !prepareNow(*first, f.runs)) {
        state.SkipWithError("first prepare failed");
        return;
    }
    const auto values = *resolveValues(second->parameters(f.runs), {});
    for (auto _ : state) {
        auto r = second->prepare(f.runs, values, {}, {});
        if (!r) state.SkipWithError("prepare failed");
        benchmark::DoNotOptimize(r);
    }
    state.SetLabel(second->id());
}
BENCHMARK(BM_SecondPlotPrepare1M)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) { return strobe::bench::runQtBenchmarks(argc, argv); }
