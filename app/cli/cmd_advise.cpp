// strobe-cli advise: the findings of a run (core/analysis/findings.h), ranked by the time they cost per step.
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/cli/command.h"
#include "core/analysis/context.h"
#include "core/analysis/findings.h"
#include "core/engine/run_loader.h"

namespace strobe::app {

namespace {

constexpr const char* kAdviseHelp =
    "Usage: strobe-cli advise PATH... [--json] [--no-critical-path] [--no-cache]\n"
    "\n"
    "Findings on a run (trace files or directories, one Kineto trace per rank): where the step time goes, ranked\n"
    "by the time at stake per step, each with its evidence, the ranks and time ranges where it happens, and what\n"
    "to try. Rules: exposed_comm, launch_bound, dataloader_stall, host_sync, pageable_h2d, straggler,\n"
    "gemm_below_peak, small_elementwise, rank_imbalance, inter_step_gaps (definitions: README, section Findings).\n"
    "\n"
    "Options:\n"
    "  --json              print {\"schema\": 1, \"findings\": [{\"rule\", \"severity\", \"ms_per_step\", \"share\",\n"
    "                      \"evidence\", \"ranks\", \"ranges\", ...}]} ordered by ms_per_step descending\n"
    "  --no-critical-path  do not mark findings on/off the critical path (faster on big runs)\n"
    "  --no-cache          neither read nor write the on-disk load cache\n"
    "  -h, --help          show this help\n"
    "\n"
    "Severity by share of the step: high >= 10 %, medium >= 3 %, low >= 1 % (below 1 % nothing is reported).\n"
    "Exit codes: 0 ok, 2 usage error, 3 unreadable input.";

const core::BoolParam kNoCriticalPath{"no-critical-path", "No critical path",
                                      "Do not mark findings on or off the critical path", false};

std::string evidenceText(const core::Finding& f) {
    std::vector<std::string> parts;
    for (const auto& [k, v] : f.evidence) parts.push_back(fmt::format("{}={:.4g}", k, v));
    return fmt::format("{}", fmt::join(parts, ", "));
}

void printFindingsText(const core::FindingsResult& r) {
    fmt::print("Findings (window: {}, step {:.3f} ms, {} step(s))\n\n", r.window, r.stepMs, r.steps);
    if (r.findings.empty()) fmt::print("No rule fired (nothing costs 1 % of the step or more).\n");
    std::vector<std::vector<std::string>> rows = {{"#", "rule", "severity", "ms/step", "share", "ranks", "critical path"}};
    for (size_t i = 0; i < r.findings.size(); ++i) {
        const auto& f = r.findings[i];
        const std::string cp = f.onCriticalPath ? (*f.onCriticalPath ? "on" : "off") : "-";
        rows.push_back({std::to_string(i + 1), f.rule, f.severity, fmt::format("{:.3f}", f.msPerStep),
                        fmt::format("{:.1f} %", 100 * f.share), fmt::format("{}", fmt::join(f.ranks, ",")), cp});
    }
    if (!r.findings.empty()) printAlignedTable(rows);
    for (size_t i = 0; i < r.findings.size(); ++i) {
        const auto& f = r.findings[i];
        fmt::print("\n{}. {} [{}]: {}\n   definition: {}\n   evidence: {}\n   try: {}\n", i + 1, f.rule, f.severity,
                   f.title, f.definition, evidenceText(f), f.whatToTry);
        if (!f.ranges.empty())
            fmt::print("   first range: rank {} {}..{} ns ({} range(s))\n", f.ranges.front().rank,
                       f.ranges.front().start, f.ranges.front().end, f.ranges.size());
        if (!f.criticalPathReason.empty()) fmt::print("   critical path: {}\n", f.criticalPathReason);
    }
    for (const auto& m : r.messages) fmt::print("note: {}\n", m);
}

int runAdvise(const std::vector<std::string>& args) {
    ArgParser p("advise", {kJsonFlag, kNoCacheFlag, kNoCriticalPath});
    if (!p.parse(args)) return usageError("advise", p.error());
    if (p.positionals().empty()) return usageError("advise", "expected at least one trace file or directory");
    core::RunLoadOptions options;
    options.useCache = !p.get(kNoCacheFlag);
    const CommandRun run = loadCommandRun("advise", p.positionals(), options);
    if (!run.data) return run.exit;
    const bool loadFailed = run.loadFailed;
    auto ctx = core::AnalysisContext::of(run.data);
    core::FindingsOptions fo;
    fo.criticalPath = !p.get(kNoCriticalPath);
    auto r = core::computeFindings(*ctx, fo);
    if (!r) {
        fmt::print(stderr, "strobe-cli advise: {}\n", r.error().message);
        return kExitFailure;
    }
    if (p.get(kJsonFlag))
        fmt::print("{}", core::findingsJson(r.value()));
    else
        printFindingsText(r.value());
    return loadFailed ? kExitBadInput : kExitOk;
}

const CommandRegistrar kAdviseRegistrar({"advise", "Findings: where the step time goes, ranked, with what to try",
                                         kAdviseHelp, runAdvise});

}  // namespace

}  // namespace strobe::app
