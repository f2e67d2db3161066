#pragma once
// Helpers for plots that show an analysis of core/analysis (temporal breakdown, overlap, idle, straggler,
// launch overhead, kernel statistics). prepare() runs the analysis once per run of the RunSet on the window the
// parameters choose; table() returns the analysis' own table (with a leading "run" column when several runs are
// shown), so the CSV export is exactly `strobe-cli analyze NAME --csv`.

#include <functional>
#include <string>
#include <vector>

#include "core/analysis/context.h"
#include "core/analysis/table.h"
#include "plots/plot.h"

namespace strobe::plots {

struct AnalysisTables final : Prepared {
    std::vector<std::string> runLabels;
    std::vector<core::Table> perRun;  // the analysis table of each run, as the analysis returned it
    core::Table combined;             // perRun concatenated; a "run" column first when there are several runs
    std::string window;               // the window as resolved, for subtitles
    size_t bytes() const override;
};

using AnalysisFn = std::function<core::Result<core::Table>(core::AnalysisContext&, const core::WindowSpec&)>;

// The "window" (Enum: auto, all, steps, hta, hta-include-last) and "steps" (StringList of step numbers, choices
// from the data; wins over window when set) parameters every analysis plot declares.
std::vector<ParamSpec> analysisWindowSpecs(const RunSet& runs, const std::string& defaultWindow = "auto");

core::Result<std::shared_ptr<AnalysisTables>> runAnalysisOnRuns(const RunSet& runs, const ParamValues& values,
                                                                 const core::CancelToken& cancel,
                                                                 const core::ProgressFn& progress,
                                                                 const AnalysisFn& fn);

// Numeric cell of `table` (null and text → fallback).
double cellNumber(const core::Table& t, size_t row, const std::string& column, double fallback = 0.0);
std::string cellText(const core::Table& t, size_t row, const std::string& column);

// Stacked (or grouped) bars: one bar per label, one segment per series. Shared by the analysis plots.
struct BarChart {
    std::string title, subtitle, valueLabel;
    std::vector<std::string> bars;
    std::vector<std::string> series;
    std::vector<QColor> colors;
    std::vector<std::vector<double>> values;  // [bar][series], ≥ 0
    bool stacked = true;                      // false: series side by side within a bar's band
    bool percentAxis = false;                 // the values are percentages (axis 0..100)
    bool durationAxis = true;                 // format the axis as durations (ns), else as numbers
    int highlightBar = -1;                    // drawn with an outline and a bold label
    std::vector<std::string> messages;
};
void drawBarChart(Canvas& c, const BarChart& chart, bool horizontal);
std::optional<HitInfo> hitBarChart(const BarChart& chart, bool horizontal, const QRectF& rect, QPointF pt);

}  // namespace strobe::plots
