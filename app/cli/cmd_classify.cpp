// strobe-cli classify: which GPU kernel names the classification rules leave unmatched (or, with --all, how
// every name was classified and by which rule), so that users can extend the rules without rebuilding.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "app/cli/command.h"
#include "core/engine/run_loader.h"
#include "core/model/classification.h"

namespace strobe::app {

namespace {

using namespace strobe::core;

constexpr const char* kClassifyHelp =
    "Usage: strobe-cli classify PATH... [--rules FILE] [--all] [--json] [--no-cache]\n"
    "\n"
    "Lists the distinct GPU kernel names that no classification rule matched, with their count and total\n"
    "time, sorted by time (the kernels to write rules for first).\n"
    "\n"
    "  PATH          trace files (Kineto .json / .json.gz) or directories holding them\n"
    "  --rules FILE  extra rules (YAML, same format as the bundled classification.yaml) tried before the\n"
    "                bundled and user rules (~/.config/strobe/classification.yaml)\n"
    "  --all         list every GPU activity name with its category, collective and the rule that matched\n"
    "  --json        print one JSON document instead of a table\n"
    "  --no-cache    neither read nor write the load cache\n"
    "\n"
    "Exit codes: 0 ok, 2 usage error, 3 unreadable input (a trace or a rules file).";

// The options of its own, declared once (ArgParser parses them; the code reads them through these handles).
const core::PathParam kRules{"rules", "Rules file",
                             "Extra classification rules (YAML) tried before the bundled and user rules", ""};
const core::BoolParam kAll{"all", "All names", "List every GPU activity name, not only kernels", false};

struct NameStats {
    EventKind kind = EventKind::Kernel;
    uint64_t count = 0;
    TimeNs totalNs = 0;
};

int run(const std::vector<std::string>& args) {
    ArgParser p("classify", {kRules, kAll, kJsonFlag, kNoCacheFlag});
    if (!p.parse(args)) return usageError("classify", p.error());
    // Results go to stdout (--json must stay parseable): the loaders' log lines go to stderr.
    logToStderr();
    if (p.positionals().empty()) return usageError("classify", "no trace file or directory given");
    const bool all = p.get(kAll);
    const bool json = p.get(kJsonFlag);

    auto rules = ClassificationRules::loadDefault();
    if (!rules) {
        fmt::print(stderr, "strobe-cli classify: {}\n", rules.error().toString());
        return kExitBadInput;
    }
    if (p.has(kRules)) {
        auto extra = ClassificationRules::fromFile(p.get(kRules));
        if (!extra) {
            fmt::print(stderr, "strobe-cli classify: {}\n", extra.error().toString());
            return kExitBadInput;
        }
        rules->prepend(*extra);
    }
    RunLoadOptions options;
    options.useCache = !p.get(kNoCacheFlag);
    options.rules = &*rules;
    const CommandRun run = loadCommandRun("classify", p.positionals(), options);
    if (!run.data) return run.exit;
    const Dataset& ds = *run.data;
    const bool failed = run.loadFailed;

    // Aggregate by name across ranks (each rank has its own string pool).
    std::map<std::string, NameStats, std::less<>> byName;
    for (const auto& r : ds.ranks) {
        const auto& g = r->gpu;
        for (size_t i = 0; i < g.size(); ++i) {
            if (!all && g.kind[i] != EventKind::Kernel) continue;
            auto [it, fresh] = byName.try_emplace(std::string(r->strings.view(g.name[i])));
            if (fresh) it->second.kind = g.kind[i];
            ++it->second.count;
            it->second.totalNs += g.dur[i];
        }
    }
    struct Row {
        const std::string* name;
        const NameStats* stats;
        Classification cls;
    };
    std::vector<Row> rows;
    size_t distinctKernels = 0, unmatchedCount = 0;
    TimeNs kernelNs = 0, unmatchedNs = 0;
    for (const auto& [name, st] : byName) {
        Classification c = rules->classify(name, st.kind);
        if (st.kind == EventKind::Kernel) {
            ++distinctKernels;
            kernelNs += st.totalNs;
            if (c.rule < 0) {
                unmatchedNs += st.totalNs;
                ++unmatchedCount;
            }
        }
        if (all || (st.kind == EventKind::Kernel && c.rule < 0)) rows.push_back({&name, &st, c});
    }
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        if (a.stats->totalNs != b.stats->totalNs) return a.stats->totalNs > b.stats->totalNs;
        return *a.name < *b.name;
    });
    auto ruleName = [&](const Row& row) -> std::string {
        if (row.cls.rule >= 0) return rules->rules()[static_cast<size_t>(row.cls.rule)].name;
        return row.stats->kind == EventKind::Kernel ? "" : "(by kind)";
    };

    if (json) {
        std::string out = fmt::format(
            "{{\"files\": {}, \"distinct_kernel_names\": {}, \"unmatched_kernel_names\": {}, "
            "\"kernel_time_ns\": {}, \"unmatched_time_ns\": {}, \"rules\": {}, \"{}\": [",
            ds.ranks.size(), distinctKernels, unmatchedCount, kernelNs, unmatchedNs, rules->size(),
            all ? "names" : "unmatched");
        for (size_t i = 0; i < rows.size(); ++i) {
            const Row& row = rows[i];
            out += i ? ",\n  " : "\n  ";
            out += fmt::format("{{\"name\": {}, \"count\": {}, \"total_ns\": {}", jsonQuote(*row.name),
                               row.stats->count, row.stats->totalNs);
            if (all) {
                out += fmt::format(", \"kind\": \"{}\", \"category\": \"{}\", \"collective\": \"{}\", \"rule\": {}",
                                   toString(row.stats->kind), toString(row.cls.category),
                                   toString(row.cls.collective), jsonQuote(ruleName(row)));
            }
            out += "}";
        }
        out += rows.empty() ? "]}\n" : "\n]}\n";
        fmt::print("{}", out);
        return failed ? kExitBadInput : kExitOk;
    }

    const double pct = kernelNs > 0 ? 100.0 * static_cast<double>(unmatchedNs) / static_cast<double>(kernelNs) : 0.0;
    fmt::print("{} of {} distinct kernel names matched no rule ({:.1f}% of {:.3f} ms kernel time); {} rules\n",
               unmatchedCount, distinctKernels, pct, static_cast<double>(kernelNs) / 1e6, rules->size());
    if (rows.empty()) return failed ? kExitBadInput : kExitOk;
    if (all) {
        fmt::print("{:>8} {:>12}  {:<13} {:<14} {:<22} {}\n", "count", "total_ms", "category", "collective", "rule",
                   "name");
        for (const Row& row : rows) {
            fmt::print("{:>8} {:>12.3f}  {:<13} {:<14} {:<22} {}\n", row.stats->count,
                       static_cast<double>(row.stats->totalNs) / 1e6, toString(row.cls.category),
                       row.cls.collective == Collective::None ? std::string_view("-") : toString(row.cls.collective),
                       ruleName(row).empty() ? std::string("(none)") : ruleName(row), *row.name);
        }
    } else {
        fmt::print("{:>8} {:>12}  {}\n", "count", "total_ms", "name");
        for (const Row& row : rows) {
            fmt::print("{:>8} {:>12.3f}  {}\n", row.stats->count, static_cast<double>(row.stats->totalNs) / 1e6,
                       *row.name);
        }
    }
    return failed ? kExitBadInput : kExitOk;
}

const CommandRegistrar kClassifyRegistrar({"classify", "kernel names no classification rule matches (or --all)",
                                           kClassifyHelp, run});

}  // namespace

}  // namespace strobe::app
