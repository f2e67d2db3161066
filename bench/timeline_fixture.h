#pragma once
// The GPU timeline prepared once on a synthetic 8-rank run of 1 M GPU activities (bench/synthetic_dataset.h), shared
// by the timeline benchmarks (bench_plots, bench_plots_timeline_nav, bench_plots_timeline_cpu). withCpu(): the same
// run with every launch call nested under 4 CPU operators, 5 M CPU slices in all.

#include <benchmark/benchmark.h>

#include <QImage>
#include <QPainter>

#include "bench/synthetic_dataset.h"
#include "core/engine/job_runner.h"
#include "plots/plot_engine.h"
#include "plots/plot_registry.h"
#include "plots/render.h"
#include "plots/timeline_view.h"

namespace strobe::bench {

struct TimelineFixture {
    plots::RunSet runs;
    const plots::Plot* timeline = nullptr;
    plots::PreparedPtr prepared;
    plots::ParamValues values;
    static TimelineFixture make(int cpuLevels) {
        TimelineFixture x;
        x.runs = {plots::RunEntry{"synthetic", plots::testdata::syntheticRun(8, 125'000, 42, cpuLevels), {}}};
        x.timeline = plots::PlotRegistry::instance().find("gpu-timeline");
        x.values = *core::resolveValues(x.timeline->parameters(x.runs), {});
        x.prepared = *plots::prepareNow(*x.timeline, x.runs);
        return x;
    }
    static TimelineFixture& get() {
        static TimelineFixture f = make(0);  // 1 M activities
        return f;
    }
    static TimelineFixture& withCpu() {
        static TimelineFixture f = make(4);  // 1 M activities, 5 M CPU slices
        return f;
    }
};

// Wheel zoom steps about the middle of a 1600×900 picture, in to 200 µs and back out (so that both the merged-per-
// column and the one-by-one drawing are timed): each step is new view values → engine (cache hit, no prepare) →
// picture.
inline void zoomStepsToPicture(benchmark::State& state, const TimelineFixture& f, plots::ParamValues v) {
    core::JobRunner runner(1);
    plots::PlotEngine engine(runner);
    engine.cache().insert(plots::makePreparedKey(*f.timeline, f.runs, f.timeline->parameters(f.runs), v), f.prepared);
    QImage img(1600, 900, QImage::Format_ARGB32_Premultiplied);
    const QRectF rect(0, 0, 1600, 900);
    auto g = *f.timeline->timeline()->geometry(*f.prepared, v, rect);
    double factor = 0.8;
    for (auto _ : state) {
        v = plots::zoomAt(g, v, 800, factor);
        auto r = engine.request("view", *f.timeline, f.runs, v, {});
        if (!r.prepared) state.SkipWithError("cache miss");
        {
            QPainter painter(&img);
            plots::paintPlot(painter, rect, *f.timeline, *r.prepared, r.values);
        }
        g = *f.timeline->timeline()->geometry(*r.prepared, r.values, rect);
        if (g.viewEnd - g.viewStart < 200'000) factor = 1.25;
        if (g.viewEnd - g.viewStart >= g.fullEnd) factor = 0.8;
    }
}

}  // namespace strobe::bench
