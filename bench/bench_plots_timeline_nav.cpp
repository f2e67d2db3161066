// Timeline navigation on 1 M kernels (8 ranks): a name search (substring and regex) over every lane, the summary
// of a measured range (10 % of the run), the match highlights' rects for a zoomed view, and the statistics of one
// name. Run:
//   QT_QPA_PLATFORM=offscreen build/release/bench/bench_plots_timeline_nav --benchmark_repetitions=5
//     --benchmark_report_aggregates_only   (one command line)
#include <benchmark/benchmark.h>

#include <cstdlib>

#include <QGuiApplication>

#include "bench/synthetic_dataset.h"
#include "bench/qt_bench_main.h"
#include "bench/timeline_fixture.h"
#include "plots/plot_registry.h"
#include "plots/timeline_view.h"

using namespace strobe;
using namespace strobe::plots;

namespace {

using Fixture = strobe::bench::TimelineFixture;

void BM_Find1M(benchmark::State& state) {
    auto& f = Fixture::get();
    // 0: substring "sgemm"; 1: regex "sgemm" (the same matches); 2: regex "sgemm|reduce" (more matches).
    const FindQuery q{state.range(0) == 2 ? "sgemm|reduce" : "sgemm",
                      state.range(0) ? FindQuery::Mode::Regex : FindQuery::Mode::Substring};
    size_t n = 0;
    for (auto _ : state) {
        auto r = f.timeline->timeline()->findItems(*f.prepared, f.values, q);
        n = r ? r.value().size() : 0;
        benchmark::DoNotOptimize(n);
    }
    state.counters["matches"] = double(n);
    state.SetLabel(state.range(0) ? "regex" : "substring");
}
BENCHMARK(BM_Find1M)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

void BM_MeasureRange1M(benchmark::State& state) {
    auto& f = Fixture::get();
    auto g = *f.timeline->timeline()->geometry(*f.prepared, f.values, QRectF(0, 0, 1600, 900));
    for (auto _ : state) {
        auto s = f.timeline->timeline()->summarizeRange(*f.prepared, f.values, g.fullEnd / 2,
                                                        g.fullEnd / 2 + g.fullEnd / 10, 10);
        benchmark::DoNotOptimize(s);
    }
}
BENCHMARK(BM_MeasureRange1M)->Unit(benchmark::kMillisecond);

void BM_HighlightRectsZoomed(benchmark::State& state) {
    auto& f = Fixture::get();
    const QRectF rect(0, 0, 1600, 900);
    auto g = *f.timeline->timeline()->geometry(*f.prepared, f.values, rect);
    auto v = setView(f.values, g.fullEnd / 2, g.fullEnd / 2 + g.fullEnd / 100);
    auto all =
        f.timeline->timeline()->findItems(*f.prepared, v, FindQuery{"sgemm", FindQuery::Mode::Substring}).value();
    std::vector<ItemRef> inView;
    for (const auto& m : all)
        if (m.end >= g.fullEnd / 2 && m.start <= g.fullEnd / 2 + g.fullEnd / 100) inView.push_back(m);
    for (auto _ : state) benchmark::DoNotOptimize(f.timeline->timeline()->itemRects(*f.prepared, v, rect, inView));
    state.counters["rects"] = double(inView.size());
}
BENCHMARK(BM_HighlightRectsZoomed)->Unit(benchmark::kMillisecond);

void BM_NameStats1M(benchmark::State& state) {
    auto& f = Fixture::get();
    auto first = f.timeline->timeline()
                     ->findItems(*f.prepared, f.values, FindQuery{"sgemm", FindQuery::Mode::Substring})
                     .value();
    for (auto _ : state)
        benchmark::DoNotOptimize(f.timeline->timeline()->nameStats(*f.prepared, f.values, first.front()));
}
BENCHMARK(BM_NameStats1M)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) { return strobe::bench::runQtBenchmarks(argc, argv); }
