#pragma once
// End-to-end step times of a run, shared by the sweep plots (step-time-box, sweep-interaction): for every
// ProfilerStep#N, from the earliest rank's start of step N to the latest rank's end of it (the rank that arrives
// last decides), in step-number order.

#include <cstdint>
#include <utility>
#include <vector>

#include <string>

#include "core/model/dataset.h"
#include "core/model/run_set.h"

namespace strobe::plots {

// (step number, end-to-end ns) of every step after the first `skip` ones; empty without ProfilerSteps.
std::vector<std::pair<int64_t, double>> endToEndStepTimes(const core::Dataset& run, int64_t skip);

// The sweep configuration of a run: "axis=value, ..." from its parameters, else its label (a configuration alone).
std::string configurationLabel(const core::RunEntry& run);

}  // namespace strobe::plots
