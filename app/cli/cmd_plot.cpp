// strobe-cli plot ID PATH... [--set key=value]... -o out.png|svg|pdf [--csv table.csv] [--size WxH] [--dark]
//                [--compare] [--no-cache]
// Renders a plot headless with the same code as the GUI.
#ifdef STROBE_HAVE_PLOTS
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>

#include <QGuiApplication>

#include <fmt/format.h>

#include "app/cli/command.h"
#include "core/engine/run_loader.h"
#include "core/model/clock_rules.h"
#include "core/sweep/sweep_discovery.h"
#include "plots/plot_registry.h"
#include "plots/render.h"

namespace strobe::app {
namespace {

const char* kPlotHelp =
    "Usage: strobe-cli plot ID PATH... [--set key=value]... -o OUT.png|svg|pdf [--csv TABLE.csv]\n"
    "                       [--size WxH] [--dark] [--label NAME] [--compare | --sweep] [--no-cache]\n\n"
    "Loads PATH... (trace files or a run directory) as one run and renders plot ID (see 'strobe-cli plots').\n"
    "With --compare each PATH is a run of its own (e.g. one directory per sweep point), labelled by its\n"
    "name, and the plot compares them (kernel-durations: --set split_by=run). With --sweep the runs are those\n"
    "'strobe-cli sweep runs PATH...' finds, each with its sweep parameters (step-time-box, sweep-interaction).\n"
    "Without --set the defaults give a meaningful picture. --csv also writes the table behind the plot\n"
    "('-' for stdout).\n"
    "--size defaults to 1400x800. Exit codes: 0 ok, 1 render/write failure, 2 usage error, 3 unreadable input.";

bool parseSize(const std::string& s, int& w, int& h) {
    auto x = s.find_first_of("xX");
    if (x == std::string::npos) return false;
    try {
        size_t a = 0, b = 0;
        w = std::stoi(s.substr(0, x), &a);
        h = std::stoi(s.substr(x + 1), &b);
        return a == x && b == s.size() - x - 1 && w >= 16 && h >= 16 && w <= 20000 && h <= 20000;
    } catch (...) {
        return false;
    }
}

// The options, declared once: ArgParser parses and coerces them, the code reads them through these handles.
// --set items are checked against the plot's own ParamSpecs (core::applyAssignment), the same rule.
const core::StringListParam kSet{"set", "Set parameter", "key=value for one of the plot's parameters", {}};
const core::PathParam kOutput{"output", "Output file", "The image to write (.png, .svg or .pdf)", ""};
const core::PathParam kPlotCsv{"csv", "CSV file", "Also write the table behind the plot ('-' for stdout)", ""};
const core::StringParam kLabel{"label", "Run label", "The run's name in the plot (default: the first PATH)", ""};
const core::StringParam kSize{"size", "Size", "Image size WxH in pixels (16..20000)", "1400x800"};
const core::BoolParam kDark{"dark", "Dark", "Dark theme", false};
const core::BoolParam kCompare{"compare", "Compare", "Each PATH is a run of its own", false};
const core::BoolParam kSweep{"sweep", "Sweep", "The runs a sweep discovery finds under PATH, with their parameters",
                             false};

int runPlot(const std::vector<std::string>& args) {
    ArgParser p("plot",
                {{kSet, '\0', true},
                 {kOutput, 'o'},
                 kPlotCsv,
                 kLabel,
                 kSize,
                 kDark,
                 kCompare,
                 kSweep,
                 kNoCacheFlag,
                 kClockOffset});
    if (!p.parse(args)) return usageError("plot", p.error());
    std::string id;
    std::vector<std::string> paths;
    for (const auto& a : p.positionals()) {
        if (id.empty())
            id = a;
        else
            paths.push_back(a);
    }
    const std::vector<std::string> sets = p.get(kSet);
    const std::string out = p.get(kOutput), csv = p.get(kPlotCsv), label = p.get(kLabel);
    const bool dark = p.get(kDark), compare = p.get(kCompare), noCache = p.get(kNoCacheFlag);
    int w = 0, h = 0;
    if (const std::string size = p.get(kSize); !parseSize(size, w, h))
        return usageError("plot", fmt::format("--size expects WxH (16..20000), e.g. 1600x900, got '{}'", size));
    if (id.empty() || paths.empty() || out.empty()) {
        fmt::print(stderr, "{}\n", kPlotHelp);
        return kExitUsage;
    }
    const plots::Plot* plot = plots::PlotRegistry::instance().find(id);
    if (!plot) {
        fmt::print(stderr, "strobe-cli plot: unknown plot '{}'; available:", id);
        for (const auto* p : plots::PlotRegistry::instance().plots()) fmt::print(stderr, " {}", p->id());
        fmt::print(stderr, "\n");
        return kExitUsage;
    }
    auto format = plots::imageFormatFromPath(out);
    if (!format) {
        fmt::print(stderr, "strobe-cli plot: '{}': expected a .png, .svg or .pdf output file\n", out);
        return kExitUsage;
    }
    // Validate --set against the data-independent specs before the (possibly long) load: unknown keys, bounds and
    // fixed Enum choices are refused here; an Enum whose choices are the data's is checked once loaded.
    core::ParamValues values;
    {
        auto specs = core::specsBeforeData(plot->parameters({}));
        for (const auto& s : sets)
            if (auto st = core::applyAssignment(specs, s, values); !st) {
                fmt::print(stderr, "strobe-cli plot: {}\n", st.error().toString());
                return kExitUsage;
            }
    }

    std::unique_ptr<QGuiApplication> app = plots::makeHeadlessGuiApplication();

    logToStderr();
    core::RunLoadOptions options;
    options.useCache = !noCache;
    options.sources.hasClockOffset = p.has(kClockOffset);
    options.sources.clockOffsetNs = p.get(kClockOffset);
    plots::RunSet runs;
    bool loadFailed = false;
    // One run of every PATH (--compare), the runs of a sweep (--sweep), or one run of all of them.
    plots::RunSet pending;
    if (p.get(kSweep)) {
        const auto found = core::sweep::discoverSweep(paths);
        for (const auto& m : found.messages) fmt::print(stderr, "# {}\n", m);
        for (core::RunEntry run : found.runs) {
            const std::string key = run.configurationKey.value_or("");
            if (!key.empty()) run.label = key + " #" + std::to_string(run.repeat);
            pending.push_back(std::move(run));
        }
    } else if (compare) {
        for (const auto& path : paths) {
            // The directory or file name, as a sweep point is usually named.
            std::string trimmed = path;
            while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
            if (auto slash = trimmed.find_last_of('/'); slash != std::string::npos) trimmed = trimmed.substr(slash + 1);
            pending.push_back(plots::RunEntry{trimmed, nullptr, {}, {path}});
        }
    } else {
        pending.push_back(plots::RunEntry{label.empty() ? paths.front() : label, nullptr, {}, paths});
    }
    for (core::RunEntry& run : pending) {
        auto loaded = loadRunAsJob(run.paths, options);
        if (!loaded) {
            fmt::print(stderr, "strobe-cli plot: {}\n", loaded.error().toString());
            return kExitBadInput;
        }
        loadFailed = reportLoadDiagnostics("plot", *loaded.value()) || loadFailed;
        // One plot draws a run's sources on one time axis: refused when their clocks cannot be related.
        if (core::Status clocks = core::checkClockOverlay(*loaded.value()); !clocks) {
            fmt::print(stderr, "strobe-cli plot: {}\n", clocks.error().message);
            return kExitBadInput;
        }
        run.dataset = loaded.value();
        runs.push_back(std::move(run));
    }
    auto resolved = core::resolveValues(plot->parameters(runs), values);
    if (!resolved) {
        fmt::print(stderr, "strobe-cli plot: {}\n", resolved.error().toString());
        return kExitUsage;
    }
    auto prepared = plot->prepare(runs, *resolved, {}, {});
    if (!prepared) {
        fmt::print(stderr, "strobe-cli plot: {}: {}\n", id, prepared.error().toString());
        return kExitBadInput;
    }
    if (auto st = plots::renderToFile(*plot, **prepared, *resolved, QSize(w, h), out, format, dark); !st) {
        fmt::print(stderr, "strobe-cli plot: {}\n", st.error().toString());
        return kExitFailure;
    }
    if (csv == "-") {
        plot->table(**prepared, *resolved).writeCsv(std::cout);
        std::cout.flush();
    } else if (!csv.empty())
        if (auto st = plots::writeTableCsv(*plot, **prepared, *resolved, csv); !st) {
            fmt::print(stderr, "strobe-cli plot: {}\n", st.error().toString());
            return kExitFailure;
        }
    for (const auto& m : plot->table(**prepared, *resolved).messages) fmt::print(stderr, "note: {}\n", m);
    return loadFailed ? kExitBadInput : kExitOk;
}

const CommandRegistrar reg{
    CliCommand{"plot", "Render a plot to PNG, SVG or PDF (and its table to CSV)", kPlotHelp, runPlot}};

}  // namespace
}  // namespace strobe::app
#endif
