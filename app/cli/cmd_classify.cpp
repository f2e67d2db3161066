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

#include "app/cli/command.h"
#include "core/analysis/classify.h"
#include "core/formats/kineto_json.h"
#include "core/merge/merge.h"

namespace strobe::app {

namespace {

using namespace strobe::core;

constexpr const char* kHelp =
    "Usage: strobe-cli classify PATH... [--rules FILE] [--all] [--json]\n"
    "\n"
    "Lists the distinct GPU kernel names that no classification rule matched, with their count and total\n"
    "time, sorted by time (the kernels to write rules for first).\n"
    "\n"
    "  PATH          trace files (Kineto .json / .json.gz) or directories holding them\n"
    "  --rules FILE  extra rules (YAML, same format as the bundled classification.yaml) tried before the\n"
    "                bundled and user rules (~/.config/strobe/classification.yaml)\n"
    "  --all         list every GPU activity name with its category, collective and the rule that matched\n"
    "  --json        print one JSON document instead of a table\n"
    "\n"
    "Exit codes: 0 ok, 2 usage error, 3 unreadable input (a trace or a rules file).";

struct NameStats {
    EventKind kind = EventKind::Kernel;
    uint64_t count = 0;
    TimeNs totalNs = 0;
};

std::string jsonEscape(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 2);
    for (char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
            else out += c;
        }
    }
    return out;
}

bool isTraceFile(const std::filesystem::path& p) {
    const std::string n = p.filename().string();
    auto ends = [&](std::string_view suffix) {
        return n.size() >= suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    return ends(".json") || ends(".json.gz");
}

// Loads the run: each file through the Kineto loader and the merge. (The run loader adds rank detection and
// the load cache on top; classification only needs each rank's GPU activities.)
Result<std::vector<std::shared_ptr<const RankData>>> loadRanks(const std::vector<std::string>& paths,
                                                               const ClassificationRules& rules) {
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    for (const auto& p : paths) {
        std::error_code ec;
        if (fs::is_directory(p, ec)) {
            std::vector<std::string> inDir;
            for (const auto& e : fs::directory_iterator(p, ec)) {
                if (e.is_regular_file(ec) && isTraceFile(e.path())) inDir.push_back(e.path().string());
            }
            if (ec) return Error(Location{p}, "cannot list the directory: " + ec.message());
            if (inDir.empty()) return Error(Location{p}, "the directory holds no trace (*.json, *.json.gz)");
            std::sort(inDir.begin(), inDir.end());
            files.insert(files.end(), inDir.begin(), inDir.end());
        } else {
            files.push_back(p);
        }
    }
    std::vector<std::shared_ptr<const RankData>> ranks;
    for (const auto& f : files) {
        auto loaded = loadKinetoTrace(f);
        if (!loaded) return loaded.error();
        auto st = mergeRank(**loaded, rules);
        if (!st) return st.error();
        ranks.push_back(std::shared_ptr<const RankData>(std::move(loaded.value())));
    }
    return ranks;
}

int run(const std::vector<std::string>& args) {
    std::vector<std::string> paths;
    std::string rulesFile;
    bool all = false, json = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--all") {
            all = true;
        } else if (a == "--json") {
            json = true;
        } else if (a == "--rules") {
            if (i + 1 >= args.size()) {
                fmt::print(stderr, "strobe-cli classify: --rules needs a file\n\n{}\n", kHelp);
                return kExitUsage;
            }
            rulesFile = args[++i];
        } else if (a.rfind("--rules=", 0) == 0) {
            rulesFile = a.substr(8);
        } else if (a.size() > 1 && a[0] == '-') {
            fmt::print(stderr, "strobe-cli classify: unknown option '{}'\n\n{}\n", a, kHelp);
            return kExitUsage;
        } else {
            paths.push_back(a);
        }
    }
    if (paths.empty()) {
        fmt::print(stderr, "strobe-cli classify: no trace given\n\n{}\n", kHelp);
        return kExitUsage;
    }

    auto rules = ClassificationRules::loadDefault();
    if (!rules) {
        fmt::print(stderr, "strobe-cli classify: {}\n", rules.error().toString());
        return kExitBadInput;
    }
    if (!rulesFile.empty()) {
        auto extra = ClassificationRules::fromFile(rulesFile);
        if (!extra) {
            fmt::print(stderr, "strobe-cli classify: {}\n", extra.error().toString());
            return kExitBadInput;
        }
        rules->prepend(*extra);
    }

    auto ranks = loadRanks(paths, *rules);
    if (!ranks) {
        fmt::print(stderr, "strobe-cli classify: {}\n", ranks.error().toString());
        return kExitBadInput;
    }

    // Aggregate by name across ranks (each rank has its own string pool).
    std::map<std::string, NameStats, std::less<>> byName;
    for (const auto& r : *ranks) {
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
            ranks->size(), distinctKernels, unmatchedCount, kernelNs, unmatchedNs, rules->size(),
            all ? "names" : "unmatched");
        for (size_t i = 0; i < rows.size(); ++i) {
            const Row& row = rows[i];
            out += i ? ",\n  " : "\n  ";
            out += fmt::format("{{\"name\": \"{}\", \"count\": {}, \"total_ns\": {}", jsonEscape(*row.name),
                               row.stats->count, row.stats->totalNs);
            if (all) {
                out += fmt::format(", \"kind\": \"{}\", \"category\": \"{}\", \"collective\": \"{}\", \"rule\": \"{}\"",
                                   toString(row.stats->kind), toString(row.cls.category),
                                   toString(row.cls.collective), jsonEscape(ruleName(row)));
            }
            out += "}";
        }
        out += rows.empty() ? "]}\n" : "\n]}\n";
        fmt::print("{}", out);
        return kExitOk;
    }

    const double pct = kernelNs > 0 ? 100.0 * static_cast<double>(unmatchedNs) / static_cast<double>(kernelNs) : 0.0;
    fmt::print("{} of {} distinct kernel names matched no rule ({:.1f}% of {:.3f} ms kernel time); {} rules\n",
               unmatchedCount, distinctKernels, pct, static_cast<double>(kernelNs) / 1e6, rules->size());
    if (rows.empty()) return kExitOk;
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
    return kExitOk;
}

const CommandRegistrar kRegistrar({"classify", "kernel names no classification rule matches (or --all)", kHelp, run});

}  // namespace

}  // namespace strobe::app
