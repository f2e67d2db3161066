#pragma once
// The sweep report (issue 9): one self-contained HTML page comparing the configurations of a sweep, N-way, that
// opens offline (inline CSS and SVG, no script, nothing fetched) — the noise statement, step time per configuration
// with its change against the baseline and corrected interval, the GPU's busy and idle time, the configuration table,
// GPU time per category, the top kernel groups, the communication/computation overlap and the collectives per
// configuration (core/analysis/collectives.h). Its charts are the GUI's plots (step-time-box, delta-bars,
// group-time-dist per top group, sweep-heatmap over the first two axes) rendered by plots::renderToSvg, so building
// it needs a QGuiApplication (QT_QPA_PLATFORM=offscreen works), as strobe-cli plot does.
// Every table is also returned as CSV, written beside the page and linked from it.

#include <string>
#include <utility>
#include <vector>

#include "core/analysis/sweep_compare.h"

namespace strobe::plots {

struct SweepReportOptions {
    std::string title = "Sweep report";
    std::string baseline;             // as SweepCompareOptions::baseline; empty: core::defaultSweepBaseline
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
