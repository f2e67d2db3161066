// strobe-cli sweep: the runs of a parameter sweep (`sweep runs`) and their kernel time per step compared across
// configurations (`sweep compare`), per DESIGN.md's discovery precedence (core/sweep) and issue 9.
#include <algorithm>
#include <optional>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "app/cli/cmd_collect.h"
#include "app/cli/command.h"
#include "core/analysis/sweep_compare.h"
#include "core/engine/run_loader.h"
#include "core/io/regex_check.h"
#include "core/sweep/sweep_discovery.h"
#ifdef STROBE_HAVE_PLOTS
#include <QGuiApplication>

#include "plots/report/sweep_report.h"
#include "plots/sweep_axes.h"
#endif

namespace strobe::app {

// strobe-cli sweep collectives (cmd_sweep_collectives.cpp), on the runs loaded here.
int runSweepCollectives(const core::RunSet& runs, const std::vector<std::string>& discovery,
                        int skipSteps, bool json);
// cmd_sweep_overlap.cpp
std::vector<CliOption> sweepGemmOverlapOptions();
int runSweepGemmOverlap(const ArgParser& p, const core::RunSet& runs,
                        const std::vector<std::string>& discoveryMessages);

namespace {

using namespace strobe::core;

constexpr const char* kSweepHelp =
    "Usage: strobe-cli sweep runs PATH... [--pattern P] [--json] [--no-cache]\n"
    "       strobe-cli sweep compare PATH... [--group-by name|category|op|normalized|regex:R]\n"
    "                                [--baseline RUN|KEY=VALUE] [--top K] [--rank-by auto|time|delta|variance]\n"
    "                                [--skip-steps N] [--pattern P] [--json] [--no-cache]\n"
    "       strobe-cli sweep report PATH... -o report.html [--title T] [--baseline RUN|KEY=VALUE] [--top K]\n"
    "                                [--group-by G] [--skip-steps N] [--pattern P] [--no-cache]\n"
    "       strobe-cli sweep rocprof-input PATH... -o input.yaml|input.json [--top K] [--rank-by R] [--counters A,B,...]\n"
    "                                [--ncu]\n"
    "       strobe-cli sweep launch --grid KEY=V1,V2,... [--grid ...] [--repeats N] [--order sequential|interleaved]\n"
    "                               --out DIR [--tool NAME]... [--tool-param NAME.KEY=VALUE]... [--context FILE]\n"
    "                               [--slurm [--slurm-arg ARG]...] [--host [USER@]HOST[:PORT] ...] -- COMMAND\n"
    "       strobe-cli sweep collectives PATH... [--skip-steps N] [--pattern P] [--json] [--no-cache]\n"
    "       strobe-cli sweep gemm-overlap PATH... [--top K] [--group-by G] [--skip-steps N] [--instances] [--json]\n"
    "\n"
    "runs     lists the runs found under PATH (manifest.yaml, sweep.yaml, --pattern, rocprof cmd files, then\n"
    "         directory names such as key=value, key_value, <N>thread/nccl_<M>channels, rep<N>) with their\n"
    "         parameters, repeat index, ranks and kernel count.\n"
    "compare  per configuration (runs equal but for the repeat index): step time (the ProfilerStep#N span), then\n"
    "         GPU busy/idle/kernels/memcpy/memset per step, then per kernel group (CPU operator in runs without GPU\n"
    "         activity) its time per step; medians in ms per step. Against the baseline (--baseline; default: the\n"
    "         first configuration in axis order, numeric axes by value), the change of each median\n"
    "         (Δ ms/step, %) with a 95% bootstrap CI (runs then steps resampled when both configurations have two\n"
    "         or more runs, else steps; fixed seed), Holm-corrected within step time, GPU and groups; no CI and\n"
    "         never significant (n/a, with the reason) for a configuration with fewer than 2 runs and fewer than\n"
    "         5 kept steps; significant only when the corrected CI excludes 0. Groups ranked by |Δ ms/step|.\n"
    "report   one self-contained HTML page (inline SVG, nothing fetched): the noise statement, step time per\n"
    "         configuration with its change and a box plot, GPU busy/idle per step, the configurations, GPU time\n"
    "         per category (+ memcpy, memset), the top groups (default 10, by |Δ ms/step|) against the baseline\n"
    "         (default: the first configuration in axis order) with a box plot each, overlap per configuration, and\n"
    "         a heatmap over the first two axes; every table also as <name>-<table>.csv beside the page.\n"
    "launch   runs COMMAND once per grid point and repeat (as strobe-cli collect does, with the same --tool and\n"
    "         --context options) into DIR/<KEY=V,...>/rep<R>/, each with its manifest, and DIR/sweep.yaml; each\n"
    "         KEY is set in the environment and {KEY} in COMMAND is replaced ({{ is a literal brace; other\n"
    "         braces, such as JSON arguments, stay as written; an unreplaced {NAME} is refused, exit 2, before\n"
    "         anything starts); --order interleaved spreads repeats over time. Each run's output streams to\n"
    "         stdout (--quiet: only to its workload.log).\n"
    "         Run it again on the same DIR to resume: completed runs are skipped, the others moved to\n"
    "         DIR/.incomplete and run again. The plan (COMMAND, tools and their parameters, grid, repeats) is\n"
    "         recorded in DIR/sweep.yaml; another plan is refused (exit 2) saying what differs (an older DIR\n"
    "         without a recorded plan resumes when every manifest's command and tools agree). Exit 0 when every\n"
    "         run completed, 1 when some failed or were incomplete, 2 another plan or usage, 125 refused,\n"
    "         130/143 cancelled. --slurm: each run is a Slurm job of its own (as `collect --slurm` runs it, with\n"
    "         the --slurm-arg's), named strobe-<KEY=V,...>_rep<R>, submitted when the previous one ended; each\n"
    "         run's manifest holds its job id; cancel runs scancel on the current job. --host (with\n"
    "         --remote-strobe-cli, --remote-out, --ssh-arg, --detach as collect takes them): each run goes over ssh\n"
    "         as `collect --host` runs it and is copied back into DIR (--remote-out R: run <KEY=V,...>/rep<R> in\n"
    "         R/<KEY=V,...>/rep<R> there).\n"
    "rocprof-input  a rocprofv3 input file (YAML, or JSON for .json) whose one job traces exactly the top-K\n"
    "         kernel groups (default 10, by time per step; --rank-by variance: those the sweep moves most) by an\n"
    "         anchored regex, with --counters as pmc; --ncu writes Nsight Compute options (--kernel-name\n"
    "         regex:..., --metrics) instead.\n"
    "collectives  per configuration and collective type (all_reduce, all_gather, reduce_scatter, all_to_all,\n"
    "         send_recv, broadcast, reduce): count, message size where the trace has it, latency mean/p50/p99 (the\n"
    "         kernel on the rank that arrived last), algorithm and bus bandwidth (nccl-tests' factors), start skew\n"
    "         across ranks (p50, max) and mean wait.\n"
    "gemm-overlap  per top GEMM group (default 5) and configuration: instances, how many overlap a communication\n"
    "         kernel, median/mean duration of those vs the others and their ratio (slowdown), the share of the\n"
    "         group's time overlapped, and HTA's comm/comp overlap per rank; --instances: one row per GEMM with its\n"
    "         start, duration, overlapped time and the collectives that overlapped it (which, for how long).\n"
    "\n"
    "  --baseline RUN|KEY=VALUE  a run label or path (all configurations vs its configuration), or KEY=VALUE\n"
    "                            (each configuration vs the one differing only in KEY, set to VALUE)\n"
    "  --group-by G              name (default); category (Strobe's classification); op (the CPU operator that\n"
    "                            launched the kernel, for comparing across GPU vendors); normalized (argument\n"
    "                            list, template arguments, hashes and tile shapes removed); regex:R (R's first\n"
    "                            capture group, else its match; \"(other)\" where it does not match)\n"
    "  --top K                   keep the top K groups (0: all) by --rank-by\n"
    "  --rank-by R               compare: delta (largest |Δ ms/step| against the baseline), time (largest time\n"
    "                            per step), variance (largest spread of time per step across configurations),\n"
    "                            auto (delta with a baseline, else time; the report ranks so too, rocprof-input by\n"
    "                            time). --top only trims the rows shown: every comparison is corrected for.\n"
    "  --skip-steps N            drop the first N ProfilerSteps of every run (warm-up)\n"
    "  --pattern P               directory pattern such as {threads}thread/nccl_{channels}channels\n"
    "  --include-incomplete      also compare runs whose manifest says incomplete (the workload completed but a\n"
    "                            tool asked for wrote nothing); without it they are listed (# lines) with their\n"
    "                            reason and left out. Failed, cancelled and interrupted runs are never compared.\n"
    "  --json                    one JSON document on stdout\n"
    "  --no-cache                neither read nor write the load cache\n"
    "\n"
    "Exit codes: 0 ok, 2 usage error, 3 unreadable input or no runs found.";

const core::StringParam kBaseline{"baseline", "Baseline", "Run label/path, or KEY=VALUE", ""};
// The sweep plots' group_by as a flag: the same choices, text and parser (core::parseSweepGroupBy).
const core::StringParam kGroupBy{"group-by", "Group by", plots::kSweepGroupBy.spec().tooltip,
                                 plots::kSweepGroupBy.defaultValue()};
const core::IntParam kTopGroups =
    core::IntParam{"top", "Top groups", "Groups with the most time per step to keep (0: all)", 0}.bounded(0, 1000000, 1);
const core::EnumParam kRankBy =
    core::EnumParam{"rank-by", "Rank groups by", "time, delta, variance or auto", "auto"}.choices(
        {"auto", "time", "delta", "variance"});
const core::IntParam kSkipSteps =
    core::IntParam{"skip-steps", "Skip steps", "First ProfilerSteps of every run to drop", 0}.bounded(0, 1000000, 1);
const core::StringParam kPattern{"pattern", "Pattern", "Directory pattern with {axis} and {repeat}", ""};
const core::BoolParam kIncludeIncomplete{"include-incomplete", "Include incomplete runs",
                                         "Compare runs whose manifest says incomplete (a tool wrote nothing)", false};
const core::PathParam kReportOutput{"output", "Output file", "The HTML report to write", ""};
const core::StringParam kTitle{"title", "Title", "The report's title", "Sweep report"};
const core::StringParam kCounters{"counters", "Counters", "Comma-separated hardware counters to collect", ""};
const core::BoolParam kNcu{"ncu", "Nsight Compute", "Write Nsight Compute options instead of a rocprofv3 input", false};

std::string jsonNumber(double v) { return std::isfinite(v) ? fmt::format("{}", v) : "null"; }
std::string jsonOpt(const std::optional<double>& v) { return v ? jsonNumber(*v) : "null"; }
std::string jsonOptText(const std::optional<std::string>& v) { return v ? jsonQuote(*v) : "null"; }

std::string jsonHead(const SweepComparison& c, int schema = 1) {
    std::string msgs = "[";
    for (size_t i = 0; i < c.messages.size(); ++i) msgs += (i ? ", " : "") + jsonQuote(c.messages[i]);
    return fmt::format("{{\"schema\": {}, \"method\": {}, \"confidence\": {}, \"baseline\": {}, \"messages\": {}]",
                       schema, jsonOptText(c.method), jsonOpt(c.confidence), jsonOptText(c.baseline), msgs);
}

std::string paramsText(const std::map<std::string, std::string>& p) {
    const std::string text = parametersText(p, ",");
    return text.empty() ? "-" : text;
}

// The rows as `sweep compare` prints them: step time, then the GPU rows, then the groups: in the comparison's order
// (groups ranked by their largest |Δ ms/step|, a group's configurations together) for the text table; row by row by
// |delta_ms|, largest first (the baseline's rows last) for --json (README "Comparing runs").
std::vector<const SweepCompareRow*> compareRowsInOrder(const SweepComparison& c, bool byRowDelta) {
    std::vector<const SweepCompareRow*> out;
    for (const auto& r : c.stepRows) out.push_back(&r);
    for (const auto& r : c.gpuRows) out.push_back(&r);
    const size_t first = out.size();
    for (const auto& r : c.rows) out.push_back(&r);
    if (c.baseline && byRowDelta)
        std::stable_sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
                         [](const SweepCompareRow* a, const SweepCompareRow* b) {
                             const double x = a->deltaNs ? std::abs(*a->deltaNs) : -1.0;
                             const double y = b->deltaNs ? std::abs(*b->deltaNs) : -1.0;
                             return x > y;
                         });
    return out;
}

std::optional<double> ms(const std::optional<double>& ns) {
    return ns ? std::optional<double>(*ns / 1e6) : std::nullopt;
}

// One row of `sweep compare --json` (README "Comparing runs"): null change/interval fields with a reason.
std::string compareRowJson(const SweepCompareRow& r) {
    const bool interval = r.ciLowNs.has_value();
    const std::string configuration = parametersText(r.parameters, ",");
    return fmt::format(
        "{{\"kind\": {}, \"group\": {}, \"configuration\": {}, \"n_runs\": {}, \"n_steps\": {}, \"median_ms\": {}, "
        "\"delta_ms\": {}, \"ci_low_ms\": {}, \"ci_high_ms\": {}, \"delta_pct\": {}, \"ci_low_pct\": {}, "
        "\"ci_high_pct\": {}, \"significant\": {}, \"resampled\": {}, \"reason\": {}{}}}",
        jsonQuote(std::string(toString(r.kind))), jsonQuote(r.group),
        jsonQuote(configuration.empty() ? r.config : configuration), r.runs, r.steps, jsonNumber(r.medianNs / 1e6),
        jsonOpt(interval ? ms(r.deltaNs) : std::nullopt), jsonOpt(ms(r.ciLowNs)), jsonOpt(ms(r.ciHighNs)),
        jsonOpt(interval ? r.deltaPct : std::nullopt), jsonOpt(interval ? r.ciLowPct : std::nullopt),
        jsonOpt(interval ? r.ciHighPct : std::nullopt), interval ? (r.significant ? "true" : "false") : "null",
        interval ? jsonQuote(r.resampled) : "null", r.reason.empty() ? "null" : jsonQuote(r.reason),
        // --rank-by variance's key, on group rows: the spread of time per step across configurations.
        r.kind == SweepRowKind::Group ? ", \"spread_ms\": " + jsonNumber(r.spreadNs / 1e6) : std::string());
}

// The text table: step time first, then GPU per step, then the groups, every time in ms per step; the change
// (Δ ms/step) and its interval where there is one ("n/a" where the sample allows none; the reasons below).
void printCompareText(const SweepComparison& c, const std::vector<const SweepCompareRow*>& rows) {
    if (c.method) fmt::print("# {}\n", *c.method);
    for (const auto& m : c.messages) fmt::print("# {}\n", m);
    std::vector<std::vector<std::string>> table{{"kind", "configuration", "runs", "steps", "median_ms", "Δ_ms/step",
                                                 "ci_ms", "Δ%", "ci%", "sig", "group"}};
    std::vector<std::string> reasons;
    for (const SweepCompareRow* r : rows) {
        const bool interval = r->ciLowNs.has_value();
        std::string ci = interval ? fmt::format("[{:+.3f}, {:+.3f}]", *r->ciLowNs / 1e6, *r->ciHighNs / 1e6)
                         : r->reason.starts_with("n/a") ? "n/a"
                                                        : "-";
        if (r->reason.starts_with("n/a") && std::find(reasons.begin(), reasons.end(), r->reason) == reasons.end())
            reasons.push_back(r->reason);
        table.push_back({std::string(toString(r->kind)), paramsText(r->parameters), std::to_string(r->runs),
                         std::to_string(r->steps), fmt::format("{:.3f}", r->medianNs / 1e6),
                         r->deltaNs ? fmt::format("{:+.3f}", *r->deltaNs / 1e6) : (r->reason == "baseline" ? "baseline" : "-"),
                         ci, r->deltaPct ? fmt::format("{:+.2f}", *r->deltaPct) : "-",
                         interval && r->ciLowPct ? fmt::format("[{:+.2f}, {:+.2f}]", *r->ciLowPct, *r->ciHighPct) : "-",
                         r->significant ? "*" : "", r->group});
    }
    for (const auto& reason : reasons) fmt::print("# {}\n", reason);
    printAlignedTable(table);
}


// Per configuration with memory events, the peak allocated GPU memory per kept step (median and largest).
void printMemoryText(const SweepComparison& c) {
    if (c.memoryRows.empty()) return;
    fmt::print("\n# peak allocated GPU memory per step (memory events: profile_memory=True or rocprofv3 allocations)\n");
    std::vector<std::vector<std::string>> table{{"configuration", "runs", "steps", "median_peak_MiB", "max_peak_MiB"}};
    for (const SweepMemoryRow& m : c.memoryRows)
        table.push_back({paramsText(m.parameters), std::to_string(m.runs), std::to_string(m.steps),
                         fmt::format("{:.2f}", m.medianBytes / 1048576.0), fmt::format("{:.2f}", m.maxBytes / 1048576.0)});
    printAlignedTable(table);
}

struct Loaded {
    int code = kExitOk;
    sweep::SweepDiscovery found;
    RunSet runs;  // found.runs, loaded
};

Loaded discoverAndLoad(const std::string& command, const ArgParser& p) {
    Loaded out;
    for (const auto& path : p.positionals()) {
        std::error_code ec;
        if (!std::filesystem::exists(path, ec)) {
            fmt::print(stderr, "strobe-cli sweep {}: {}: no such file or directory\n", command, path);
            out.code = kExitBadInput;
            return out;
        }
    }
    out.found = sweep::discoverSweep(p.positionals(), p.get(kPattern), {}, p.get(kIncludeIncomplete));
    if (out.found.runs.empty()) {
        fmt::print(stderr, "strobe-cli sweep {}: no runs found\n", command);
        out.code = kExitBadInput;
        return out;
    }
    RunLoadOptions options;
    options.useCache = !p.get(kNoCacheFlag);
    // Each run is the one load job (core/engine/load_job.h): they load side by side within the memory limit (a run
    // starts when its estimated peak fits beside those loading, or alone). Results keep discovery's order; the first
    // failure in that order wins.
    const size_t n = out.found.runs.size();
    std::vector<std::vector<std::string>> paths;
    for (const RunEntry& run : out.found.runs) paths.push_back(run.paths);
    size_t done = 0;
    auto results = loadRunsAsJobs(paths, options, [&](size_t i) {
        spdlog::info("sweep {}: loaded {} of {} runs ({})", command, ++done, n, out.found.runs[i].label);
    });
    for (size_t i = 0; i < n; ++i) {
        auto& loaded = results[i];
        if (!loaded) {
            fmt::print(stderr, "strobe-cli sweep {}: {}\n", command, loaded.error().toString());
            out.code = kExitBadInput;
            out.runs.clear();
            return out;
        }
        if (reportLoadDiagnostics("sweep " + command, **loaded)) out.code = kExitBadInput;
        RunEntry run = out.found.runs[i];
        run.dataset = *loaded;
        out.runs.push_back(std::move(run));
    }
    return out;
}

int runRuns(const ArgParser& p) {
    Loaded l = discoverAndLoad("runs", p);
    if (l.runs.empty()) return l.code;
    SweepComparison head;
    head.messages = l.found.messages;
    std::vector<std::vector<std::string>> table{{"run", "repeat", "ranks", "kernels", "parameters", "path"}};
    std::string rows;
    for (size_t i = 0; i < l.runs.size(); ++i) {
        const RunEntry& r = l.runs[i];
        const int repeat = r.repeat;
        size_t kernels = 0;
        for (const auto& rank : r.dataset->ranks)
            kernels += static_cast<size_t>(std::count(rank->gpu.kind.begin(), rank->gpu.kind.end(), EventKind::Kernel));
        const std::map<std::string, std::string> params = parameterTexts(r.parameters);
        rows += fmt::format("{}{{\"run\": {}, \"path\": {}, \"parameters\": {}, \"repeat\": {}, \"ranks\": {}, "
                            "\"kernels\": {}}}",
                            rows.empty() ? "\n  " : ",\n  ", jsonQuote(r.label), jsonQuote(r.path()),
                            jsonStringMap(params), repeat, r.dataset->ranks.size(), kernels);
        table.push_back({r.label, std::to_string(repeat), std::to_string(r.dataset->ranks.size()),
                         std::to_string(kernels), paramsText(params), r.path()});
    }
    if (p.get(kJsonFlag)) {
        fmt::print("{}, \"rows\": [{}]}}\n", jsonHead(head), rows.empty() ? "" : rows + "\n");
    } else {
        for (const auto& m : head.messages) fmt::print("# {}\n", m);
        printAlignedTable(table);
    }
    return l.code;
}

int runCompare(const ArgParser& p) {
    Loaded l = discoverAndLoad("compare", p);
    if (l.runs.empty()) return l.code;
    SweepCompareOptions o;
    std::string error;
    if (!parseSweepGroupBy(p.get(kGroupBy), o.groupBy, o.groupRegex, error))
        return usageError("sweep", "--group-by " + error);
    o.baseline = p.get(kBaseline);
    // Without --baseline: the documented default, the first configuration in axis order (README "Comparing runs").
    if (o.baseline.empty()) o.baseline = defaultSweepBaseline(l.runs);
    o.top = static_cast<int>(p.get(kTopGroups));
    parseSweepRankBy(p.get(kRankBy), o.rankBy);
    o.skipSteps = static_cast<int>(p.get(kSkipSteps));
    SweepComparison c = compareSweep(l.runs, o);
    if (!o.baseline.empty() && !c.baseline) {
        fmt::print(stderr, "strobe-cli sweep compare: {}\n", c.messages.empty() ? "bad --baseline" : c.messages.back());
        return kExitUsage;
    }
    const std::vector<const SweepCompareRow*> rows = compareRowsInOrder(c, p.get(kJsonFlag));
    if (p.get(kJsonFlag)) {
        std::string text;
        for (const SweepCompareRow* r : rows) text += (text.empty() ? "\n  " : ",\n  ") + compareRowJson(*r);
        std::string memory;
        for (const SweepMemoryRow& m : c.memoryRows) {
            const std::string configuration = parametersText(m.parameters, ",");
            memory += fmt::format("{}{{\"configuration\": {}, \"n_runs\": {}, \"n_steps\": {}, "
                                  "\"median_step_peak_bytes\": {}, \"max_step_peak_bytes\": {}}}",
                                  memory.empty() ? "\n  " : ",\n  ",
                                  jsonQuote(configuration.empty() ? m.config : configuration), m.runs, m.steps,
                                  jsonNumber(m.medianBytes), jsonNumber(m.maxBytes));
        }
        fmt::print("{}, \"gpu_activity\": {}, \"rows\": [{}], \"memory\": [{}]}}\n", jsonHead(c, 2),
                   c.gpuActivity ? "true" : "false", text.empty() ? "" : text + "\n",
                   memory.empty() ? "" : memory + "\n");
        return l.code;
    }
    printCompareText(c, rows);
    printMemoryText(c);
    return l.code;
}

int runReport(const ArgParser& p) {
#ifdef STROBE_HAVE_PLOTS
    const std::filesystem::path out = p.get(kReportOutput);
    if (out.empty()) return usageError("sweep", "report needs -o FILE.html");
    // The charts are the GUI's plots rendered by QSvgGenerator (plots/render.h): fonts need a QGuiApplication, off
    // screen as strobe-cli plot makes it.
    std::unique_ptr<QGuiApplication> app = plots::makeHeadlessGuiApplication();
    Loaded l = discoverAndLoad("report", p);
    if (l.runs.empty()) return l.code;
    plots::SweepReportOptions o;
    o.title = p.get(kTitle);
    o.baseline = p.get(kBaseline);
    o.top = p.get(kTopGroups) > 0 ? static_cast<int>(p.get(kTopGroups)) : 10;
    o.skipSteps = static_cast<int>(p.get(kSkipSteps));
    std::string error;
    if (!parseSweepGroupBy(p.get(kGroupBy), o.groupBy, o.groupRegex, error))
        return usageError("sweep", "--group-by " + error);
    o.csvPrefix = out.stem().string();
    const plots::SweepReport report = plots::buildSweepReport(l.runs, o);
    auto write = [](const std::filesystem::path& path, const std::string& text) {
        std::ofstream f(path, std::ios::binary);
        if (f) f << text;
        if (!f) fmt::print(stderr, "strobe-cli sweep report: cannot write {}\n", path.string());
        return static_cast<bool>(f);
    };
    if (!write(out, report.html)) return kExitFailure;
    for (const auto& [name, text] : report.csv)
        if (!write(out.parent_path() / name, text)) return kExitFailure;
    for (const auto& m : report.messages) fmt::print(stderr, "# {}\n", m);
    fmt::print("wrote {} and {} CSV files beside it\n", out.string(), report.csv.size());
    return l.code;
#else
    (void)p;
    fmt::print(stderr, "strobe-cli sweep report: this strobe-cli was built without plots\n");
    return kExitUsage;
#endif
}

// The part of a kernel's name a profiler filters on: no leading "void " (CUDA return type) and no argument list
// (rocprofv3 and Nsight Compute's function base name drop it; the template arguments stay).
std::string filterName(const std::string& name) {
    std::string n = name.rfind("void ", 0) == 0 ? name.substr(5) : name;
    int depth = 0;
    for (size_t i = 0; i < n.size(); ++i) {
        depth += n[i] == '<' ? 1 : n[i] == '>' ? -1 : 0;
        if (n[i] == '(' && depth <= 0 && i > 0) return n.substr(0, i);
    }
    return n;
}

// One anchored regex for all `names`: the name from its start, then its argument list or the end.
std::string kernelRegex(const std::vector<std::string>& names) {
    std::string alternatives;
    for (const auto& n : names) alternatives += (alternatives.empty() ? "" : "|") + escapeRegex(filterName(n));
    return "^(?:void )?(?:" + alternatives + ")(?:\\(|$)";
}

int runRocprofInput(const ArgParser& p) {
    const std::filesystem::path out = p.get(kReportOutput);
    if (out.empty()) return usageError("sweep", "rocprof-input needs -o FILE (.yaml, .json, or any name with --ncu)");
    Loaded l = discoverAndLoad("rocprof-input", p);
    if (l.runs.empty()) return l.code;
    SweepCompareOptions o;
    // --rank-by: auto is time (the groups that cost most); variance picks the groups the sweep moves most; delta
    // the largest change against --baseline (default: the first configuration in axis order).
    parseSweepRankBy(p.get(kRankBy), o.rankBy);
    if (o.rankBy == SweepRankBy::Auto) o.rankBy = SweepRankBy::Time;
    if (o.rankBy == SweepRankBy::Delta) o.baseline = p.get(kBaseline).empty() ? defaultSweepBaseline(l.runs) : p.get(kBaseline);
    o.top = p.get(kTopGroups) > 0 ? static_cast<int>(p.get(kTopGroups)) : 10;
    o.skipSteps = static_cast<int>(p.get(kSkipSteps));
    std::vector<std::string> names;
    for (const auto& r : compareSweep(l.runs, o).rows)
        if (std::find(names.begin(), names.end(), r.group) == names.end()) names.push_back(r.group);
    std::vector<std::string> counters;
    const std::string counterText = p.get(kCounters);
    for (std::string_view rest = counterText; !rest.empty();) {
        const size_t comma = rest.find(',');
        if (std::string c(rest.substr(0, comma)); !c.empty()) counters.push_back(c);
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    const std::string regex = kernelRegex(names);
    std::string text = fmt::format("# strobe-cli sweep rocprof-input: the top {} kernel groups by {}\n", names.size(),
                                   o.rankBy == SweepRankBy::Variance ? "their spread across configurations"
                                   : o.rankBy == SweepRankBy::Delta  ? "|change| against the baseline"
                                                                     : "time per step");
    for (const auto& n : names) text += "#   " + n + "\n";
    std::string list;
    for (const auto& c : counters) list += (list.empty() ? "" : ", ") + jsonQuote(c);
    if (p.get(kNcu)) {
        text += "--kernel-name-base demangled --kernel-name " + jsonQuote("regex:" + regex);
        if (!counters.empty()) text += " --metrics " + counterText;
        text += "\n";
    } else if (out.extension() == ".json") {
        text = fmt::format("{{\"jobs\": [{{\"kernel_include_regex\": {}, \"kernel_trace\": true{}}}]}}\n",
                           jsonQuote(regex), counters.empty() ? "" : ", \"pmc\": [" + list + "]");
    } else {
        // YAML: JSON strings are valid YAML double-quoted scalars.
        text += "jobs:\n  - kernel_include_regex: " + jsonQuote(regex) + "\n    kernel_trace: true\n";
        if (!counters.empty()) text += "    pmc: [" + list + "]\n";
    }
    std::ofstream f(out, std::ios::binary);
    if (f) f << text;
    if (!f) {
        fmt::print(stderr, "strobe-cli sweep rocprof-input: cannot write {}\n", out.string());
        return kExitFailure;
    }
    fmt::print("wrote {}: {} kernel groups\n", out.string(), names.size());
    return l.code;
}

int runSweep(const std::vector<std::string>& args) {
    if (args.empty())
        return usageError("sweep", "say 'runs', 'compare', 'report', 'rocprof-input', 'collectives', 'gemm-overlap' or 'launch'");
    const std::string sub = args.front();
    if (sub == "launch") return runSweepLaunch({args.begin() + 1, args.end()});
    if (sub != "runs" && sub != "compare" && sub != "report" && sub != "rocprof-input" && sub != "collectives" &&
        sub != "gemm-overlap")
        return usageError("sweep", fmt::format("unknown sub-command '{}'", sub));
    std::vector<CliOption> options{kNoCacheFlag, kPattern, kIncludeIncomplete};
    if (sub == "gemm-overlap") {
        for (const CliOption& o : sweepGemmOverlapOptions()) options.push_back(o);
        ArgParser p("sweep", options);
        if (!p.parse({args.begin() + 1, args.end()})) return usageError("sweep", p.error());
        logToStderr();
        if (p.positionals().empty()) return usageError("sweep", "no sweep directory given");
        Loaded l = discoverAndLoad(sub, p);
        if (l.runs.empty()) return l.code;
        const int rc = runSweepGemmOverlap(p, l.runs, l.found.messages);
        return rc != kExitOk ? rc : l.code;
    }
    if (sub == "runs" || sub == "compare" || sub == "collectives") options.push_back(kJsonFlag);
    if (sub == "compare" || sub == "rocprof-input") options.push_back(kRankBy);
    if (sub == "collectives") options.push_back(kSkipSteps);
    if (sub != "runs" && sub != "collectives") {
        for (CliOption o : {CliOption(kBaseline), CliOption(kGroupBy), CliOption(kTopGroups), CliOption(kSkipSteps)})
            options.push_back(o);
    }
    if (sub == "report" || sub == "rocprof-input") options.push_back({kReportOutput, 'o'});
    if (sub == "report") options.push_back(kTitle);
    if (sub == "rocprof-input") {
        options.push_back(kCounters);
        options.push_back(kNcu);
    }
    ArgParser p("sweep", options);
    if (!p.parse({args.begin() + 1, args.end()})) return usageError("sweep", p.error());
    logToStderr();
    if (p.positionals().empty()) return usageError("sweep", "no sweep directory given");
    if (sub == "rocprof-input") return runRocprofInput(p);
    if (sub == "collectives") {
        Loaded l = discoverAndLoad("collectives", p);
        if (l.runs.empty()) return l.code;
        const int rc = runSweepCollectives(l.runs, l.found.messages, static_cast<int>(p.get(kSkipSteps)), p.get(kJsonFlag));
        return rc != kExitOk ? rc : l.code;
    }
    return sub == "runs" ? runRuns(p) : sub == "compare" ? runCompare(p) : runReport(p);
}

const CommandRegistrar kSweepRegistrar(
    {"sweep", "list a sweep's runs, compare kernel time per step across its configurations, report", kSweepHelp,
     runSweep});

}  // namespace

}  // namespace strobe::app
