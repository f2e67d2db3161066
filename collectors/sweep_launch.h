#pragma once
// The sweep launcher (issue 10): a grid of values (each axis becomes an environment variable of the workload, and
// {AXIS} in its arguments is replaced), N repeats, run one profiling session (collectors/session.h) per point and
// repeat under one sweep directory:
//   <sweep>/sweep.yaml                      strobe_sweep: 1, the axes and every planned run
//   <sweep>/<axis=value,axis=value>/rep<R>/ one run directory each, with its manifest (parameters, repeat)
// Order: sequential (every repeat of a point, then the next point) or interleaved (every point once, then again:
// repeats spread over time, so drift does not masquerade as a parameter's effect). Resumable: a run whose manifest
// says completed is skipped; one that did not complete is moved into <sweep>/.incomplete/ and run again. Resuming
// needs the same plan: sweep.yaml records it (command, tools and their parameters, grid, repeats) and another is
// refused (exit 2) saying what differs; a sweep.yaml of an older launch without a plan resumes only when its runs
// and every manifest's command and tools agree, and then gets the plan recorded. --order may change on resume.

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "collectors/session.h"

namespace strobe::collectors {

struct GridAxis {
    std::string key;
    std::vector<std::string> values;
};

// "KEY=V1,V2,..." -> axis; false with `error` on a malformed one.
bool parseGridAxis(const std::string& text, GridAxis& axis, std::string& error);

struct SweepPoint {
    std::map<std::string, std::string> parameters;
    int repeat = 0;
    std::string relDir;  // "bs=64,threads=4/rep0"
};

// One point's command: {KEY} is replaced by the point's value of KEY, "{{" is a literal "{", other braces (JSON
// arguments, a lone "{") stay as written; an unreplaced {IDENT} is an error naming the argument and the keys.
bool expandSweepCommand(const std::vector<std::string>& command, const std::map<std::string, std::string>& point,
                        std::vector<std::string>& out, std::string& error);

// The plan sweep.yaml records (command as given, tools with every parameter's value, grid, repeats).
core::SweepPlan sweepPlanOf(const SessionOptions& base, const std::vector<GridAxis>& grid, int repeats,
                            const ToolCatalog& catalog);

// Every run of the grid in launch order.
std::vector<SweepPoint> planSweep(const std::vector<GridAxis>& grid, int repeats, bool interleaved);

struct SweepLaunchResult {
    int completed = 0, skipped = 0, failed = 0;
    int incomplete = 0;   // the workload completed, a tool wrote nothing (status: incomplete, with the reason)
    bool cancelled = false;
    std::string refusal;  // why nothing (more) could start
    // 0 all completed; 1 some failed or incomplete; 2 another plan than the directory's, or an unreplaced {IDENT};
    // 125 refused; 128 + signal when cancelled
    int exitCode = 0;
};

// Runs the sweep. `base` is the session of one run (command with {AXIS} placeholders, tools, grace); its outDir,
// parameters and repeat are set per run. `log` gets one line per run and the sessions' lines.
SweepLaunchResult launchSweep(const std::string& sweepDir, const std::vector<GridAxis>& grid, int repeats,
                              bool interleaved, const SessionOptions& base, const ToolCatalog& catalog,
                              const std::atomic<int>& stopSignal,
                              const std::function<void(const std::string&)>& log = {});

}  // namespace strobe::collectors
