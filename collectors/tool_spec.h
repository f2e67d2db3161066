#pragma once
// Tools as data (issue 10; DESIGN.md "Files that connect the jobs"): a tool spec says how a profiler or sampler
// joins a profiling session. Kinds:
//   prefix  — wraps the workload's command (rocprofv3, nsys, ncu): its `command` is put before the workload's argv;
//   env     — works through environment variables the workload honours (the torch-profiler contract, library-call
//             logging);
//   sidecar — a sampler that runs beside the workload and is stopped (SIGTERM, then a grace period to flush) when
//             the workload ends.
// Shipped specs live in resources/tools/*.yaml; a user's in <XDG config>/strobe/tools/*.yaml (one with a shipped
// spec's name replaces it). Each has typed parameters (core ParamSpec, so the GUI builds their widgets), outputs
// with the format each holds, the vendor it needs, a probe (installed? which version?) and the tools it conflicts
// with. Templates name values in braces: {out} (the run directory), {strobe_cli}, {python_dir} (the shipped Python
// helpers), {python} (the workload's interpreter: findPython, or --python), {delay} and {duration} (collect's
// --delay/--duration in seconds, 0 when not given), {env.NAME} (this process' NAME), and the tool's parameter keys.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/error.h"
#include "core/params/param_spec.h"

namespace strobe::collectors {

enum class ToolKind { Prefix, Env, Sidecar };
const char* toString(ToolKind kind);

struct ToolOutput {
    std::string glob;    // relative to the run directory ("torch/*.json", "cpu.csv")
    std::string format;  // what it holds ("kineto-json", "strobe-sampler-csv", "rocprofv3-csv", ...)
    bool readByStrobe = true;
    // When set, a matching file counts as the tool's output only if it holds this text: a log that shares the
    // workload's own output (workload.log) exists after every run, so its presence proves nothing.
    std::string contains;
};

struct ToolSpec {
    std::string name, description;
    ToolKind kind = ToolKind::Sidecar;
    std::string vendor = "any";              // any | amd | nvidia
    std::vector<std::string> probe;          // argv printing the version; empty: always available
    std::string versionRegex;                // its first capture group is the version
    std::vector<std::string> command;        // prefix: before the workload; sidecar: the sampler's argv
    std::string stdoutFile;                  // sidecar: its stdout goes to this file in the run directory
    std::map<std::string, std::string> env;  // set for the workload (env and prefix kinds)
    std::vector<core::ParamSpec> params;
    // The first output is what the tool must leave: a run whose workload completed with no non-empty file matching
    // its glob ends `incomplete` ("torch-profiler wrote no trace: ..."), `noOutputHint` added to the reason.
    std::vector<ToolOutput> outputs;
    std::string noOutputHint;                // no_output_hint: what usually causes it
    std::vector<std::string> conflicts;
    // split_args: parameters whose value is several arguments: a `command` element that is exactly "{KEY}" becomes
    // one argument per blank-separated word (rocprofv3's trace kinds, amd-smi's metric fields).
    std::vector<std::string> splitArgs;
    std::string source;                      // the file it was read from
};

// Parses one spec; errors name `source` and the line.
core::Result<ToolSpec> parseToolSpec(const std::string& text, const std::string& source);

struct ToolCatalog {
    std::vector<ToolSpec> tools;        // by name
    std::vector<std::string> messages;  // specs that could not be read, user specs that replaced shipped ones
    const ToolSpec* find(std::string_view name) const;
};
// The shipped specs (resources/tools), then the user's (<XDG config>/strobe/tools), by name.
ToolCatalog loadToolCatalog();
ToolCatalog loadToolCatalog(const std::vector<std::string>& dirs);

struct ToolProbe {
    bool available = false;
    std::string version;  // "" when the probe printed none
    std::string message;  // why it is not available
};
// Runs the spec's probe (at most 10 s); `vars` expand its argv.
ToolProbe probeTool(const ToolSpec& spec, const std::map<std::string, std::string>& vars);

// Expands {name} placeholders from `vars` and {env.NAME} from this process' environment (unset: empty). An
// unknown name is an error naming it; "{{" and "}}" are literal braces.
core::Result<std::string> expandTemplate(std::string_view text, const std::map<std::string, std::string>& vars);

// The variables a tool's templates see: the built-in ones and its parameter values (defaults under `values`),
// each as its string form. Errors name the tool and the parameter.
core::Result<std::map<std::string, std::string>> toolVariables(const ToolSpec& spec, const core::ParamValues& values,
                                                               const std::map<std::string, std::string>& builtins);

// strobe-cli next to this executable (or this executable when it is strobe-cli).
std::string strobeCliPath();

// The workload's Python interpreter ({python}): the command itself when it is python, python3, python3.11...;
// else the interpreter in the shebang of the command's file (torchrun, accelerate, deepspeed, a wrapper script with
// a Python shebang; "#!/usr/bin/env python3" gives python3); for a shell script (#!/bin/sh, bash, dash, zsh), the
// Python its first running line starts ("exec /usr/bin/python3 train.py"); else python3 on PATH. `how` (optional)
// says which.
std::string findPython(const std::vector<std::string>& command, std::string* how = nullptr);

}  // namespace strobe::collectors
