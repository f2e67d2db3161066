#pragma once
// Discovery of the runs of a parameter sweep (issue 9, DESIGN.md "Files that connect the jobs"). Discovery only
// finds runs and their parameter values; loading them is core/engine's loadRun. This first part covers rocprof
// manifest.yaml, sweep.yaml, user patterns, `cmd` files and directory names (key=value, key_value, the AORTA
// layout, rep<N>/repeat<N>/run<N>).

#include <map>
#include <string>
#include <variant>
#include <vector>

#include "core/analysis/sweep_compare.h"
#include "core/model/run_manifest.h"

namespace strobe::core::sweep {

// One axis value, typed per axis: int if every value of the axis is an integer, else float, else string.
using AxisValue = RunValue;
inline std::string axisValueText(const AxisValue& value) { return runValueText(value); }

struct SweepRun {
    std::string label;
    std::string path;
    std::map<std::string, AxisValue> parameters;
    int repeat = 0;                 // 0-based index among runs of the same configuration
    std::string configurationKey;   // "axis=value,axis=value" over the axes, in axis order
};

struct SweepDiscovery {
    std::vector<SweepRun> runs;
    std::vector<std::string> axes;
    std::vector<std::string> messages;  // which rule found the runs, and what was ignored
};

// Text used for an argument a shorter command line lacks.
inline constexpr const char* kAbsentValue = "(absent)";

// Finds the runs under each path (a run directory, or a directory of run directories). Precedence per path:
// manifest.yaml files, then <path>/sweep.yaml, then `pattern` when given ("{threads}thread/nccl_{channels}channels",
// {repeat} marks the repeat number), then rocprof `cmd` files, then directory names.
SweepDiscovery discoverSweep(const std::vector<std::string>& paths, const std::string& pattern = {});

// Splits a rocprof `cmd` file's content into argv: commas or whitespace separate arguments.
std::vector<std::string> splitCommandLine(const std::string& text);

// The run's identity as core/analysis' sweep comparison takes it (axis values as text).
SweepRunInfo toRunInfo(const SweepRun& run);

}  // namespace strobe::core::sweep
