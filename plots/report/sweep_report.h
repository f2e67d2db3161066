#pragma once
// The sweep report (issue 9): one self-contained HTML page comparing the configurations of a sweep, N-way, that
// opens offline (inline CSS and SVG, no script, nothing fetched) — the configuration table, the noise statement,
// the top kernel groups with their change against a baseline and its corrected confidence interval, a box plot of
// each top group's time per step per configuration, the GPU time per category per configuration, the
// communication/computation overlap per configuration, a heatmap over the first two axes when there are two, and
// the collectives per configuration and type (core/analysis/collectives.h).
// Every table is also returned as CSV, written beside the page and linked from it.

#include <string>
#include <utility>
#include <vector>

#include "core/analysis/sweep_compare.h"

namespace strobe::plots {

struct SweepReportOptions {
    std::string title = "Sweep report";
    std::string baseline;             // as SweepCompareOptions::baseline; empty: the first configuration's first run
    int top = 10;                     // kernel groups compared and plotted
    int skipSteps = 0;
    core::SweepGroupBy groupBy = core::SweepGroupBy::Name;
    std::string groupRegex;           // SweepGroupBy::Regex
    std::string csvPrefix = "report";  // CSV files are linked as <csvPrefix>-<table>.csv
};

struct SweepReport {
    std::string html;
    std::vector<std::pair<std::string, std::string>> csv;  // file name (<csvPrefix>-<table>.csv), contents
    std::vector<std::string> messages;                      // what the comparison said (also in the page)
};

// The runs (loaded: RunEntry::dataset set) are pooled into configurations by RunEntry::key().
SweepReport buildSweepReport(const core::RunSet& runs, const SweepReportOptions& options);

}  // namespace strobe::plots
