#pragma once
// The one-run report (issue 30): one self-contained page on one run — its facts (platform, GPUs, ranks, steps; from
// its manifest.yaml when it has one: command, environment differences, tools, host), step time and its spread
// (median, p5, p95 over every step of every rank), the temporal breakdown, the top kernels and operators, MFU where
// the shapes allow, and the findings (core/analysis/findings.h), each with its evidence, what to try and the GUI's
// plot that shows it. HTML: inline CSS and SVG, no script, nothing fetched (plots/report/report_html.h, as the sweep
// report). Markdown: the same sections as text tables, for pasting into issues; its pictures are PNG files written
// beside the .md and linked relatively (RunReport::files). Drawing needs a QGuiApplication.

#include <string>
#include <utility>
#include <vector>

#include "core/analysis/findings.h"
#include "core/model/run_set.h"

namespace strobe::plots {

enum class RunReportFormat { Html, Markdown };

struct RunReportOptions {
    std::string title = "Run report";
    RunReportFormat format = RunReportFormat::Html;
    std::string imagePrefix = "report";  // Markdown: pictures are <imagePrefix>-<name>.png
    int top = 10;                        // kernels and operators listed
};

struct RunReport {
    std::string text;                                          // the page (HTML or Markdown)
    std::vector<std::pair<std::string, std::string>> files;    // Markdown: file name, PNG bytes
};

// `run`: loaded (dataset set), its manifest attached when it has one (core::attachRunManifest); `findings` as
// core::computeFindings gave them for it.
RunReport buildRunReport(const core::RunEntry& run, const core::FindingsResult& findings,
                         const RunReportOptions& options);

}  // namespace strobe::plots
