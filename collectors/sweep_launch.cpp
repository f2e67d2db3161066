#include "collectors/sweep_launch.h"

#include <algorithm>
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

// The command with {AXIS} replaced by the point's values (other braces are left as written).
std::vector<std::string> substitute(const std::vector<std::string>& command, const std::map<std::string, std::string>& p) {
    std::vector<std::string> out;
    for (std::string a : command) {
        for (const auto& [k, v] : p) {
            const std::string key = "{" + k + "}";
            for (size_t at = a.find(key); at != std::string::npos; at = a.find(key, at + v.size())) a.replace(at, key.size(), v);
        }
        out.push_back(std::move(a));
    }
    return out;
}

}  // namespace

SweepLaunchResult launchSweep(const std::string& sweepDir, const std::vector<GridAxis>& grid, int repeats,
                              bool interleaved, const SessionOptions& base, const ToolCatalog& catalog,
                              const std::atomic<int>& stopSignal, const std::function<void(const std::string&)>& log) {
    SweepLaunchResult r;
    const fs::path root(sweepDir);
    const std::vector<SweepPoint> plan = planSweep(grid, repeats, interleaved);
    const core::SweepFile planned = sweepFileOf(grid, plan);
    std::error_code ec;
    if (core::hasSweepFile(root.string())) {
        auto have = core::readSweepFile(root.string());
        if (!have || have->axes != planned.axes || have->runs != planned.runs) {
            r.refusal = fmt::format("{}: holds another sweep (its sweep.yaml differs from this grid and repeats{}); "
                                    "use a new directory",
                                    root.string(), have ? "" : ": " + have.error().toString());
            r.exitCode = 125;
            return r;
        }
        if (log) log(fmt::format("resuming the sweep in {}", root.string()));
    } else {
        if (fs::exists(root, ec) && fs::directory_iterator(root, ec) != fs::directory_iterator()) {
            r.refusal = fmt::format("{}: not empty and not a sweep (no sweep.yaml)", root.string());
            r.exitCode = 125;
            return r;
        }
        fs::create_directories(root, ec);
        if (auto written = core::writeSweepFile(root.string(), planned); !written) {
            r.refusal = fmt::format("{}: cannot write sweep.yaml: {}", root.string(), written.error().toString());
            r.exitCode = 125;
            return r;
        }
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
        o.command = substitute(base.command, p.parameters);
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
        (s.status == "completed" ? r.completed : r.failed) += 1;
        if (s.status != "completed" && log) log(fmt::format("{}: {} (exit {})", p.relDir, s.status, s.exitCode));
    }
    r.exitCode = r.failed ? 1 : 0;
    return r;
}

}  // namespace strobe::collectors
