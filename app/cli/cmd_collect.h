#pragma once
// strobe-cli sweep launch lives beside collect (cmd_collect.cpp: the same tool options and signal handling);
// cmd_sweep.cpp dispatches to it.
#include <string>
#include <vector>

#include "collectors/launch_request.h"
#include "core/io/error.h"

namespace strobe::app {

// `strobe-cli sweep launch ARGS` (args after "launch").
int runSweepLaunch(const std::vector<std::string>& args);

// strobe-cli's own reading of a launch command line (`collect ...` or `sweep launch ...`, as launchArgv writes it):
// the same option table and parser the commands use, into the typed request. For the round-trip test of the
// workbench's launcher (what the dialog writes is what strobe-cli reads).
core::Result<collectors::LaunchRequest> parseLaunchCommandLine(const std::vector<std::string>& argv);

}  // namespace strobe::app
