#include "collectors/launch_request.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "collectors/remote.h"

namespace strobe::collectors {

namespace lf = launch_flags;

namespace {

std::string flag(const core::ParamSpec& spec) { return "--" + spec.key; }
template <core::ParamType K>
std::string flag(const core::Param<K>& p) {
    return flag(p.spec());
}

// The text a tool parameter's value goes on a command line as ("" with ok false: a typed value without a spec).
std::string valueText(const ToolSpec* spec, const std::string& key, const core::ParamValue& value, bool& ok) {
    ok = true;
    if (const core::ParamSpec* ps = spec ? core::findSpec(spec->params, key) : nullptr) return core::valueToString(*ps, value);
    if (const auto* s = std::get_if<std::string>(&value)) return *s;
    ok = false;
    return {};
}

// "A-B" with 0 <= A <= B.
bool stepsRange(const std::string& text) {
    const size_t dash = text.find('-');
    if (dash == std::string::npos || dash == 0 || dash + 1 >= text.size()) return false;
    auto digits = [](std::string_view s) {
        return !s.empty() && s.size() < 10 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    const std::string a = text.substr(0, dash), b = text.substr(dash + 1);
    return digits(a) && digits(b) && std::stol(a) <= std::stol(b);
}

std::string number(double v) {
    std::string s = fmt::format("{}", v);
    return s;
}

}  // namespace

std::vector<std::string> launchArgv(const LaunchRequest& r, const ToolCatalog& catalog) {
    std::vector<std::string> argv;
    if (r.isSweep()) {
        argv = {"sweep", "launch"};
        for (const auto& axis : r.grid) {
            std::string values;
            for (const auto& v : axis.values) values += (values.empty() ? "" : ",") + v;
            argv.insert(argv.end(), {flag(lf::kGrid), axis.key + "=" + values});
        }
        argv.insert(argv.end(), {flag(lf::kRepeats), std::to_string(r.repeats), flag(lf::kOrder),
                                 r.interleaved ? "interleaved" : "sequential"});
    } else {
        argv = {"collect"};
    }
    argv.insert(argv.end(), {flag(lf::kOut), r.outDir});
    for (const auto& tool : r.tools) {
        argv.insert(argv.end(), {flag(lf::kTool), tool.name});
        const ToolSpec* spec = catalog.find(tool.name);
        for (const auto& [key, value] : tool.values) {  // ParamValues is a std::map: key order
            const core::ParamSpec* ps = spec ? core::findSpec(spec->params, key) : nullptr;
            if (ps && value == ps->defaultValue) continue;
            bool ok = false;
            const std::string text = valueText(spec, key, value, ok);
            if (!ok) continue;  // a typed value without a spec has no text form: launchProblems names the tool
            argv.insert(argv.end(), {flag(lf::kToolParam), tool.name + "." + key + "=" + text});
        }
    }
    for (const auto& [key, value] : r.env) argv.insert(argv.end(), {flag(lf::kEnv), key + "=" + value});
    if (!r.python.empty()) argv.insert(argv.end(), {flag(lf::kPython), r.python});
    if (r.slurm) {
        argv.push_back(flag(lf::kSlurm));
        for (const auto& a : r.slurmArgs) argv.insert(argv.end(), {flag(lf::kSlurmArg), a});
    }
    if (r.delaySeconds > 0) argv.insert(argv.end(), {flag(lf::kDelay), number(r.delaySeconds)});
    if (r.durationSeconds > 0) argv.insert(argv.end(), {flag(lf::kDuration), number(r.durationSeconds)});
    if (!r.steps.empty()) argv.insert(argv.end(), {flag(lf::kSteps), r.steps});
    if (r.gpuTelemetry) argv.push_back(flag(lf::kGpuTelemetry));
    if (r.cpuTelemetry) argv.push_back(flag(lf::kCpuTelemetry));
    if (!r.host.empty()) {
        argv.insert(argv.end(), {flag(lf::kHost), r.host});
        if (!r.remoteStrobeCli.empty()) argv.insert(argv.end(), {flag(lf::kRemoteCli), r.remoteStrobeCli});
    }
    argv.push_back("--");
    argv.insert(argv.end(), r.command.begin(), r.command.end());
    return argv;
}

core::Result<LaunchRequest> launchRequestFromFlags(const core::ParamValues& given, std::vector<std::string> command,
                                                   bool sweep) {
    auto bad = [](const std::string& message) { return core::Result<LaunchRequest>(core::Error{message}); };
    LaunchRequest r;
    r.command = std::move(command);
    r.outDir = lf::kOut(given);
    for (const auto& kv : lf::kEnv(given)) {
        const size_t eq = kv.find('=');
        if (eq == std::string::npos || eq == 0) return bad(fmt::format("{} '{}': expected KEY=VALUE", flag(lf::kEnv), kv));
        r.env.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
    for (const auto& name : lf::kTool(given)) r.tools.push_back({name, {}});
    for (const auto& a : lf::kToolParam(given)) {
        const size_t dot = a.find('.'), eq = a.find('=');
        if (dot == std::string::npos || eq == std::string::npos || dot > eq)
            return bad(fmt::format("{} '{}': expected NAME.KEY=VALUE", flag(lf::kToolParam), a));
        const std::string tool = a.substr(0, dot), key = a.substr(dot + 1, eq - dot - 1);
        auto use = std::find_if(r.tools.begin(), r.tools.end(), [&](const LaunchTool& t) { return t.name == tool; });
        if (use == r.tools.end()) r.laterToolParams.push_back(a);
        else use->values[key] = a.substr(eq + 1);
    }
    if (sweep) {
        for (const auto& g : lf::kGrid(given)) {
            GridAxis axis;
            std::string error;
            if (!parseGridAxis(g, axis, error)) return bad(error);
            r.grid.push_back(std::move(axis));
        }
        r.repeats = static_cast<int>(lf::kRepeats(given));
        r.interleaved = lf::kOrder(given) == "interleaved";
    }
    r.python = lf::kPython(given);
    r.slurm = lf::kSlurm(given);
    r.slurmArgs = lf::kSlurmArg(given);
    r.delaySeconds = lf::kDelay(given);
    r.durationSeconds = lf::kDuration(given);
    r.steps = lf::kSteps(given);
    r.gpuTelemetry = lf::kGpuTelemetry(given);
    r.cpuTelemetry = lf::kCpuTelemetry(given);
    r.host = lf::kHost(given);
    r.remoteStrobeCli = lf::kRemoteCli(given);
    return r;
}

void applyLaunchSteps(LaunchRequest& r) {
    if (r.steps.empty()) return;
    for (auto& t : r.tools)
        if (t.name == "torch-profiler") t.values["steps"] = r.steps;
}

std::vector<std::string> launchProblems(const LaunchRequest& r, const ToolCatalog& catalog) {
    std::vector<std::string> problems;
    if (r.command.empty()) problems.push_back("Enter the command to profile.");
    if (r.outDir.empty()) problems.push_back("Choose an output directory.");
    for (const auto& tool : r.tools) {
        const ToolSpec* spec = catalog.find(tool.name);
        if (!spec) {
            problems.push_back(fmt::format("Unknown tool {}.", tool.name));
            continue;
        }
        for (const auto& [key, value] : tool.values) {
            const core::ParamSpec* ps = core::findSpec(spec->params, key);
            if (!ps) problems.push_back(fmt::format("Tool {} has no parameter '{}'.", tool.name, key));
            else if (auto c = core::coerceValue(*ps, value); !c)
                problems.push_back(fmt::format("Tool {}: {}", tool.name, c.error().message));
            else if (const auto* text = std::get_if<std::string>(&*c);
                     text && tool.name == "torch-profiler" && key == "steps" && !text->empty() && !stepsRange(*text) && r.steps.empty())
                problems.push_back(fmt::format("Tool torch-profiler: steps '{}': write A-B, the first and last ProfilerStep "
                                               "to record (0 <= A <= B).", *text));
        }
    }
    for (const auto& [key, value] : r.env)
        if (key.empty() || key.find('=') != std::string::npos)
            problems.push_back(fmt::format("Environment variable '{}={}': the name must be non-empty and without '='.", key, value));
    std::set<std::string> axes;
    for (const auto& axis : r.grid) {
        if (axis.key.empty() || axis.key.find('=') != std::string::npos || axis.values.empty())
            problems.push_back(fmt::format("Sweep row '{}': give a name and comma-separated values.", axis.key));
        else if (!axes.insert(axis.key).second)
            problems.push_back(fmt::format("Sweep key {} appears twice.", axis.key));
    }
    if (!r.slurm && !r.slurmArgs.empty()) problems.push_back("--slurm-arg needs --slurm.");
    if (!r.steps.empty()) {
        if (!stepsRange(r.steps))
            problems.push_back(fmt::format("--steps '{}': write A-B, the first and last ProfilerStep to record (0 <= A <= B).", r.steps));
        if (std::none_of(r.tools.begin(), r.tools.end(), [](const LaunchTool& t) { return t.name == "torch-profiler"; }))
            problems.push_back("--steps needs --tool torch-profiler (its steps are what it records).");
    }
    if (std::string error; !r.host.empty() && !parseRemoteTarget(r.host, error)) problems.push_back(error);
    if (!r.host.empty() && r.slurm)
        problems.push_back("A remote target and Slurm cannot be combined yet: run --slurm on the login node itself.");
    if (!r.command.empty()) {
        // {KEY} of a sweep axis is replaced per run; any other {IDENT} would reach the workload as written.
        std::map<std::string, std::string> point;
        for (const auto& axis : r.grid)
            if (!axis.key.empty()) point[axis.key] = axis.values.empty() ? std::string() : axis.values.front();
        std::vector<std::string> expanded;
        if (std::string error; !expandSweepCommand(r.command, point, expanded, error))
            problems.push_back(fmt::format("Command {}.", error));
    }
    return problems;
}

}  // namespace strobe::collectors
