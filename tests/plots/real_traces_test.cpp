// Every builtin plot on every real trace copied into tests/data/kineto and on the bundled 8-rank sample: prepares
// without error and draws a non-empty picture; the analysis-backed plots' tables are exactly the analyses'.
#include <filesystem>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "core/analysis/context.h"
#include "core/analysis/idle.h"
#include "core/analysis/kernel_stats.h"
#include "core/analysis/launch.h"
#include "core/analysis/overlap.h"
#include "core/analysis/straggler.h"
#include "core/analysis/temporal.h"
#include "core/engine/run_loader.h"
#include "plots/analysis_plot.h"
#include "plots/plot_registry.h"
#include "plots/render.h"
#include "tests/test_paths.h"

using namespace strobe;
using namespace strobe::plots;
namespace fs = std::filesystem;

namespace {

core::DatasetPtr load(const std::vector<std::string>& paths) {
    core::RunLoadOptions o;
    o.useCache = false;  // tests never write to the user's cache
    auto r = core::loadRun(paths, o);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
    return r.ok() ? r.value() : nullptr;
}

std::vector<std::string> kinetoFiles() {
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(std::string(STROBE_TEST_DATA_DIR) + "/kineto"))
        if (e.is_regular_file() && e.path().string().find(".json") != std::string::npos) out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

const RunSet& sample() {
    static RunSet runs = [] {
        auto d = load({std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank"});
        return RunSet{RunEntry{"param-dlrm-8rank", d, {}}};
    }();
    return runs;
}

bool hasGpuActivity(const core::Dataset& d) {
    for (const auto& r : d.ranks)
        if (r && r->gpu.size() > 0) return true;
    return false;
}

}  // namespace

TEST(RealTraces, EveryPlotDrawsOnEveryKinetoTrace) {
    auto files = kinetoFiles();
    ASSERT_GE(files.size(), 10u);
    for (const auto& f : files) {
        auto d = load({f});
        if (!d) continue;
        RunSet runs{RunEntry{fs::path(f).filename().string(), d, {}}};
        bool gpu = hasGpuActivity(*d);
        for (const auto* plot : PlotRegistry::instance().plots()) {
            auto values = resolveValues(plot->parameters(runs), {});
            ASSERT_TRUE(values.ok()) << plot->id();
            auto prepared = plot->prepare(runs, *values, {}, {});
            ASSERT_TRUE(prepared.ok()) << plot->id() << " on " << f << ": " << prepared.error().toString();
            QImage img = renderToImage(*plot, **prepared, *values, QSize(1000, 600));
            long long px = countNonBackgroundPixels(img);
            // Title or message at least; with GPU activities the plots that need nothing more than kernels draw data.
            EXPECT_GT(px, 300) << plot->id() << " on " << f;
            bool kernelOnly = plot->id() == "gpu-timeline" || plot->id() == "kernel-breakdown" ||
                              plot->id() == "kernel-durations" || plot->id() == "temporal-breakdown" ||
                              plot->id() == "top-kernels";
            if (gpu && kernelOnly) {
                EXPECT_GT(px, 5000) << plot->id() << " on " << f;
            }
        }
    }
}

TEST(RealTraces, EveryPlotDrawsDataOnTheEightRankSample) {
    const auto& runs = sample();
    ASSERT_TRUE(runs[0].dataset);
    ASSERT_EQ(runs[0].dataset->ranks.size(), 8u);
    // The telemetry and counter plots have nothing to draw on a Kineto trace (no samples, no hardware counters), nor
    // the sweep interaction plot on one run without sweep parameters, nor delta-bars with one configuration, nor the
    // memory plots (recorded without profile_memory: no [memory] events): they must say so instead.
    const std::set<std::string> telemetry = {"power-timeline", "freq-vs-power", "freq-temp-correlation",
                                             "power-cap-distribution", "kernel-counters", "sweep-interaction",
                                             "power-freq-summary", "total-power", "cpu-active-cores",
                                             "cpu-core-heatmap",
                                             "delta-bars",
                                             "counter-cdf", "counter-timeline", "arch-chart",
                                             "memory-timeline", "memory-live-at-peak"};
    for (const auto* plot : PlotRegistry::instance().plots()) {
        auto values = *resolveValues(plot->parameters(runs), {});
        auto prepared = plot->prepare(runs, values, {}, {});
        ASSERT_TRUE(prepared.ok()) << plot->id() << ": " << prepared.error().toString();
        if (telemetry.count(plot->id())) {
            EXPECT_TRUE(plot->emptyMessage(**prepared, values).has_value()) << plot->id();
            continue;
        }
        QImage img = renderToImage(*plot, **prepared, values, QSize(1400, 800));
        EXPECT_GT(countNonBackgroundPixels(img), 20000) << plot->id();
        EXPECT_FALSE(plot->table(**prepared, values).rows.empty()) << plot->id();
    }
}

// The table behind each analysis plot is the analysis' own table, cell for cell (same window).
TEST(RealTraces, AnalysisPlotTablesMatchTheAnalyses) {
    const auto& runs = sample();
    ASSERT_TRUE(runs[0].dataset);
    core::AnalysisContext ctx(runs[0].dataset);
    struct Case {
        const char* plot;
        ParamValues values;
        std::function<core::Result<core::Table>(const core::WindowSpec&)> analysis;
    };
    auto w = [](const char* s) { return *core::WindowSpec::parse(s); };
    std::vector<Case> cases = {
        {"temporal-breakdown", {{"window", std::string("all")}},
         [&](const core::WindowSpec& ws) { return core::temporalBreakdown(ctx, ws); }},
        {"comm-comp-overlap", {{"window", std::string("steps")}},
         [&](const core::WindowSpec& ws) { return core::commCompOverlap(ctx, ws); }},
        {"idle-by-cause", {{"window", std::string("all")}, {"kernel_wait_us", 50.0}},
         [&](const core::WindowSpec& ws) { return core::idleBreakdown(ctx, ws, 50000); }},
        {"straggler", {{"window", std::string("all")}},
         [&](const core::WindowSpec& ws) { return core::stragglerAnalysis(ctx, ws, "summary"); }},
        {"launch-overhead-cdf", {{"window", std::string("all")}},
         [&](const core::WindowSpec& ws) { return core::launchOverhead(ctx, ws, true); }},
        {"top-kernels", {{"window", std::string("all")}, {"across_ranks", false}},
         [&](const core::WindowSpec& ws) {
             core::KernelStatsOptions o;
             o.acrossRanks = false;
             return core::kernelStatistics(ctx, ws, o);
         }},
    };
    for (const auto& c : cases) {
        const Plot* plot = PlotRegistry::instance().find(c.plot);
        ASSERT_NE(plot, nullptr) << c.plot;
        auto values = *resolveValues(plot->parameters(runs), c.values);
        auto prepared = plot->prepare(runs, values, {}, {});
        ASSERT_TRUE(prepared.ok()) << c.plot;
        auto fromPlot = plot->table(**prepared, values);
        auto expected = c.analysis(w(plots::kWindow(values).c_str()));
        ASSERT_TRUE(expected.ok()) << c.plot;
        EXPECT_EQ(fromPlot.columns, expected->columns) << c.plot;
        ASSERT_EQ(fromPlot.rows.size(), expected->rows.size()) << c.plot;
        ASSERT_FALSE(fromPlot.rows.empty()) << c.plot;
        if (std::string(c.plot) == "top-kernels") {
            // Same rows, in the drawn order (total time descending): compare as multisets of CSV lines.
            auto lines = [](const core::Table& t) {
                std::multiset<std::string> s;
                for (size_t r = 0; r < t.rows.size(); ++r) {
                    std::string line;
                    for (const auto& cell : t.rows[r]) line += core::Table::text(cell) + ",";
                    s.insert(line);
                }
                return s;
            };
            EXPECT_EQ(lines(fromPlot), lines(*expected));
        } else {
            EXPECT_EQ(fromPlot.rows, expected->rows) << c.plot;
        }
    }
}
