// strobe-cli diff: the structural diff of two runs, or of two configurations of a sweep (issue 22,
// core/analysis/structural_diff.h).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "app/cli/command.h"
#include "core/analysis/structural_diff.h"
#include "core/sweep/sweep_discovery.h"

namespace strobe::app {

namespace {

using namespace strobe::core;

constexpr const char* kDiffHelp =
    "Usage: strobe-cli diff A B [--skip-steps N] [--json] [--no-cache]\n"
    "       strobe-cli diff --sweep DIR --a KEY=VALUE[,KEY=VALUE] --b KEY=VALUE[,KEY=VALUE] [--pattern P] ...\n"
    "\n"
    "The structural diff of two runs (A and B: run directories or trace files), or of two configurations of a\n"
    "sweep (its runs whose parameters have every KEY=VALUE given; repeats are pooled): the tree of CPU operators\n"
    "by call site (operator names normalised across PyTorch versions and backends: autograd nodes lose their\n"
    "version suffix and Cudnn/Miopen prefix, aten::cudnn_x and aten::miopen_x are aten::x), with the kernels,\n"
    "memcpy and memset each operator launched beneath it. Each node: instances per step and GPU time per step\n"
    "(kernels + memcpy + memset launched within its subtree, over the kept ProfilerSteps) on both sides, Δ = B - A,\n"
    "and its status: added, removed, changed or same (|Δ| under max(--noise % of the larger side, 5 µs per step) and\n"
    "the instances per step within --noise %; default 10 %). Trees are matched by the path of names from the root,\n"
    "so call sites match across GPU vendors while kernel names do not (those show as added/removed beneath matched call sites).\n"
    "A side without CPU operators (a rocprof/rocprofv3/nsys kernel trace) makes the diff flat, by kernel name.\n"
    "\n"
    "  --sweep DIR        a sweep directory (discovered as `strobe-cli sweep runs` does)\n"
    "  --a, --b K=V,...   the two configurations of the sweep\n"
    "  --pattern P        the sweep's directory pattern such as {threads}thread/nccl_{channels}channels\n"
    "  --noise PCT        the relative change under which a node is `same` (default 10)\n"
    "  --skip-steps N     drop the first N ProfilerSteps of every run (warm-up)\n"
    "  --json             {\"schema\": 1, \"a\", \"b\", \"mode\", \"messages\", \"match\": {nodes_a, nodes_b, matched,\n"
    "                     time_share_a, time_share_b}, \"rows\": [{path, kind, count_a, count_b, per_step_ns_a,\n"
    "                     per_step_ns_b, delta_ns, status}]} with rows in tree order\n"
    "  --no-cache         neither read nor write the load cache\n"
    "\n"
    "Exit codes: 0 ok, 2 usage error, 3 unreadable input or no runs found.";

const core::StringParam kDiffSweep{"sweep", "Sweep", "A sweep directory", ""};
const core::StringParam kDiffA{"a", "Configuration A", "KEY=VALUE[,KEY=VALUE] of side A", ""};
const core::StringParam kDiffB{"b", "Configuration B", "KEY=VALUE[,KEY=VALUE] of side B", ""};
const core::StringParam kDiffPattern{"pattern", "Pattern", "Directory pattern with {axis} and {repeat}", ""};
const core::DoubleParam kDiffNoise =
    core::DoubleParam{"noise", "Noise (%)", "Relative change under which a node is the same", 10.0}.bounded(0, 1000, 1);
const core::IntParam kDiffSkipSteps =
    core::IntParam{"skip-steps", "Skip steps", "First ProfilerSteps of every run to drop", 0}.bounded(0, 1000000, 1);

std::string diffJsonNumber(double v) { return std::isfinite(v) ? fmt::format("{}", v) : "null"; }

// The runs of the sweep whose parameters hold every KEY=VALUE of `spec`; an error when it matches none.
std::vector<size_t> runsMatching(const RunSet& runs, const std::string& spec, std::string& error) {
    std::vector<std::pair<std::string, std::string>> want;
    size_t start = 0;
    while (start <= spec.size()) {
        const size_t comma = std::min(spec.find(',', start), spec.size());
        const std::string item = spec.substr(start, comma - start);
        const size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0) {
            error = fmt::format("'{}' is not KEY=VALUE[,KEY=VALUE]", spec);
            return {};
        }
        want.emplace_back(item.substr(0, eq), item.substr(eq + 1));
        start = comma + 1;
    }
    std::vector<size_t> out;
    std::set<std::string> keys;
    for (size_t i = 0; i < runs.size(); ++i) {
        const auto texts = parameterTexts(runs[i].parameters);
        const bool all = std::all_of(want.begin(), want.end(), [&](const auto& kv) {
            auto it = texts.find(kv.first);
            return it != texts.end() && it->second == kv.second;
        });
        if (!all) continue;
        out.push_back(i);
        keys.insert(runs[i].key());
    }
    if (out.empty()) error = fmt::format("no run of the sweep has {}", spec);
    else if (keys.size() > 1)
        error = fmt::format("{} matches {} configurations ({}...); give every axis that differs", spec, keys.size(),
                            *keys.begin());
    return out;
}

// The runs to diff and which side each is on (0: A, 1: B), from A B or --sweep/--a/--b; exit code on failure.
int selectRuns(const ArgParser& p, RunSet& runs, std::vector<int>& side) {
    if (p.has(kDiffSweep)) {
        if (!p.positionals().empty()) return usageError("diff", "give either A B or --sweep DIR, not both");
        if (!p.has(kDiffA) || !p.has(kDiffB)) return usageError("diff", "--sweep needs --a KEY=VALUE and --b KEY=VALUE");
        std::error_code ec;
        if (!std::filesystem::exists(p.get(kDiffSweep), ec)) {
            fmt::print(stderr, "strobe-cli diff: {}: no such file or directory\n", p.get(kDiffSweep));
            return kExitBadInput;
        }
        sweep::SweepDiscovery found = sweep::discoverSweep({p.get(kDiffSweep)}, p.get(kDiffPattern));
        for (int s = 0; s < 2; ++s) {
            std::string error;
            for (size_t i : runsMatching(found.runs, p.get(s == 0 ? kDiffA : kDiffB), error)) {
                runs.push_back(found.runs[i]);
                side.push_back(s);
            }
            if (!error.empty()) {
                fmt::print(stderr, "strobe-cli diff: {}: {}\n", p.get(kDiffSweep), error);
                return kExitBadInput;
            }
        }
        return kExitOk;
    }
    if (p.positionals().size() != 2) return usageError("diff", "give two runs A B (or --sweep DIR --a K=V --b K=V)");
    for (int s = 0; s < 2; ++s) {
        const std::string& path = p.positionals()[size_t(s)];
        std::error_code ec;
        if (!std::filesystem::exists(path, ec)) {
            fmt::print(stderr, "strobe-cli diff: {}: no such file or directory\n", path);
            return kExitBadInput;
        }
        RunEntry run;
        run.label = std::filesystem::path(path).lexically_normal().filename().string();
        if (run.label.empty()) run.label = std::filesystem::path(path).lexically_normal().parent_path().filename().string();
        run.paths = {path};
        if (auto st = attachRunManifest(run); !st) spdlog::warn("{}", st.error().toString());
        runs.push_back(std::move(run));
        side.push_back(s);
    }
    return kExitOk;
}

std::string sideJson(const DiffSide& s) {
    std::string paths = "[";
    for (size_t i = 0; i < s.paths.size(); ++i) paths += (i ? ", " : "") + jsonQuote(s.paths[i]);
    return fmt::format("{{\"label\": {}, \"paths\": {}], \"runs\": {}, \"steps\": {}, \"per\": \"{}\", \"cpu_ops\": {}, "
                       "\"gpu_ns_per_step\": {}}}",
                       jsonQuote(s.label), paths, s.runs, s.steps, s.perRun ? "run" : "step",
                       s.cpuOps ? "true" : "false", diffJsonNumber(s.totalNs));
}

void printDiffJson(const StructuralDiff& d) {
    std::string msgs = "[";
    for (size_t i = 0; i < d.messages.size(); ++i) msgs += (i ? ", " : "") + jsonQuote(d.messages[i]);
    fmt::print("{{\"schema\": 1, \"a\": {}, \"b\": {}, \"mode\": \"{}\", \"messages\": {}],\n", sideJson(d.a),
               sideJson(d.b), d.byKernelName ? "kernel_name" : d.cpuTime ? "cpu_time" : "call_site", msgs);
    fmt::print(" \"match\": {{\"nodes_a\": {}, \"nodes_b\": {}, \"matched\": {}, \"time_share_a\": {}, "
               "\"time_share_b\": {}}},\n \"rows\": [",
               d.a.nodes, d.b.nodes, d.matched, diffJsonNumber(d.timeShareA), diffJsonNumber(d.timeShareB));
    for (size_t i = 0; i < d.nodes.size(); ++i) {
        const DiffNode& n = d.nodes[i];
        std::string path = "[";
        const auto names = d.path(i);
        for (size_t k = 0; k < names.size(); ++k) path += (k ? ", " : "") + jsonQuote(names[k]);
        fmt::print("{}\n  {{\"path\": {}], \"kind\": \"{}\", \"count_a\": {}, \"count_b\": {}, \"per_step_ns_a\": {}, "
                   "\"per_step_ns_b\": {}, \"delta_ns\": {}, \"status\": \"{}\"}}",
                   i ? "," : "", path, n.leaf ? "gpu" : "op", diffJsonNumber(n.countA), diffJsonNumber(n.countB),
                   diffJsonNumber(n.perStepNsA), diffJsonNumber(n.perStepNsB), diffJsonNumber(n.deltaNs()),
                   toString(n.status));
    }
    fmt::print("]}}\n");
}

void printDiffText(const StructuralDiff& d) {
    const char* per = d.a.perRun || d.b.perRun ? "run" : "step";
    fmt::print("# A: {} ({} run{}, {} steps)\n# B: {} ({} run{}, {} steps)\n", d.a.label, d.a.runs,
               d.a.runs == 1 ? "" : "s", d.a.steps, d.b.label, d.b.runs, d.b.runs == 1 ? "" : "s", d.b.steps);
    for (const auto& m : d.messages) fmt::print("# {}\n", m);
    fmt::print("# matched {} nodes of {} (A) and {} (B), holding {:.1f}% of A's and {:.1f}% of B's GPU time per {}\n",
               d.matched, d.a.nodes, d.b.nodes, 100 * d.timeShareA, 100 * d.timeShareB, per);
    std::vector<std::vector<std::string>> table{{"status", "count_a", "count_b", fmt::format("a_ms/{}", per),
                                                 fmt::format("b_ms/{}", per), "Δ_ms", "call site / kernel"}};
    // Kernel names run to hundreds of characters (Composable Kernel templates): cut in the text table (--json has
    // them whole).
    auto shown = [](const std::string& name) { return name.size() <= 120 ? name : name.substr(0, 117) + "..."; };
    for (const DiffNode& n : d.nodes)
        table.push_back({std::string(toString(n.status)), fmt::format("{:.4g}", n.countA), fmt::format("{:.4g}", n.countB),
                         fmt::format("{:.3f}", n.perStepNsA / 1e6), fmt::format("{:.3f}", n.perStepNsB / 1e6),
                         fmt::format("{:+.3f}", n.deltaNs() / 1e6),
                         std::string(size_t(n.depth) * 2, ' ') + (n.leaf ? "· " : "") + shown(n.name)});
    printAlignedTable(table);
}

int runDiff(const std::vector<std::string>& args) {
    ArgParser p("diff", {CliOption(kDiffSweep), CliOption(kDiffA), CliOption(kDiffB), CliOption(kDiffPattern),
                         CliOption(kDiffSkipSteps), CliOption(kDiffNoise), CliOption(kJsonFlag), CliOption(kNoCacheFlag)});
    if (!p.parse(args)) return usageError("diff", p.error());
    logToStderr();
    RunSet runs;
    std::vector<int> side;
    if (const int rc = selectRuns(p, runs, side); rc != kExitOk) return rc;
    RunLoadOptions options;
    options.useCache = !p.get(kNoCacheFlag);
    std::vector<std::vector<std::string>> paths;
    for (const RunEntry& run : runs) paths.push_back(run.paths);
    auto results = loadRunsAsJobs(paths, options);
    int code = kExitOk;
    for (size_t i = 0; i < runs.size(); ++i) {
        if (!results[i]) {
            fmt::print(stderr, "strobe-cli diff: {}\n", results[i].error().toString());
            return kExitBadInput;
        }
        if (reportLoadDiagnostics("diff", **results[i])) code = kExitBadInput;
        runs[i].dataset = *results[i];
    }
    std::vector<const RunEntry*> a, b;
    for (size_t i = 0; i < runs.size(); ++i) (side[i] == 0 ? a : b).push_back(&runs[i]);
    DiffOptions o;
    o.skipSteps = static_cast<int>(p.get(kDiffSkipSteps));
    o.noiseFraction = p.get(kDiffNoise) / 100.0;
    const StructuralDiff d = structuralDiff(a, b, o);
    if (p.get(kJsonFlag)) printDiffJson(d);
    else printDiffText(d);
    return code;
}

const CommandRegistrar kDiffRegistrar(
    {"diff", "structural diff of two runs or sweep configurations: call-site tree, GPU time per step, Δ", kDiffHelp,
     runDiff});

}  // namespace

}  // namespace strobe::app
