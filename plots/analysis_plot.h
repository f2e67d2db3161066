#pragma once
// Helpers for plots that show an analysis of core/analysis (temporal breakdown, overlap, idle, straggler,
// launch overhead, kernel statistics). prepare() runs the analysis once per run of the RunSet on the window the
// parameters choose; table() returns the analysis' own table (with a leading "run" column when several runs are
// shown), so the CSV export is exactly `strobe-cli analyze NAME --csv`.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/columns.h"
#include "core/analysis/context.h"
#include "core/analysis/table.h"
#include "plots/chart.h"
#include "plots/plot.h"

namespace strobe::plots {

struct AnalysisTables final : Prepared {
    std::vector<std::string> runLabels;
    // The sweep configuration of each run (configurationLabel: "axis=value, ..." from its parameters, else its
    // label), what a sweep-aware view groups and labels by.
    std::vector<std::string> configurations;
    std::vector<core::Table> perRun;  // the analysis table of each run, as the analysis returned it
    core::Table combined;             // perRun concatenated; a "run" column first when there are several runs
    std::string window;               // the window as resolved, for subtitles (and, on a summary-first run, that the
                                      // analysis covers the loaded ranks only)
    // Per run: the ranks whose events are loaded when it was opened summary-first (Dataset::summaryFirst), else
    // nullopt (every rank is loaded).
    std::vector<std::optional<std::vector<int>>> loadedRanks;
    size_t bytes() const override;
    // "rank N", or "run / rank N" when several runs are shown.
    std::string rankLabel(size_t run, int rank) const;
};

using AnalysisFn = std::function<core::Result<core::Table>(core::AnalysisContext&, const core::WindowSpec&)>;
// The analysis answered from a summary-first run's summaries of every rank (core::RunSummaries), when they answer
// it exactly; nullopt when they do not (the analysis then runs on the ranks whose events are loaded).
using SummaryAnalysisFn =
    std::function<std::optional<core::Result<core::Table>>(const core::RunSummaries&, const core::WindowSpec&)>;

// The "window" (Enum: auto, all, steps, hta, hta-include-last) and "steps" (StringList of step numbers, choices
// from the data; wins over window when set) parameters every analysis plot declares; analysisWindowSpecs() gives
// them with the plot's default window and the runs' steps.
inline const EnumParam kWindow =
    EnumParam{"window", "Window",
              "Which GPU activities to analyse: auto (steady-state steps), all, steps (span of every ProfilerStep), hta "
              "(Holistic Trace Analysis' default: launched before the last step), hta-include-last",
              "auto"}
        .choices({"auto", "all", "steps", "hta", "hta-include-last"});
inline const StringListParam kSteps{"steps", "Steps",
                                    "Analyse only these ProfilerStep numbers (overrides the window when set)", {}};
std::vector<ParamSpec> analysisWindowSpecs(const RunSet& runs, const std::string& defaultWindow = "auto");

// The parameters of an analysis drawn as bars: analysisWindowSpecs(runs), the plot's `own`, then barStyleSpecs().
std::vector<ParamSpec> analysisBarSpecs(const RunSet& runs, const std::vector<ParamSpec>& own,
                                        const std::string& percentTooltip, bool percentDefault, bool horizontalDefault);

// On a run opened summary-first (Dataset::summaryFirst): `fromSummaries`' table over every rank when it answers,
// else `fn` on the ranks whose events are loaded, the table saying so in a message (no table when none is loaded).
core::Result<std::shared_ptr<AnalysisTables>> runAnalysisOnRuns(const RunSet& runs, const ParamValues& values,
                                                                 const core::CancelToken& cancel,
                                                                 const core::ProgressFn& progress,
                                                                 const AnalysisFn& fn,
                                                                 const SummaryAnalysisFn& fromSummaries = {});

// A "configuration" column after the combined table's "run" column, each row's run's configuration, when the runs
// have parameters (a sweep): what a sweep-aware table groups and sorts by. Tables of one run, or of runs without
// parameters, are left as they are.
void addConfigurationColumn(AnalysisTables& tables);
// The configurations of `tables` in first-run order, without repeats.
std::vector<std::string> configurationsOf(const AnalysisTables& tables);

namespace col = core::col;  // the analyses' column constants (core/analysis/columns.h)

// Numeric cell of `table` (null and text → fallback), by a column constant; the string forms are for a column
// named at run time (a sort-by parameter whose choices are column names).
double cellNumber(const core::Table& t, size_t row, core::ColumnKey column, double fallback = 0.0);
std::string cellText(const core::Table& t, size_t row, core::ColumnKey column);
double cellNumber(const core::Table& t, size_t row, const std::string& column, double fallback = 0.0);
std::string cellText(const core::Table& t, size_t row, const std::string& column);

// A cell as a table shows it: durations (columns ending in "_ns") as "587.8 ns" / "12.3 µs", percentages
// (ending in "_pct", or "pct") as "42.1%", the coefficient of variation with three decimals, other numbers with up
// to four significant digits, text as it is; "" for a null cell.
std::string formatCell(const core::Table& t, size_t row, const std::string& column);
// The header a table shows for `column`: without the "_ns" unit suffix (the cells carry their unit).
std::string columnHeader(const std::string& column);
// The columns worth showing: all but "run" and "rank" when every row has the same value in them (a table across
// ranks says "all" on every row).
std::vector<std::string> displayColumns(const core::Table& t);

// A plot that shows one analysis: prepare() runs analyse() on every run (runAnalysisOnRuns) and table() is the
// combined table.
class AnalysisPlot : public TypedPlot<AnalysisTables> {
public:
    using TypedPlot::TypedPlot;

protected:
    core::Result<std::shared_ptr<AnalysisTables>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                               const core::CancelToken& cancel,
                                                               const core::ProgressFn& progress) const override;
    core::Table tableTyped(const AnalysisTables& tables, const ParamValues& values) const override;
    virtual core::Result<core::Table> analyse(core::AnalysisContext& ctx, const core::WindowSpec& window,
                                              const ParamValues& values) const = 0;
    // The same table from a summary-first run's summaries of every rank, when they answer the analysis exactly
    // (SummaryAnalysisFn); nullopt: analyse() runs on the ranks loaded.
    virtual std::optional<core::Result<core::Table>> analyseSummaries(const core::RunSummaries&,
                                                                      const core::WindowSpec&,
                                                                      const ParamValues&) const {
        return std::nullopt;
    }
    // Whether prepare() adds the sweep's "configuration" column (addConfigurationColumn) to the combined table.
    virtual bool namesConfigurations() const { return false; }
};

// An analysis drawn as stacked or grouped bars (BarPlot over AnalysisPlot): chart() is the picture.
class AnalysisBarPlot : public BarPlot<AnalysisTables, AnalysisPlot> {
public:
    using BarPlot::BarPlot;

protected:
    std::string noBarsMessage() const override { return "nothing matched in the window"; }
    // A chart with the plot's title, and its orientation and percent axis from the bar style parameters.
    BarChart styledChart(const ParamValues& values) const;
    // The analysis' messages into `c`, led by `whenNoBars` when the chart has no bar.
    static void addMessages(BarChart& c, const AnalysisTables& tables, const std::string& whenNoBars);
};

}  // namespace strobe::plots
