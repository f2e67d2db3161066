#pragma once
// The sweep launcher (issue 10): a grid of values (each axis becomes an environment variable of the workload, and
// {AXIS} in its arguments is replaced), N repeats, run one profiling session (collectors/session.h) per point and
// repeat under one sweep directory:
//   <sweep>/sweep.yaml                      strobe_sweep: 1, the axes and every planned run
//   <sweep>/<axis=value,axis=value>/rep<R>/ one run directory each, with its manifest (parameters, repeat)
// Order: sequential (every repeat of a point, then the next point) or interleaved (every point once, then again:
// repeats spread over time, so drift does not masquerade as a parameter's effect). Resumable: a run whose manifest
// says completed is skipped; one that did not complete is moved into <sweep>/.incomplete/ and run again.

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

// Every run of the grid in launch order.
std::vector<SweepPoint> planSweep(const std::vector<GridAxis>& grid, int repeats, bool interleaved);

struct SweepLaunchResult {
    int completed = 0, skipped = 0, failed = 0;
    bool cancelled = false;
    std::string refusal;  // why nothing (more) could start
    int exitCode = 0;     // 0 all completed; 1 some failed; 125 refused; 128 + signal when cancelled
};

// Runs the sweep. `base` is the session of one run (command with {AXIS} placeholders, tools, grace); its outDir,
// parameters and repeat are set per run. `log` gets one line per run and the sessions' lines.
SweepLaunchResult launchSweep(const std::string& sweepDir, const std::vector<GridAxis>& grid, int repeats,
                              bool interleaved, const SessionOptions& base, const ToolCatalog& catalog,
                              const std::atomic<int>& stopSignal,
                              const std::function<void(const std::string&)>& log = {});

}  // namespace strobe::collectors
