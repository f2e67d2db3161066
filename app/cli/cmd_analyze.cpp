// strobe-cli analyze: runs one of Strobe's analyses on a loaded run and prints its table (text, CSV or JSON).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/cli/cmd_convert.h"
#include "app/cli/command.h"
#include "core/analysis/context.h"
#include "core/analysis/registry.h"
#include "core/engine/converted_run.h"
#include "core/engine/load_cache.h"
#include "core/engine/memory_budget.h"
#include "core/engine/rank_summary.h"
#include "core/engine/run_loader.h"

namespace strobe::app {

namespace {

constexpr const char* kHelp =
    "Usage: strobe-cli analyze --list\n"
    "       strobe-cli analyze NAME PATH... [--window W] [--steps 3,4] [--OPTION VALUE ...]\n"
    "                          [--csv FILE | --json] [--no-cache] [--cache-dir DIR]\n"
    "\n"
    "Runs one analysis on a run (trace files or directories, one Kineto trace per rank) and prints its table.\n"
    "\n"
    "Options:\n"
    "  --list          list the analyses, their options and columns\n"
    "  --window W      all | steps | hta | hta-include-last | auto | FROM_NS:TO_NS (default all)\n"
    "  --steps LIST    only these ProfilerStep numbers (3,4,5 or 3-5); overrides --window\n"
    "  --csv FILE      write the rows as CSV to FILE ('-' for stdout)\n"
    "  --json          print one JSON document {\"analysis\", \"window\", \"columns\", \"rows\", \"messages\"}\n"
    "  --no-cache      neither read nor write the on-disk load cache (nor read `convert`'s summaries)\n"
    "  --cache-dir DIR the cache directory (default: $XDG_CACHE_HOME/strobe)\n"
    "  -h, --help      show this help\n"
    "\n"
    "Each analysis has its own options (see --list). Times are integer nanoseconds, percentages 0-100.\n"
    "On a run converted by `strobe-cli convert`, rank-steps (window all or a step list) answers from the ranks'\n"
    "summaries without loading events (a note says \"from summaries: N ranks\"); a rank whose summary is not current\n"
    "is loaded and its summary made again, as `strobe-cli summary` does. Every other analysis loads the run.\n"
    "Exit codes: 0 ok, 2 usage error, 3 unreadable input.";

std::string listText() {
    std::string s;
    for (const auto& a : core::analysisRegistry()) {
        s += fmt::format("{}\n    {}\n", a.name, a.description);
        for (const auto& o : a.options) {
            std::string choices = o.choices.empty() ? std::string() : fmt::format(" ({})", fmt::join(o.choices, "|"));
            const std::string def = core::valueToString(o, o.defaultValue);
            s += fmt::format("    --{} {}{} [default: {}]  {}\n", o.key, core::toString(o.type), choices,
                             def.empty() ? "none" : def, o.tooltip);
        }
        s += fmt::format("    columns: {}\n", fmt::join(a.columns, ", "));
    }
    s += "\nEvery analysis takes --window all|steps|hta|hta-include-last|auto|FROM_NS:TO_NS and --steps LIST.\n";
    return s;
}

std::string textTable(const core::Table& t) {
    std::vector<size_t> width(t.columns.size());
    std::vector<std::vector<std::string>> cells;
    for (size_t c = 0; c < t.columns.size(); ++c) width[c] = t.columns[c].size();
    for (const auto& row : t.rows) {
        std::vector<std::string> r;
        for (size_t c = 0; c < t.columns.size(); ++c) {
            std::string v = c < row.size() ? core::Table::text(row[c]) : std::string();
            if (const auto* d = std::get_if<double>(&row[c])) v = fmt::format("{:.4f}", *d);
            if (v.size() > 80) v = v.substr(0, 77) + "...";
            if (std::holds_alternative<std::monostate>(row[c])) v = "-";
            width[c] = std::max(width[c], v.size());
            r.push_back(std::move(v));
        }
        cells.push_back(std::move(r));
    }
    std::string s;
    for (size_t c = 0; c < t.columns.size(); ++c) s += fmt::format("{:<{}}  ", t.columns[c], width[c]);
    s += '\n';
    for (const auto& r : cells) {
        for (size_t c = 0; c < r.size(); ++c) s += fmt::format("{:<{}}  ", r[c], width[c]);
        s += '\n';
    }
    return s;
}

// The command's own options, declared once (the window's text is checked by WindowSpec::parse).
const core::StringParam kWindow{"window", "Window",
                                "all | steps | hta | hta-include-last | auto | FROM_NS:TO_NS", "all"};
const core::StringParam kSteps{"steps", "Steps",
                               "Only these ProfilerStep numbers (3,4,5 or 3-5); overrides --window", ""};
const core::PathParam kCsv{"csv", "CSV file", "Write the table as CSV to this file ('-' for stdout)", ""};
const core::StringParam kCacheDir{"cache-dir", "Cache directory",
                                  "Where the load cache and the summaries of `convert` are", ""};

// rank-steps on a converted run: the table from the ranks' summaries (core::rankStepsFromSummaries), the sources
// without a current summary loaded and their summaries made again first (as `strobe-cli summary` does). nullopt
// when the run was not converted, a summary could still not be had, or a rank's number is its file's place in the
// run (the caller loads the run).
std::optional<core::Table> rankStepsOfConvertedRun(const std::vector<std::string>& paths,
                                                   const core::RunLoadOptions& options, const core::WindowSpec& window) {
    auto plan = planFromSummaries(paths, options.cacheDir, "analyze");
    if (!plan) return std::nullopt;
    core::RunLoadOptions partial = options;
    partial.cacheDir = plan->dir;
    partial.wholeRun = false;
    auto run = core::completeRunSummaries(
        std::move(*plan), [&](const std::vector<std::string>& sources) { return loadRunAsJob(sources, partial); },
        core::MemoryBudget(options.memoryLimitBytes).limit());
    if (!run) return std::nullopt;
    core::Table t = core::rankStepsFromSummaries(run->ranks, window);
    std::string note = fmt::format("rank-steps: from summaries: {} ranks (strobe-cli convert): events not loaded",
                                   run->ranks.size());
    if (run->remade > 0)
        note = fmt::format("rank-steps: from summaries: {} ranks ({} loaded and their summaries made again)",
                           run->ranks.size(), run->remade);
    t.messages.insert(t.messages.begin(), std::move(note));
    return t;
}

int runAnalyze(const std::vector<std::string>& args) {
    if (args.empty()) return usageError("analyze", "expected an analysis name or --list");
    if (args[0] == "--list") {
        if (args.size() > 1) return usageError("analyze", "--list takes no other argument");
        fmt::print("{}", listText());
        return kExitOk;
    }
    const std::string name = args[0];
    const core::AnalysisInfo* info = core::findAnalysis(name);
    if (!info)
        return usageError("analyze", fmt::format("unknown analysis '{}' (strobe-cli analyze --list shows them)", name));
    // The command's own options, then the analysis' parameters: the same ParamSpec, coerced by the same rule.
    std::vector<CliOption> specs = {kWindow, kSteps, kCsv, kJsonFlag, kNoCacheFlag, kCacheDir};
    for (const auto& o : info->options)  // a list option (what-if's --scale) is given once per item
        specs.emplace_back(o, '\0', o.type == core::ParamType::StringList);
    ArgParser p("analyze", specs);
    std::vector<std::string> rest(args.begin() + 1, args.end());
    if (!p.parse(rest)) return usageError("analyze", p.error());
    if (p.positionals().empty()) return usageError("analyze", "expected at least one trace file or directory");
    if (p.has(kCsv) && p.has(kJsonFlag)) return usageError("analyze", "--csv and --json exclude each other");

    core::AnalysisRequest req;
    auto window = core::WindowSpec::parse(p.get(kWindow), p.get(kSteps));
    if (!window) return usageError("analyze", window.error().message);
    req.window = window.value();
    for (const auto& o : info->options)  // already coerced by parse()
        if (auto it = p.given().find(o.key); it != p.given().end()) req.values[o.key] = it->second;

    core::RunLoadOptions options;
    options.useCache = !p.get(kNoCacheFlag);
    options.cacheDir = p.get(kCacheDir);
    // rank-steps on a converted run reads the summaries (the cache in use; the window all or a step list, the
    // windows it answers for).
    std::optional<core::Table> fromSummaries;
    if (name == "rank-steps" && options.useCache &&
        (req.window.kind == core::WindowKind::All || req.window.kind == core::WindowKind::StepList))
        fromSummaries = rankStepsOfConvertedRun(p.positionals(), options, req.window);
    bool loadFailed = false;
    core::Result<core::Table> table = core::Table{};
    std::string windowText = req.window.toString();
    if (fromSummaries) {
        table = std::move(*fromSummaries);
    } else {
        const CommandRun run = loadCommandRun("analyze", p.positionals(), options);
        if (!run.data) return run.exit;
        loadFailed = run.loadFailed;
        auto ctx = core::AnalysisContext::of(run.data);  // the dataset's shared context
        table = core::runAnalysis(*ctx, name, req);
        if (!table) return usageError("analyze", table.error().message);  // option values the analysis refused
        auto sel = ctx->select(req.window);  // built by the analysis: reused
        if (sel) windowText = sel.value()->description;
    }
    if (!table->windowText.empty()) windowText = table->windowText;  // chosen by the analysis (critical path)

    if (p.get(kJsonFlag)) {
        std::ostringstream os;
        table->writeJsonDocument(os, name, windowText);
        fmt::print("{}", os.str());
    } else if (p.has(kCsv)) {
        const std::string csv = p.get(kCsv);
        if (csv == "-") {
            std::ostringstream os;
            table->writeCsv(os);
            fmt::print("{}", os.str());
        } else {
            std::ofstream f(csv, std::ios::binary);
            if (f) table->writeCsv(f);
            if (!f) {
                fmt::print(stderr, "strobe-cli analyze: cannot write {}\n", csv);
                return kExitFailure;
            }
        }
        for (const auto& m : table->messages) fmt::print(stderr, "note: {}\n", m);
    } else {
        fmt::print("{} (window: {})\n\n{}", name, windowText, textTable(*table));
        for (const auto& m : table->messages) fmt::print("note: {}\n", m);
    }
    return loadFailed ? kExitBadInput : kExitOk;  // a file that failed while others loaded
}

const CommandRegistrar kRegistrar({"analyze", "Run an analysis (temporal, overlap, idle, straggler ...) on a run",
                                   kHelp, runAnalyze});

}  // namespace

}  // namespace strobe::app
