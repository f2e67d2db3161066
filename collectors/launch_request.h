#pragma once
// One launch, typed (issue 23): what strobe-cli collect / sweep launch are asked to do, as the workbench's Profile
// dialog fills it and strobe-cli's command line parses into it. Qt-free; its flags are declared once here, so the
// argv the dialog writes (launchArgv) and the parser strobe-cli runs (launchRequestFromFlags) cannot drift apart,
// and one validator (launchProblems) says what would stop it before anything starts, for both.
//
// What only a command line has (--grace-ms, --quiet, --param/--repeat of a sweep's run, --in-slurm-job, the remote
// session's plumbing) stays with strobe-cli; what only the dialog knows (whether this machine's tools and output
// directory are ready) stays with the dialog.

#include <string>
#include <utility>
#include <vector>

#include "collectors/sweep_launch.h"
#include "collectors/tool_spec.h"
#include "core/io/error.h"
#include "core/params/param.h"

namespace strobe::collectors {

namespace launch_flags {
inline const core::PathParam kOut{"out", "Output directory", "The run directory", ""};
inline const core::StringListParam kTool{"tool", "Tool", "A tool, outermost first", {}};
inline const core::StringListParam kToolParam{"tool-param", "Tool parameter", "NAME.KEY=VALUE", {}};
inline const core::StringListParam kEnv{"env", "Environment", "KEY=VALUE for the workload", {}};
inline const core::PathParam kPython{"python", "Python", "The workload's Python interpreter (for the torch profiler)", ""};
inline const core::BoolParam kSlurm{"slurm", "Slurm", "Run the whole session as a Slurm job", false};
inline const core::StringListParam kSlurmArg{"slurm-arg", "Slurm argument", "One more sbatch argument", {}};
inline const core::StringListParam kGrid{"grid", "Grid axis", "KEY=V1,V2,...", {}};
inline const core::IntParam kRepeats = core::IntParam{"repeats", "Repeats", "Runs per grid point", 1}.bounded(1, 10000, 1);
inline const core::EnumParam kOrder =
    core::EnumParam{"order", "Order", "sequential or interleaved", "sequential"}.choices({"sequential", "interleaved"});
inline const core::DoubleParam kDelay =
    core::DoubleParam{"delay", "Delay (s)", "Capture starts this many seconds in (torch: after torch is imported)", 0.0}
        .bounded(0, 1e7, 1);
inline const core::DoubleParam kDuration =
    core::DoubleParam{"duration", "Duration (s)", "Capture lasts this many seconds (0: to the end)", 0.0}.bounded(0, 1e7, 1);
inline const core::StringParam kSteps{"steps", "Steps", "A-B: the torch profiler records ProfilerStep#A to #B", ""};
inline const core::BoolParam kGpuTelemetry{"gpu-telemetry", "GPU telemetry", "amd-smi or nvidia-smi, by the GPUs found", false};
inline const core::BoolParam kCpuTelemetry{"cpu-telemetry", "CPU telemetry", "The CPU/memory sampler (cpu-sampler)", false};
inline const core::StringParam kHost{"host", "Host", "[USER@]HOST[:PORT]: run the session there over ssh", ""};
inline const core::StringParam kRemoteCli{"remote-strobe-cli", "Remote strobe-cli", "strobe-cli's path on --host", ""};
}  // namespace launch_flags

struct LaunchTool {
    std::string name;
    core::ParamValues values;  // on top of the spec's defaults; only those that differ go on a command line
};

struct LaunchRequest {
    std::vector<std::string> command;                       // the workload's argv (after --)
    std::string workingDir;                                 // strobe-cli's working directory (not a flag); empty: ours
    std::vector<std::pair<std::string, std::string>> env;   // --env, in order
    std::vector<LaunchTool> tools;                          // --tool/--tool-param, outermost first
    std::vector<GridAxis> grid;                             // --grid; non-empty: sweep launch
    int repeats = 1;
    bool interleaved = false;
    std::string outDir;
    std::string python;                                     // --python
    bool slurm = false;
    std::vector<std::string> slurmArgs;                     // --slurm-arg each
    double delaySeconds = 0, durationSeconds = 0;           // --delay, --duration
    std::string steps;                                      // --steps A-B: torch-profiler's steps parameter
    bool gpuTelemetry = false, cpuTelemetry = false;
    std::string host, remoteStrobeCli;                      // --host, --remote-strobe-cli
    // strobe-cli only: --tool-param NAME.KEY=VALUE naming no --tool, for a tool a madengine context (--context,
    // --additional-context) adds; applied once the context is (an error then when no tool has that name).
    std::vector<std::string> laterToolParams;

    bool isSweep() const { return !grid.empty(); }
};

// strobe-cli's arguments for `r` (without the program): `collect`, or `sweep launch --grid ... --repeats N --order O`
// with a grid; then --out, each --tool followed by its --tool-param NAME.KEY=VALUE for the values that differ from
// the spec's default (core::valueToString, in key order; a tool `catalog` lacks passes its string values as given),
// each --env, --python, --slurm with each --slurm-arg, --delay/--duration/--steps when set, the telemetry flags, --host
// [--remote-strobe-cli], and `--` with the command.
std::vector<std::string> launchArgv(const LaunchRequest& r, const ToolCatalog& catalog);

// The request of a parsed command line: `given` holds the flags above as strobe-cli's parser coerced them (absent
// ones take their defaults), `command` what follows --. --tool-param values stay text (launchProblems coerces them
// by the spec); an ill-formed --env, --tool-param or --grid is an Error naming the option and the value.
core::Result<LaunchRequest> launchRequestFromFlags(const core::ParamValues& given, std::vector<std::string> command,
                                                   bool sweep);

// --steps A-B is the torch profiler's `steps` parameter (ProfilerStep#A to #B; it sets the schedule's wait and
// active): applyLaunchSteps puts it there.
void applyLaunchSteps(LaunchRequest& r);

// What stops `r` from starting, one sentence each, in this order (empty: it can start): no command, no output
// directory, a tool `catalog` does not know (with `adhocTools`: names a madengine context added), a tool parameter
// the spec lacks or whose value it refuses, an environment row without a name or with '=' in it, a grid row without
// a key or values or a key given twice, --slurm-arg without --slurm, --steps that is not A-B (0 <= A <= B) or without
// the torch profiler, a host that is not [USER@]HOST[:PORT], a host
// with Slurm, and an unreplaced {IDENT} in the command (expandSweepCommand's rule: {KEY} of a grid axis is replaced,
// {{ is a literal brace, other braces stay). This machine's state (tools installed, the output directory empty) is
// not looked at: the session refuses those itself, and the dialog checks them as it goes.
std::vector<std::string> launchProblems(const LaunchRequest& r, const ToolCatalog& catalog);

}  // namespace strobe::collectors
