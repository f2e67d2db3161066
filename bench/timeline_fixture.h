#pragma once
// The GPU timeline prepared once on a synthetic 8-rank run of 1 M GPU activities (bench/synthetic_dataset.h), shared
// by the timeline benchmarks (bench_plots, bench_plots_timeline_nav).

#include "bench/synthetic_dataset.h"
#include "plots/plot_registry.h"
#include "plots/timeline_view.h"

namespace strobe::bench {

struct TimelineFixture {
    plots::RunSet runs;
    const plots::Plot* timeline = nullptr;
    plots::PreparedPtr prepared;
    plots::ParamValues values;
    static TimelineFixture& get() {
        static TimelineFixture f = [] {
            TimelineFixture x;
            x.runs = {plots::RunEntry{"synthetic", plots::testdata::syntheticRun(8, 125'000), {}}};  // 1 M activities
            x.timeline = plots::PlotRegistry::instance().find("gpu-timeline");
            x.values = *core::resolveValues(x.timeline->parameters(x.runs), {});
            x.prepared = *plots::prepareNow(*x.timeline, x.runs);
            return x;
        }();
        return f;
    }
};

}  // namespace strobe::bench
