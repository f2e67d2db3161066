#pragma once
// The two renderings of `strobe-cli summary`, exposed so that tests check them on hand-built runs.

#include <string>

#include "core/analysis/summary.h"
#include "core/model/dataset.h"

namespace strobe::app {

// Readable per-rank blocks followed by run-level warnings.
std::string summaryText(const core::RunSummary& run, const core::Dataset& dataset);
// One JSON document; its keys are stable and documented in README.md ("strobe-cli summary --json").
std::string summaryJson(const core::RunSummary& run, const core::Dataset& dataset);

}  // namespace strobe::app
