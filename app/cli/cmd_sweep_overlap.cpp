// strobe-cli sweep gemm-overlap (issue 9): for the top GEMM groups of a sweep, which collectives overlapped each
// instance and for how long, and whether the instances that overlap communication run slower than those that do
// not (core/analysis/kernel_overlap). cmd_sweep.cpp discovers and loads the runs, then calls runSweepGemmOverlap.
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/cli/command.h"
#include "core/analysis/kernel_overlap.h"
#include "plots/sweep_axes.h"

namespace strobe::app {

namespace {

using namespace strobe::core;

// The sweep plots' group_by as a flag: the same choices, text and parser (core::parseSweepGroupBy).
const core::StringParam kOverlapGroupBy{"group-by", "Group by", plots::kSweepGroupBy.spec().tooltip,
                                        plots::kSweepGroupBy.defaultValue()};
const core::IntParam kOverlapTop =
    core::IntParam{"top", "Top groups", "GEMM groups with the most time per step to show (0: all)", 5}.bounded(0, 1000000, 1);
const core::IntParam kOverlapSkipSteps =
    core::IntParam{"skip-steps", "Skip steps", "First ProfilerSteps of every run to drop", 0}.bounded(0, 1000000, 1);
const core::BoolParam kInstances{"instances", "Instances",
                                 "One row per GEMM instance with the collectives that overlapped it", false};

std::string num(double v) { return std::isfinite(v) ? fmt::format("{}", v) : "null"; }
std::string opt(const std::optional<double>& v) { return v ? num(*v) : "null"; }

std::string groupJson(const OverlapGroupRow& r) {
    return fmt::format(
        "{{\"group\": {}, \"config\": {}, \"instances\": {}, \"overlapped_instances\": {}, \"per_step_ns\": {}, "
        "\"total_ns\": {}, \"overlapped_ns\": {}, \"overlapped_share\": {}, \"mean_overlapped_ns\": {}, "
        "\"median_overlapped_ns\": {}, \"mean_alone_ns\": {}, \"median_alone_ns\": {}, \"slowdown\": {}, "
        "\"slowdown_mean\": {}}}",
        jsonQuote(r.group), jsonStringMap(r.parameters), r.instances, r.overlappedInstances, num(r.perStepNs),
        r.totalNs, r.overlappedNs, num(r.overlappedShare), opt(r.meanOverlappedNs), opt(r.medianOverlappedNs),
        opt(r.meanAloneNs), opt(r.medianAloneNs), opt(r.slowdown), opt(r.slowdownMean));
}

std::string instanceJson(const OverlapInstanceRow& r, const RunSet& runs) {
    std::string colls;
    for (const auto& c : r.collectives)
        colls += fmt::format("{}{{\"name\": {}, \"overlap_ns\": {}}}", colls.empty() ? "" : ", ", jsonQuote(c.name),
                             c.overlapNs);
    return fmt::format(
        "{{\"group\": {}, \"config\": {}, \"run\": {}, \"rank\": {}, \"start_ns\": {}, \"dur_ns\": {}, "
        "\"overlapped_ns\": {}, \"collectives\": [{}]}}",
        jsonQuote(r.group), jsonStringMap(parameterTexts(runs[r.run].parameters)), jsonQuote(runs[r.run].label), r.rank,
        r.startNs, r.durNs, r.overlappedNs, colls);
}

std::string configText(const std::map<std::string, std::string>& p, const std::string& key) {
    const std::string text = parametersText(p, ",");
    return !text.empty() ? text : key.empty() ? std::string("-") : key;
}

void printText(const SweepKernelOverlap& s, const RunSet& runs, bool instances) {
    for (const auto& m : s.messages) fmt::print("# {}\n", m);
    auto us = [](const std::optional<double>& ns) { return ns ? fmt::format("{:.3f}", *ns / 1e3) : std::string("-"); };
    if (instances) {
        std::vector<std::vector<std::string>> t{{"run", "rank", "start_ns", "dur_us", "overlapped_us", "collectives", "group"}};
        for (const auto& r : s.instances) {
            std::string colls;
            for (const auto& c : r.collectives)
                colls += fmt::format("{}{} ({:.3f} us)", colls.empty() ? "" : "; ", c.name.substr(0, 48), double(c.overlapNs) / 1e3);
            t.push_back({runs[r.run].label, std::to_string(r.rank), std::to_string(r.startNs), us(double(r.durNs)),
                         us(double(r.overlappedNs)), colls.empty() ? "-" : colls, r.group});
        }
        printAlignedTable(t);
        return;
    }
    std::vector<std::vector<std::string>> t{{"config", "instances", "overlapped", "share%", "med_overlapped_us",
                                             "med_alone_us", "slowdown", "per_step_us", "group"}};
    for (const auto& r : s.groups)
        t.push_back({configText(r.parameters, r.config), std::to_string(r.instances), std::to_string(r.overlappedInstances),
                     fmt::format("{:.2f}", 100.0 * r.overlappedShare), us(r.medianOverlappedNs), us(r.medianAloneNs),
                     r.slowdown ? fmt::format("{:.3f}", *r.slowdown) : "-", us(r.perStepNs), r.group});
    printAlignedTable(t);
    fmt::print("\ncommunication/computation overlap per rank (HTA):\n");
    std::vector<std::vector<std::string>> ranks{{"config", "rank", "runs", "comm_us", "overlap_us", "overlap%"}};
    for (const auto& r : s.ranks)
        ranks.push_back({configText(r.parameters, r.config), std::to_string(r.rank), std::to_string(r.runs),
                         us(double(r.commNs)), us(double(r.overlapNs)),
                         r.overlapPct ? fmt::format("{:.2f}", *r.overlapPct) : "-"});
    printAlignedTable(ranks);
}

}  // namespace

std::vector<CliOption> sweepGemmOverlapOptions() {
    return {kJsonFlag, kOverlapGroupBy, kOverlapTop, kOverlapSkipSteps, kInstances};
}

int runSweepGemmOverlap(const ArgParser& p, const RunSet& runs,
                        const std::vector<std::string>& discoveryMessages) {
    KernelOverlapOptions o;
    std::string error;
    if (!parseSweepGroupBy(p.get(kOverlapGroupBy), o.groupBy, o.groupRegex, error))
        return usageError("sweep", "--group-by " + error);
    o.top = static_cast<int>(p.get(kOverlapTop));
    o.skipSteps = static_cast<int>(p.get(kOverlapSkipSteps));
    o.instances = p.get(kInstances);
    auto result = sweepKernelOverlap(runs, o);
    if (!result) {
        fmt::print(stderr, "strobe-cli sweep gemm-overlap: {}\n", result.error().toString());
        return kExitFailure;
    }
    SweepKernelOverlap& s = result.value();
    s.messages.insert(s.messages.begin(), discoveryMessages.begin(), discoveryMessages.end());
    if (s.groups.empty())
        s.messages.push_back("no GEMM kernel (Strobe's classification, category gemm) in these runs");
    if (!p.get(kJsonFlag)) {
        printText(s, runs, o.instances);
        return kExitOk;
    }
    std::string rows;
    if (o.instances) {
        for (const auto& r : s.instances) rows += (rows.empty() ? "\n  " : ",\n  ") + instanceJson(r, runs);
    } else {
        for (const auto& r : s.groups) rows += (rows.empty() ? "\n  " : ",\n  ") + groupJson(r);
    }
    std::string ranks;
    for (const auto& r : s.ranks)
        ranks += fmt::format("{}{{\"config\": {}, \"rank\": {}, \"runs\": {}, \"comm_ns\": {}, \"comp_ns\": {}, "
                             "\"overlap_ns\": {}, \"overlap_pct\": {}}}",
                             ranks.empty() ? "\n  " : ",\n  ", jsonStringMap(r.parameters), r.rank, r.runs, r.commNs,
                             r.compNs, r.overlapNs, opt(r.overlapPct));
    std::string msgs;
    for (const auto& m : s.messages) msgs += (msgs.empty() ? "" : ", ") + jsonQuote(m);
    fmt::print("{{\"schema\": 1, \"method\": {}, \"confidence\": null, \"baseline\": null, \"messages\": [{}], "
               "\"rows\": [{}], \"ranks\": [{}]}}\n",
               jsonQuote("per GEMM instance: the union of the communication kernels (HTA's types) of the same device "
                         "during it; slowdown = median duration of overlapped instances / median of the others; ranks: "
                         "HTA's communication/computation overlap, repeats pooled"),
               msgs, rows.empty() ? "" : rows + "\n", ranks.empty() ? "" : ranks + "\n");
    return kExitOk;
}

}  // namespace strobe::app
