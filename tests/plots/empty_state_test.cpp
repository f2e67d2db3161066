// A plot with nothing to draw says why in the picture itself (the GUI and every exported file render through
// paintPlot), instead of drawing empty axes: checked on real traces by reading the text of the rendered SVG.
#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "core/engine/run_loader.h"
#include "plots/plot_registry.h"
#include "plots/render.h"
#include "tests/test_paths.h"

using namespace strobe;
using namespace strobe::plots;

namespace {

RunSet loadRun(const std::string& path) {
    core::RunLoadOptions o;
    o.useCache = false;  // tests never write to the user's cache
    auto r = core::loadRun({path}, o);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
    return RunSet{RunEntry{std::filesystem::path(path).filename().string(), r.ok() ? r.value() : nullptr, {}}};
}

struct Rendered {
    std::optional<std::string> empty;  // the plot's emptyMessage()
    std::string svg;                   // the picture as SVG text
};

Rendered render(const Plot& plot, const RunSet& runs, const ParamValues& given = {}) {
    auto values = resolveValues(plot.parameters(runs), given);
    EXPECT_TRUE(values.ok()) << plot.id();
    if (!values.ok()) return {};
    auto prepared = plot.prepare(runs, *values, {}, {});
    EXPECT_TRUE(prepared.ok()) << plot.id() << ": " << (prepared.ok() ? "" : prepared.error().toString());
    if (!prepared.ok()) return {};
    return {plot.emptyMessage(**prepared, *values),
            renderToSvg(plot, **prepared, *values, QSize(1600, 900)).toStdString()};
}

const std::string kDataDir = STROBE_TEST_DATA_DIR;

}  // namespace

// rank-34 of a 300-rank gloo job: CPU operators and annotations only, no GPU activity at all. No GPU plot has
// anything to draw; each says so with a reason, under its title, and draws no axes (step-time-box draws its
// ProfilerSteps, and so does sweep-heatmap's default metric, the median step time; the timeline draws the CPU
// threads, as Nsight Systems and Perfetto do for a run without GPU activity; the critical path is its CPU operators).
TEST(EmptyState, EveryPlotExplainsACpuOnlyTrace) {
    auto runs = loadRun(kDataDir + "/kineto/hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz");
    ASSERT_TRUE(runs[0].dataset);
    ASSERT_GE(PlotRegistry::instance().plots().size(), 9u);
    for (const auto* plot : PlotRegistry::instance().plots()) {
        // The step time needs no GPU: this trace's ProfilerSteps are real data for it.
        if (plot->id() == "step-time-box" || plot->id() == "sweep-heatmap") continue;
        // Nor does the critical path: a CPU-only run's path is its CPU operators and gaps, drawn and tabulated.
        if (plot->id() == "critical-path" || plot->id() == "what-if") {
            auto r = render(*plot, runs);
            EXPECT_FALSE(r.empty.has_value()) << plot->id() << ": " << r.empty.value_or("");
            // The path's classes (cpu_op), or the what-if table's operator groups (op:NAME).
            EXPECT_NE(r.svg.find(plot->id() == "what-if" ? "op:" : "cpu_op"), std::string::npos)
                << plot->id() << ": the CPU operators are on the path";
            continue;
        }
        auto r = render(*plot, runs);
        if (plot->id() == "gpu-timeline") {
            EXPECT_FALSE(r.empty.has_value()) << "the CPU threads are drawn";
            EXPECT_EQ(r.svg.find("Nothing to draw"), std::string::npos);
            continue;
        }
        ASSERT_TRUE(r.empty.has_value()) << plot->id() << " claims to have something to draw on a CPU-only trace";
        EXPECT_FALSE(r.empty->empty()) << plot->id();
        EXPECT_NE(r.svg.find("Nothing to draw"), std::string::npos) << plot->id();
        EXPECT_NE(r.svg.find(plot->title()), std::string::npos) << plot->id() << ": the title is part of the picture";
        // The reason's first words are in the picture (lines may wrap, so only the first word is searched).
        std::string firstWord = r.empty->substr(0, r.empty->find_first_of(" \n"));
        EXPECT_NE(r.svg.find(firstWord), std::string::npos) << plot->id() << ": " << *r.empty;
    }
}

// One rank with GPU activity (the MI250 toy trace, no distributedInfo): the straggler analysis matches collectives
// across ranks, so there is nothing to compare. Before, the plot drew one bar of zero on a 0–1 ns axis.
TEST(EmptyState, StragglerOnOneRankSaysMatchingNeedsTwoRanks) {
    auto runs = loadRun(kDataDir + "/kineto/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz");
    ASSERT_TRUE(runs[0].dataset);
    ASSERT_EQ(runs[0].dataset->ranks.size(), 1u);
    const Plot* plot = PlotRegistry::instance().find("straggler");
    ASSERT_NE(plot, nullptr);
    for (const char* metric : {"collective-wait", "region-end-lag"}) {
        auto r = render(*plot, runs, {{"evidence", std::string(metric)}});
        ASSERT_TRUE(r.empty.has_value()) << metric;
        EXPECT_NE(r.empty->find("one rank"), std::string::npos) << *r.empty;
        EXPECT_NE(r.empty->find("two or more"), std::string::npos) << *r.empty;
        EXPECT_NE(r.svg.find("Nothing to draw"), std::string::npos);
        EXPECT_NE(r.svg.find("straggler:"), std::string::npos) << "the reason is drawn";
        // No axis: the duration axis would label its ticks in ns.
        EXPECT_EQ(r.svg.find(">0 ns<"), std::string::npos);
    }
    // The same trace has kernels: the plots that need nothing more than kernels do draw.
    for (const char* id : {"gpu-timeline", "kernel-breakdown", "kernel-durations", "top-kernels"}) {
        const Plot* p = PlotRegistry::instance().find(id);
        ASSERT_NE(p, nullptr) << id;
        auto r = render(*p, runs);
        EXPECT_FALSE(r.empty.has_value()) << id << ": " << r.empty.value_or("");
        EXPECT_EQ(r.svg.find("Nothing to draw"), std::string::npos) << id;
    }
}

// A filter that matches nothing empties a plot that had data: the reason names the selection.
TEST(EmptyState, AFilterThatMatchesNothingIsExplained) {
    auto runs = loadRun(std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank");
    ASSERT_TRUE(runs[0].dataset);
    const Plot* plot = PlotRegistry::instance().find("kernel-durations");
    ASSERT_NE(plot, nullptr);
    auto all = render(*plot, runs);
    EXPECT_FALSE(all.empty.has_value());
    auto none = render(*plot, runs, {{"name_regex", std::string("^no_kernel_is_called_this$")}});
    ASSERT_TRUE(none.empty.has_value());
    EXPECT_NE(none.svg.find("Nothing to draw"), std::string::npos);
}

// On the 8-rank sample every plot has something to draw with its defaults — except the telemetry and counter plots
// (a Kineto trace has no telemetry samples and no hardware counters), the sweep interaction plot (one run, no
// sweep parameters), delta-bars (one configuration, nothing to compare it with) and the memory plots (recorded
// without profile_memory: no [memory] events): those must say so.
TEST(EmptyState, NoPlotIsEmptyOnTheEightRankSample) {
    auto runs = loadRun(std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank");
    ASSERT_TRUE(runs[0].dataset);
    const std::set<std::string> telemetry = {"power-timeline", "freq-vs-power", "freq-temp-correlation",
                                             "power-cap-distribution", "kernel-counters", "sweep-interaction",
                                             "power-freq-summary", "total-power", "cpu-active-cores",
                                             "cpu-core-heatmap",
                                             "delta-bars",
                                             "counter-cdf", "counter-timeline", "arch-chart",
                                             "memory-timeline", "memory-live-at-peak"};
    for (const auto* plot : PlotRegistry::instance().plots()) {
        auto r = render(*plot, runs);
        if (telemetry.count(plot->id())) {
            EXPECT_TRUE(r.empty.has_value()) << plot->id();
            continue;
        }
        EXPECT_FALSE(r.empty.has_value()) << plot->id() << ": " << r.empty.value_or("");
    }
}
