#pragma once
// Discovery of the runs of a parameter sweep (issue 9, DESIGN.md "Files that connect the jobs"). Discovery only
// finds runs and their parameter values; loading them is core/engine's loadRun. This first part covers rocprof
// manifest.yaml, sweep.yaml, user patterns, `cmd` files and directory names (key=value, key_value, the AORTA
// layout, rep<N>/repeat<N>/run<N>).

#include <map>
#include <string>
#include <variant>
#include <vector>

#include "core/io/progress.h"
#include "core/model/run_manifest.h"
#include "core/model/run_set.h"

namespace strobe::core::sweep {

// One axis value, typed per axis: int if every value of the axis is an integer, else float, else string.
using AxisValue = RunValue;
inline std::string axisValueText(const AxisValue& value) { return runValueText(value); }

struct SweepDiscovery {
    // Each run: label, path (paths[0]: its directory), typed parameters over `axes` (kAbsentValue for an axis it
    // lacks), repeat (0-based among the runs of its configuration), configurationKey (core::configurationKey over the
    // axes; "" without axes) and, for runs found by their manifest.yaml, the manifest. No dataset.
    RunSet runs;
    std::vector<std::string> axes;
    std::vector<std::string> messages;  // which rule found the runs, and what was ignored
    bool cancelled = false;             // cancelled before it finished (then `runs` is empty)
};

// Text used for an argument a shorter command line lacks.
inline constexpr const char* kAbsentValue = "(absent)";

// Finds the runs under each path (a run directory, or a directory of run directories). Precedence per path:
// manifest.yaml files, then <path>/sweep.yaml, then `pattern` when given ("{threads}thread/nccl_{channels}channels",
// {repeat} marks the repeat number), then rocprof `cmd` files, then directory names.
// `cancel` is polled between run directories: a cancelled discovery returns soon after with `cancelled` set and no
// runs (what was found so far would be an arbitrary subset).
// A run whose manifest says it did not complete is listed in `messages` with its status and reason and left out;
// `includeIncomplete` keeps the incomplete ones (the workload completed, a tool wrote nothing: issue 23), said so.
SweepDiscovery discoverSweep(const std::vector<std::string>& paths, const std::string& pattern = {},
                             const CancelToken& cancel = CancelToken(), bool includeIncomplete = false);

// Splits a rocprof `cmd` file's content into argv: commas or whitespace separate arguments.
std::vector<std::string> splitCommandLine(const std::string& text);

}  // namespace strobe::core::sweep
