// strobe-summary-first: the workbench's summary-first opening of a converted run (issue 29), timed step by step as
// the workbench does it, without its widgets: the one load job (core/engine/load_job.h) with summaryFirst under a
// memory limit, the rank × step heatmap prepared and painted at the workbench's size, then the drill-down into one
// rank (the load job again with that rank asked for and the summaries read at the opening, its events read through
// the load cache) and its GPU timeline prepared and painted.
//
//   strobe-summary-first RUN --cache-dir DIR [--limit 1G] [--rank N] [--reps 5] [--size 1400x800]
//
// Prints one line per step: wall seconds (median of --reps for the paints), and the process' peak RSS after opening.
// The run must have been converted (`strobe-cli convert RUN --cache-dir DIR`) so that the opening reads summaries.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <QGuiApplication>
#include <QImage>
#include <QPainter>

#include "bench/proc_status.h"
#include "core/engine/converted_run.h"
#include "core/engine/job_runner.h"
#include "core/engine/load_job.h"
#include "core/engine/memory_budget.h"
#include "core/params/param_spec.h"
#include "plots/plot_registry.h"
#include "plots/render.h"

using namespace strobe;

namespace {

double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

core::Result<core::LoadJobResult> openRun(const std::string& run, const core::RunLoadOptions& o) {
    core::JobRunner runner(1);
    auto results = core::loadRunsThroughJobs(runner, {{run}}, o);
    return std::move(results.front());
}

// Prepares `plotId` on the run and paints it `reps` times at `size`: (prepare s, median paint s).
std::pair<double, double> prepareAndPaint(const std::string& plotId, const core::DatasetPtr& ds, QSize size, int reps,
                                          const plots::ParamValues& given = {}) {
    const plots::Plot* plot = plots::PlotRegistry::instance().find(plotId);
    if (!plot) return {-1, -1};
    plots::RunSet runs{plots::RunEntry{"run", ds, {}}};
    auto values = core::resolveValues(plot->parameters(runs), given);
    if (!values) {
        std::fprintf(stderr, "%s: %s\n", plotId.c_str(), values.error().toString().c_str());
        return {-1, -1};
    }
    auto t0 = std::chrono::steady_clock::now();
    auto prepared = plot->prepare(runs, *values, {}, {});
    const double prep = since(t0);
    if (!prepared) {
        std::fprintf(stderr, "%s: %s\n", plotId.c_str(), prepared.error().toString().c_str());
        return {prep, -1};
    }
    if (auto empty = plot->emptyMessage(**prepared, *values))
        std::fprintf(stderr, "%s: nothing to draw: %s\n", plotId.c_str(), empty->c_str());
    std::vector<double> paints;
    for (int i = 0; i < reps; ++i) {
        QImage img(size, QImage::Format_ARGB32_Premultiplied);
        img.fill(Qt::white);
        t0 = std::chrono::steady_clock::now();
        {
            QPainter painter(&img);
            plots::paintPlot(painter, QRectF(QPointF(0, 0), QSizeF(size)), *plot, **prepared, *values);
        }
        paints.push_back(since(t0));
    }
    return {prep, median(paints)};
}

}  // namespace

int main(int argc, char** argv) {
    std::string run, cacheDir, limitText = "1G", sizeText = "1400x800";
    int rank = -1, reps = 5;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : std::string(); };
        if (a == "--cache-dir") cacheDir = next();
        else if (a == "--limit") limitText = next();
        else if (a == "--rank") rank = std::atoi(next().c_str());
        else if (a == "--reps") reps = std::max(1, std::atoi(next().c_str()));
        else if (a == "--size") sizeText = next();
        else if (!a.empty() && a[0] != '-') run = a;
        else {
            std::fprintf(stderr, "usage: strobe-summary-first RUN --cache-dir DIR [--limit 1G] [--rank N] [--reps 5] "
                                 "[--size 1400x800]\n");
            return 2;
        }
    }
    if (run.empty()) {
        std::fprintf(stderr, "strobe-summary-first: no run given\n");
        return 2;
    }
    const uint64_t limit = core::MemoryBudget::parseSize(limitText);
    int w = 1400, h = 800;
    if (std::sscanf(sizeText.c_str(), "%dx%d", &w, &h) != 2) return 2;
    if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
    int qargc = 1;
    QGuiApplication app(qargc, argv);

    core::RunLoadOptions o;
    o.cacheDir = cacheDir;
    o.memoryLimitBytes = limit;
    o.summaryFirst = true;
    auto t0 = std::chrono::steady_clock::now();
    auto opened = openRun(run, o);
    const double openS = since(t0);
    if (!opened) {
        std::fprintf(stderr, "strobe-summary-first: %s\n", opened.error().toString().c_str());
        return 1;
    }
    const core::DatasetPtr ds = opened->dataset;
    if (!ds->summaryFirst) {
        std::fprintf(stderr, "strobe-summary-first: the run loaded in full (its events fit %s, or it was not "
                             "converted)\n", core::MemoryBudget::formatSize(limit).c_str());
        return 1;
    }
    const core::RunSummaries& sf = *ds->summaryFirst;
    std::printf("run: %zu ranks, events ~%s, budget %s; %zu summaries made again\n", sf.ranks.size(),
                core::MemoryBudget::formatSize(sf.runEstimate).c_str(), core::MemoryBudget::formatSize(limit).c_str(),
                sf.remade);
    std::printf("open summary-first          %8.3f s   peak RSS %.0f MB\n", openS,
                double(bench::procStatusBytes("VmHWM")) / 1e6);
    const auto [heatPrep, heatPaint] = prepareAndPaint("rank-step-heatmap", ds, QSize(w, h), reps);
    std::printf("heatmap prepare             %8.3f s\n", heatPrep);
    std::printf("heatmap paint (median)      %8.1f ms  (%dx%d)\n", heatPaint * 1e3, w, h);
    std::printf("open + heatmap              %8.3f s   peak RSS %.0f MB\n", openS + heatPrep + heatPaint,
                double(bench::procStatusBytes("VmHWM")) / 1e6);

    if (rank < 0) rank = sf.ranks[sf.ranks.size() / 2].rank.rank;
    o.ranks = std::vector<int>{rank};
    o.knownSummaries = ds->summaryFirst;  // as the workbench does: the summaries read at the opening
    t0 = std::chrono::steady_clock::now();
    auto drilled = openRun(run, o);
    const double drillS = since(t0);
    if (!drilled || drilled->dataset->ranks.size() != 1) {
        std::fprintf(stderr, "strobe-summary-first: rank %d did not load\n", rank);
        return 1;
    }
    const auto [tlPrep, tlPaint] = prepareAndPaint("gpu-timeline", drilled->dataset, QSize(w, h), reps);
    std::printf("drill into rank %-5d load   %8.3f s\n", rank, drillS);
    std::printf("  its timeline prepare      %8.3f s\n", tlPrep);
    std::printf("  its timeline paint        %8.1f ms\n", tlPaint * 1e3);
    std::printf("drill-down total            %8.3f s   peak RSS %.0f MB\n", drillS + tlPrep + tlPaint,
                double(bench::procStatusBytes("VmHWM")) / 1e6);
    return 0;
}
