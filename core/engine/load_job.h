#pragma once
// The one load of a run (issue 19): every front end — the GUI's run manager and every strobe-cli command that loads
// — submits this job to the one JobRunner. Inside the job: the paths are expanded and their sources detected once;
// the run's estimated peak is refused up front when it can never fit the limit (MemoryBudget::check) and otherwise
// reserved once from the runner's memory gate (waiting for room while other loads hold it); the ranks load in
// parallel through the load cache and are merged (core::loadRun's work, on the detected sources); each rank is
// summarised; progress passes one throttle (the loader's, ~30 Hz) on its way to the caller and the jobs panel; a
// cancel stops it between and inside the steps.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/analysis/summary.h"
#include "core/engine/job_runner.h"
#include "core/engine/run_loader.h"

namespace strobe::core {

// The stage a load reports while it waits for room in the memory limit.
inline constexpr const char* kWaitingForMemoryStage = "waiting for memory";

struct LoadJobResult {
    DatasetPtr dataset;
    std::vector<RankSummary> summaries;  // one per rank, same order as dataset->ranks
    std::vector<std::string> files;      // the run's sources (one path each), as expanded
    double seconds = 0.0;
};

// What a load tells while it runs; all optional, called on the job's worker thread (never two at once).
struct LoadJobEvents {
    std::function<void()> onStarted;  // a worker took the job (it is no longer queued)
    std::function<void(const std::vector<std::string>& files)> onExpanded;  // the sources, before loading
    std::function<void(size_t fileIndex, const TraceInfo&)> onMetadata;
    ProgressFn onProgress;  // the loader's throttled reports, and the job's own stages (waiting for memory, summary)
};

// Loads the expanded sources (the loader: core::loadRun or a test's stand-in). Must honour callbacks.cancel.
using LoadFunction = std::function<Result<DatasetPtr>(const std::vector<std::string>&, const RunLoadOptions&,
                                                      const RunCallbacks&)>;

// The load, run inside a job (ctx: its cancel token, progress and memory gate). An Error "cancelled" when cancelled;
// an Error naming the file when the paths hold no source or the run can never fit the memory limit.
Result<LoadJobResult> runLoadJob(const JobContext& ctx, const std::vector<std::string>& paths,
                                 const RunLoadOptions& options, const LoadJobEvents& events = {},
                                 const LoadFunction& load = {});

// Submits runLoadJob to `runner` in `slot` (named `name` in the jobs list); `done` gets its result on the worker
// thread, also when the job is cancelled (an Error "cancelled") — never when superseded. Returns the generation (0:
// refused, the runner is shutting down; `done` is then not called).
uint64_t submitLoadJob(JobRunner& runner, const std::string& slot, const std::string& name,
                       std::vector<std::string> paths, RunLoadOptions options,
                       std::function<void(uint64_t generation, Result<LoadJobResult>)> done,
                       LoadJobEvents events = {}, LoadFunction load = {});

// Loads every run of `runs` (one set of paths each) through `runner`, side by side within its memory limit, and
// waits for them all: results in the order given. `onLoaded(i)` is called as each one ends (any thread, serialised).
std::vector<Result<LoadJobResult>> loadRunsThroughJobs(JobRunner& runner,
                                                       const std::vector<std::vector<std::string>>& runs,
                                                       const RunLoadOptions& options,
                                                       const std::function<void(size_t index)>& onLoaded = {});

}  // namespace strobe::core
