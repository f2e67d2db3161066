#pragma once
// strobe-cli sweep launch lives beside collect (cmd_collect.cpp: the same tool options and signal handling);
// cmd_sweep.cpp dispatches to it.
#include <string>
#include <vector>

namespace strobe::app {

// `strobe-cli sweep launch ARGS` (args after "launch").
int runSweepLaunch(const std::vector<std::string>& args);

}  // namespace strobe::app
