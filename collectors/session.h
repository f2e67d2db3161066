#pragma once
// A profiling session (issue 10): one workload under a stack of tools, into one run directory with its manifest.
//
// Tools are listed outermost first. Set-up in that order: sidecars start (each in its own process group, its
// stdout into its file when the spec says so), env tools add their variables, prefix tools wrap the command
// (outermost first: `rocprofv3 ... -- nsys ... -- python train.py`); the workload starts once every sidecar has
// written its first output (sidecarStart at most: a slow sampler is not stopped before it began). The workload is
// stop-when-complete: when it ends, sidecars are stopped in reverse order (SIGTERM, then SIGKILL after the grace
// period), which lets them flush. Cancel (a stop request) does the same to the workload first. Every process is tracked with its
// descendants (collectors/process_tree.h: process groups plus a child subreaper), so nothing is left behind.
//
// Refused before anything starts, with the reason (and no directory written): an unknown tool, a tool whose probe
// fails, a tool for the other GPU vendor, conflicting tools, an output directory that is not empty or cannot be
// written, a command that is not found (127) or cannot run (126).
//
// Slurm (`slurm`): the whole session runs inside a Slurm job instead (collectors/slurm.h; the commands and
// templates are data, resources/slurm.yaml). The run directory gets a batch script (slurm-job.sh) whose command is
// `srun strobe-cli collect --in-slurm-job ...` with the same tools, parameters and command; it is submitted with
// sbatch (plus `slurmArgs`), the manifest records the job id (slurm_job) at once, and the job's state is polled
// until it ends. The session inside the job writes the run's manifest (status, exit, tools, files); its exit is
// this one's. Cancel runs scancel on the job (the session inside stops its tools on the SIGTERM Slurm sends and
// writes status: cancelled), waits for the job to end, and ends cancelled (130/143). Refused (125) when a Slurm
// command is not found, the spec cannot be read, or sbatch refuses the job.
//
// Inside a Slurm job (SLURM_JOB_ID set, however the session was started), the manifest records the job id, and the
// workload gets RANK, LOCAL_RANK and WORLD_SIZE from SLURM_PROCID, SLURM_LOCALID and SLURM_STEP_NUM_TASKS when
// they are unset; when the srun step has several tasks, each task's run directory is <outDir>/rank<SLURM_PROCID>.

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/manifest.h"
#include "collectors/tool_spec.h"
#include "core/params/param_spec.h"

namespace strobe::collectors {

struct ToolUse {
    std::string name;
    core::ParamValues values;  // on top of the spec's defaults
};

struct SessionOptions {
    std::string outDir;
    std::vector<std::string> command;           // argv of the workload
    std::string cwd;                            // empty: this process' working directory
    std::string python;                         // the workload's interpreter ({python}); empty: findPython(command)
    std::map<std::string, std::string> env;     // extra variables for the workload
    std::vector<ToolUse> tools;                 // outermost first
    std::map<std::string, std::string> parameters;  // the sweep point, recorded in the manifest
    std::optional<int> repeat;
    std::chrono::milliseconds grace{5000};
    // How long the workload waits for the sidecars to begin (their first output on disk) before it starts anyway.
    std::chrono::milliseconds sidecarStart{10000};
    std::string strobeCli;                      // for {strobe_cli}; empty: strobeCliPath()
    bool slurm = false;                         // submit the whole session as a Slurm job
    std::vector<std::string> slurmArgs;         // more sbatch arguments ({slurm_args} in the spec's submit)
    std::string runName;                        // the job's name is strobe-<runName>; empty: outDir's file name
    bool inSlurmJob = false;                    // the session inside the job: outDir was prepared by the submitter
    // The workload's output (stdout and stderr together, as written to workload.log) in pieces as it comes, while
    // it runs: how strobe-cli collect streams it. Not called when empty.
    std::function<void(std::string_view)> output;
    size_t failureLines = 20;                   // a failed run's last lines kept in the manifest (failure:)
    // --delay / --duration (seconds; 0: none): {delay} and {duration} in the tools' templates (the torch profiler's
    // capture window), recorded in the manifest's messages when set.
    double delaySeconds = 0, durationSeconds = 0;
    // Remote launch (collectors/remote.h): the whole session runs on this host over the system's ssh client.
    std::string remoteHost;                     // [USER@]HOST[:PORT]; empty: here
    std::string remoteStrobeCli;                // strobe-cli there; empty: strobe-cli on the remote PATH
    std::string remoteOutDir;                   // the run directory there; empty: strobe-runs/<name>-<time>-<pid>
    std::vector<std::string> sshArgs;           // more ssh options, before the host (-F FILE, -i KEY, -o K=V)
    bool detach = false;                        // a lost connection leaves the remote run running to its end
    std::vector<std::string> remoteFlags;       // more collect options for the remote strobe-cli (--gpu-telemetry)
};

// What a run exits with when its workload completed but a tool asked for wrote nothing (status: incomplete).
inline constexpr int kIncompleteExit = 4;

struct SessionResult {
    // refused | completed | incomplete | failed | cancelled
    std::string status;
    // What strobe-cli collect exits with: the workload's status (128 + signal when killed), 125 when refused,
    // 126/127 when the command cannot run / is not found, 130/143 when cancelled by SIGINT/SIGTERM.
    int exitCode = 0;
    std::string reason;  // why it was refused, or "" when it ran
    RunManifest manifest;
};

// The strobe-cli collect command line that runs `o`'s session elsewhere (inside a Slurm job, on a remote host):
// strobeCli collect `modeFlags` --out outDir, the tools and their parameters, grace, capture window, parameters,
// repeat and environment, then -- and the command.
std::vector<std::string> collectCommandLine(const SessionOptions& o, const ToolCatalog& catalog, const std::string& outDir,
                                            const std::string& strobeCli, const std::vector<std::string>& modeFlags);

// Runs the session to its end. `stopSignal` (0: none) cancels it when set to the signal that asked (SIGINT,
// SIGTERM); `log` receives progress lines ("started sidecar cpu-sampler (pid 123)").
SessionResult runSession(const SessionOptions& options, const ToolCatalog& catalog, const std::atomic<int>& stopSignal,
                         const std::function<void(const std::string&)>& log = {});

}  // namespace strobe::collectors
