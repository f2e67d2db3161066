#pragma once
// Slurm (issue 10, "Past one machine"): how a profiling session is handed to Slurm, as data. The spec
// (resources/slurm.yaml, replaced by <XDG config>/strobe/slurm.yaml) holds the argv templates of the submit, state
// and cancel commands, the batch script's command, and the regexes that read the job id, state and exit back.
// collectors/session.h runs the submission (SessionOptions::slurm); this header holds the parts that are plain
// functions of text: the spec, the template expansion, the batch script, the state parser, and what a process
// learns from its environment when it runs inside a job.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/io/error.h"

namespace strobe::collectors {

struct SlurmSpec {
    std::vector<std::string> submit;       // prints the job id; "{slurm_args}" becomes the user's --slurm-arg's
    std::string jobIdRegex;                // its first group is the job id, in submit's stdout
    std::vector<std::string> launch;       // the batch script's command; "{collect}" becomes strobe-cli collect's argv
    std::vector<std::string> state;        // prints the job's state
    std::string stateRegex, exitRegex;     // JobState=..., ExitCode=<code>:<signal>
    std::vector<std::string> endedStates;  // states after which the job has nothing left running
    std::vector<std::string> cancel;
    int pollMs = 300;
    std::string source;                    // the file it was read from
};

// Parses a spec; errors name `source` and the line.
core::Result<SlurmSpec> parseSlurmSpec(const std::string& text, const std::string& source);
// The user's <XDG config>/strobe/slurm.yaml when there is one, else the shipped resources/slurm.yaml.
core::Result<SlurmSpec> loadSlurmSpec();

// Expands an argv template: an argument that is exactly "{NAME}" with NAME in `lists` becomes that list (zero or
// more arguments); every other argument goes through expandTemplate (tool_spec.h) with `vars`.
core::Result<std::vector<std::string>> expandSlurmArgv(const std::vector<std::string>& argv,
                                                       const std::map<std::string, std::string>& vars,
                                                       const std::map<std::string, std::vector<std::string>>& lists);

// s in single quotes for /bin/sh ('it'\''s'); words of safe characters only are left bare.
std::string shellQuote(const std::string& s);
// The batch script: a comment saying what wrote it (`writtenBy`) and how it was submitted, then `exec` of `command`.
std::string batchScript(const std::vector<std::string>& command, const std::vector<std::string>& submitArgv,
                        const std::string& writtenBy =
                            "strobe-cli collect --slurm: the run's whole profiling session, inside the job.");

struct SlurmJobState {
    std::string state;  // "" when the text names none
    std::optional<int> exitCode, exitSignal;
    bool ended = false;  // state is one of the spec's ended states
};
SlurmJobState parseJobState(const SlurmSpec& spec, const std::string& text);
// The job id in submit's output, or "".
std::string parseJobId(const SlurmSpec& spec, const std::string& text);

// What a process learns from its environment about the Slurm job it runs in.
struct SlurmTask {
    std::string jobId;   // SLURM_JOB_ID; "" outside a job
    int rank = 0;        // SLURM_PROCID
    int localRank = 0;   // SLURM_LOCALID
    int tasks = 1;       // SLURM_STEP_NUM_TASKS: the tasks of this srun step (1 outside a step, e.g. a batch script)
};
SlurmTask slurmTaskFromEnvironment();
// The variables a distributed workload reads, from the task's (only those the environment does not set already):
// RANK, LOCAL_RANK, WORLD_SIZE.
std::map<std::string, std::string> rankVariables(const SlurmTask& task);

}  // namespace strobe::collectors
