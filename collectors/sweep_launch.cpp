#include "collectors/sweep_launch.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>

#include <fmt/format.h>
#include "core/model/run_manifest.h"

namespace strobe::collectors {

namespace fs = std::filesystem;

bool parseGridAxis(const std::string& text, GridAxis& axis, std::string& error) {
    const size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 >= text.size()) {
        error = fmt::format("--grid '{}': expected KEY=V1,V2,...", text);
        return false;
    }
    axis.key = text.substr(0, eq);
    if (axis.key.find_first_of("/,{}= ") != std::string::npos) {
        error = fmt::format("--grid '{}': the key may not hold '/', ',', '{{', '}}', '=' or spaces", text);
        return false;
    }
    axis.values.clear();
    size_t start = eq + 1;
    while (start <= text.size()) {
        const size_t comma = text.find(',', start);
        const std::string v = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (v.empty() || v.find('/') != std::string::npos) {
            error = fmt::format("--grid '{}': empty value, or a value with '/'", text);
            return false;
        }
        if (std::find(axis.values.begin(), axis.values.end(), v) == axis.values.end()) axis.values.push_back(v);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return true;
}

bool expandSweepCommand(const std::vector<std::string>& command, const std::map<std::string, std::string>& point,
                        std::vector<std::string>& out, std::string& error) {
    out.clear();
    for (size_t i = 0; i < command.size(); ++i) {
        const std::string& a = command[i];
        std::string x;
        for (size_t k = 0; k < a.size(); ++k) {
            if (a[k] != '{') {
                x += a[k];
                continue;
            }
            if (k + 1 < a.size() && a[k + 1] == '{') {  // "{{": a literal brace
                x += '{';
                ++k;
                continue;
            }
            size_t e = k + 1;
            if (e < a.size() && (std::isalpha(static_cast<unsigned char>(a[e])) || a[e] == '_'))
                while (e < a.size() && (std::isalnum(static_cast<unsigned char>(a[e])) || a[e] == '_')) ++e;
            if (e == k + 1 || e >= a.size() || a[e] != '}') {  // not {IDENT}: JSON and other braces stay
                x += '{';
                continue;
            }
            const std::string key = a.substr(k + 1, e - k - 1);
            const auto v = point.find(key);
            if (v == point.end()) {
                std::string keys;
                for (const auto& [name, value] : point) keys += (keys.empty() ? "" : ", ") + name;
                error = fmt::format("argument {} '{}': {{{}}} is not a --grid key (keys: {}); write {{{{{}}} for a "
                                    "literal brace",
                                    i + 1, a, key, keys.empty() ? "none" : keys, key);
                return false;
            }
            x += v->second;
            k = e;
        }
        out.push_back(std::move(x));
    }
    return true;
}

core::SweepPlan sweepPlanOf(const SessionOptions& base, const std::vector<GridAxis>& grid, int repeats,
                            const ToolCatalog& catalog) {
    core::SweepPlan p;
    p.command = base.command;
    for (const auto& t : base.tools) {
        core::SweepPlanTool pt{t.name, {}};
        if (const ToolSpec* spec = catalog.find(t.name))
            for (const auto& ps : spec->params) {
                const auto given = t.values.find(ps.key);
                pt.params[ps.key] = core::valueToString(ps, given != t.values.end() ? given->second : ps.defaultValue);
            }
        p.tools.push_back(std::move(pt));
    }
    for (const auto& a : grid) p.grid.push_back({a.key, a.values});
    p.repeats = std::max(1, repeats);
    return p;
}

std::vector<SweepPoint> planSweep(const std::vector<GridAxis>& grid, int repeats, bool interleaved) {
    std::vector<std::map<std::string, std::string>> points{{}};
    for (const auto& axis : grid) {
        std::vector<std::map<std::string, std::string>> next;
        for (const auto& p : points)
            for (const auto& v : axis.values) {
                auto q = p;
                q[axis.key] = v;
                next.push_back(std::move(q));
            }
        points = std::move(next);
    }
    auto dirOf = [&](const std::map<std::string, std::string>& p, int r) {
        std::string d;
        for (const auto& axis : grid) d += (d.empty() ? "" : ",") + axis.key + "=" + p.at(axis.key);
        return (d.empty() ? std::string("run") : d) + "/rep" + std::to_string(r);
    };
    std::vector<SweepPoint> out;
    const int n = std::max(1, repeats);
    if (interleaved) {
        for (int r = 0; r < n; ++r)
            for (const auto& p : points) out.push_back({p, r, dirOf(p, r)});
    } else {
        for (const auto& p : points)
            for (int r = 0; r < n; ++r) out.push_back({p, r, dirOf(p, r)});
    }
    return out;
}

namespace {

// The run's status, when its manifest reads.
std::optional<core::RunStatus> manifestStatus(const fs::path& dir) {
    auto m = core::readRunManifest(dir.string());
    if (!m) return std::nullopt;
    return m->status;
}

core::SweepFile sweepFileOf(const std::vector<GridAxis>& grid, const std::vector<SweepPoint>& plan) {
    core::SweepFile f;
    for (const auto& a : grid) f.axes.push_back(a.key);
    for (const auto& p : plan) f.runs.push_back({p.relDir, core::typedParameters(p.parameters), p.repeat});
    return f;
}

std::string listText(const std::vector<std::string>& items) {
    std::string s;
    for (const auto& x : items) s += (s.empty() ? "" : " ") + x;
    return "[" + s + "]";
}

std::string toolsText(const std::vector<core::SweepPlanTool>& tools) {
    std::string s;
    for (const auto& t : tools) {
        std::string params;
        for (const auto& [k, v] : t.params) params += (params.empty() ? "" : ",") + k + "=" + v;
        s += (s.empty() ? "" : " ") + t.name + (params.empty() ? "" : "(" + params + ")");
    }
    return s.empty() ? "none" : s;
}

std::string gridText(const std::vector<core::SweepPlanAxis>& grid) {
    std::string s;
    for (const auto& a : grid) {
        std::string values;
        for (const auto& v : a.values) values += (values.empty() ? "" : ",") + v;
        s += (s.empty() ? "" : " ") + a.key + "=" + values;
    }
    return s;
}

// What differs between the recorded plan and this one, part by part ("" when nothing does).
std::string planDifference(const core::SweepPlan& was, const core::SweepPlan& now) {
    std::vector<std::string> parts;
    if (was.command != now.command)
        parts.push_back(fmt::format("command {} (recorded: {})", listText(now.command), listText(was.command)));
    if (was.tools != now.tools)
        parts.push_back(fmt::format("tools {} (recorded: {})", toolsText(now.tools), toolsText(was.tools)));
    if (was.grid != now.grid) parts.push_back(fmt::format("grid {} (recorded: {})", gridText(now.grid), gridText(was.grid)));
    if (was.repeats != now.repeats) parts.push_back(fmt::format("repeats {} (recorded: {})", now.repeats, was.repeats));
    std::string s;
    for (const auto& p : parts) s += (s.empty() ? "" : "; ") + p;
    return s;
}

// A directory whose sweep.yaml records no plan (launched before plans were recorded): each run's manifest must
// say the same command (with its point's values) and the same tools and parameters. What differs, or "".
std::string manifestsDifference(const fs::path& root, const std::vector<SweepPoint>& points, const core::SweepPlan& plan) {
    std::error_code ec;
    for (const SweepPoint& p : points) {
        if (!fs::exists(root / p.relDir / core::kRunManifestFileName, ec)) continue;
        auto m = core::readRunManifest((root / p.relDir).string());
        if (!m) return m.error().toString();
        std::vector<std::string> command;
        std::string error;
        expandSweepCommand(plan.command, p.parameters, command, error);
        if (m->command != command)
            return fmt::format("{}: command {} (its manifest: {})", p.relDir, listText(command), listText(m->command));
        std::vector<core::SweepPlanTool> had;
        for (const auto& t : m->tools) had.push_back({t.name, t.params});
        bool same = had.size() == plan.tools.size();
        for (size_t i = 0; same && i < had.size(); ++i) {
            same = had[i].name == plan.tools[i].name;
            for (const auto& [k, v] : plan.tools[i].params)
                if (auto it = had[i].params.find(k); same && it != had[i].params.end()) same = it->second == v;
        }
        if (!same) return fmt::format("{}: tools {} (its manifest: {})", p.relDir, toolsText(plan.tools), toolsText(had));
    }
    return {};
}

}  // namespace

SweepLaunchResult launchSweep(const std::string& sweepDir, const std::vector<GridAxis>& grid, int repeats,
                              bool interleaved, const SessionOptions& base, const ToolCatalog& catalog,
                              const std::atomic<int>& stopSignal, const std::function<void(const std::string&)>& log) {
    SweepLaunchResult r;
    const fs::path root(sweepDir);
    const std::vector<SweepPoint> plan = planSweep(grid, repeats, interleaved);
    core::SweepFile planned = sweepFileOf(grid, plan);
    planned.plan = sweepPlanOf(base, grid, repeats, catalog);
    auto refuse = [&](int code, std::string why) {
        r.refusal = std::move(why);
        r.exitCode = code;
        return r;
    };
    // Every run's command, before anything starts: an unreplaced {IDENT} is refused.
    std::vector<std::vector<std::string>> commands;
    for (const SweepPoint& p : plan) {
        std::string error;
        if (!expandSweepCommand(base.command, p.parameters, commands.emplace_back(), error)) return refuse(2, error);
    }
    std::error_code ec;
    if (core::hasSweepFile(root.string())) {
        auto have = core::readSweepFile(root.string());
        if (!have) return refuse(125, fmt::format("{}: cannot resume: {}", root.string(), have.error().toString()));
        std::string differs;
        if (have->plan) {
            differs = planDifference(*have->plan, *planned.plan);
        } else {
            auto sorted = [](std::vector<core::SweepFileRun> runs) {
                std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
                return runs;
            };
            if (have->axes != planned.axes || sorted(have->runs) != sorted(planned.runs))
                differs = "the grid or repeats (its sweep.yaml lists other runs)";
            else
                differs = manifestsDifference(root, plan, *planned.plan);
        }
        if (!differs.empty())
            return refuse(2, fmt::format("{}: holds a sweep with another plan: {}; use a new directory, or run the "
                                         "recorded plan again to resume",
                                         root.string(), differs));
        if (!have->plan) {  // an older sweep, checked run by run: record its plan now
            core::SweepFile recorded = *have;
            recorded.plan = planned.plan;
            if (auto written = core::writeSweepFile(root.string(), recorded); !written)
                return refuse(125, fmt::format("{}: cannot record the plan in sweep.yaml: {}", root.string(),
                                               written.error().toString()));
        }
        if (log) log(fmt::format("resuming the sweep in {} (same plan)", root.string()));
    } else {
        if (fs::exists(root, ec) && fs::directory_iterator(root, ec) != fs::directory_iterator())
            return refuse(125, fmt::format("{}: not empty and not a sweep (no sweep.yaml)", root.string()));
        fs::create_directories(root, ec);
        if (auto written = core::writeSweepFile(root.string(), planned); !written)
            return refuse(125, fmt::format("{}: cannot write sweep.yaml: {}", root.string(), written.error().toString()));
    }
    for (size_t i = 0; i < plan.size(); ++i) {
        const SweepPoint& p = plan[i];
        const fs::path dir = root / p.relDir;
        const auto status = fs::exists(dir, ec) ? manifestStatus(dir) : std::nullopt;
        if (status == core::RunStatus::Completed) {
            ++r.skipped;
            if (log) log(fmt::format("[{}/{}] {}: completed before, skipped", i + 1, plan.size(), p.relDir));
            continue;
        }
        if (fs::exists(dir, ec)) {  // interrupted, failed or cancelled before: keep it aside, run it again
            fs::path aside = root / ".incomplete" / p.relDir;
            for (int k = 1; fs::exists(aside, ec); ++k) aside = root / ".incomplete" / (p.relDir + "." + std::to_string(k));
            fs::create_directories(aside.parent_path(), ec);
            fs::rename(dir, aside, ec);
            if (ec) {
                r.refusal = fmt::format("{}: cannot move the incomplete run aside: {}", dir.string(), ec.message());
                r.exitCode = 125;
                return r;
            }
        }
        SessionOptions o = base;
        o.outDir = dir.string();
        o.parameters = p.parameters;
        o.repeat = p.repeat;
        o.runName = p.relDir;  // the Slurm job's name (--slurm)
        if (!base.remoteOutDir.empty()) o.remoteOutDir = base.remoteOutDir + "/" + p.relDir;  // --host: one each
        o.command = commands[i];
        for (const auto& [k, v] : p.parameters) o.env[k] = v;
        if (log) log(fmt::format("[{}/{}] {}", i + 1, plan.size(), p.relDir));
        const SessionResult s = runSession(o, catalog, stopSignal, log);
        if (s.status == "refused") {
            r.refusal = fmt::format("{}: {}", p.relDir, s.reason);
            r.exitCode = s.exitCode;
            return r;
        }
        if (s.status == "cancelled") {
            r.cancelled = true;
            r.exitCode = s.exitCode;
            return r;
        }
        (s.status == "completed" ? r.completed : s.status == "incomplete" ? r.incomplete : r.failed) += 1;
        if (s.status != "completed" && log) {
            const auto& m = s.manifest;
            log(fmt::format("{}: {} (exit {}){}", p.relDir, s.status, s.exitCode,
                            m.statusReason.empty() ? "" : ": " + m.statusReason));
            if (!m.failure.empty()) log(fmt::format("{}: the workload's last lines:\n{}", p.relDir, m.failure));
        }
    }
    r.exitCode = r.failed || r.incomplete ? 1 : 0;
    return r;
}

}  // namespace strobe::collectors
