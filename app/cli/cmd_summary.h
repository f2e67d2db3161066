#pragma once
// The two renderings of `strobe-cli summary`, exposed so that tests check them on hand-built runs.

#include <string>

#include "core/analysis/summary.h"
#include "core/model/dataset.h"
#include "core/model/run_set.h"

namespace strobe::app {

// Readable per-rank blocks followed by run-level warnings. With `entry`, what the run is comes first (its sweep
// point and, from its manifest, tools, host and clocks: core::runFacts).
std::string summaryText(const core::RunSummary& run, const core::Dataset& dataset, const core::RunEntry* entry = nullptr);
// One JSON document; its keys are stable and documented in README.md ("strobe-cli summary --json"). With `entry`,
// "run" holds its typed parameters, repeat, manifest path and facts.
std::string summaryJson(const core::RunSummary& run, const core::Dataset& dataset, const core::RunEntry* entry = nullptr);

}  // namespace strobe::app
