#pragma once
// The Sweep panel (issue 9): a sweep directory's runs found by core/sweep (manifests, sweep.yaml, directory names),
// opened through the RunManager (load cache, background jobs), listed as runs × axes with their repeat and state;
// the state of each run's load ("queued", "waiting for memory", "loading 42 %": runs load side by side within the
// memory limit; right-click a row to cancel or reload that run alone), a filter, a check box per run (the subset to
// compare), a baseline configuration, the kernel-group comparison
// (core::compareSweep in the background) with significant changes highlighted, the HTML report, and "Open a plot
// comparing the checked runs".
// Discovery, comparison and the report are jobs of the RunManager's job runner (app/gui/background_job.h): each
// shows in the Jobs panel and can be cancelled there, a newer request of the same kind supersedes the older one
// (whose result is dropped), and none runs on the GUI thread.

#include <QWidget>

#include <map>
#include <string>
#include <vector>

#include "app/gui/background_job.h"
#include "core/analysis/sweep_compare.h"
#include "core/sweep/sweep_discovery.h"
#include "plots/report/sweep_report.h"
#include "plots/plot.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace strobe::app {

class RunManager;

class SweepPanel : public QWidget {
    Q_OBJECT
public:
    explicit SweepPanel(RunManager& runs, QWidget* parent = nullptr);

    // Discovers the runs under `dir` in the background, then opens each (showDiscovered); sweepOpened says how it
    // went. A newer openSweep supersedes one still discovering.
    void openSweep(const QString& dir, const QString& pattern = {});
    // Shows the runs `found` under `dir` (discovered elsewhere, e.g. by a drop) and opens each; false (with the
    // reason in the panel) when there is none. Supersedes a discovery still running.
    bool showDiscovered(const QString& dir, const core::sweep::SweepDiscovery& found);
    bool discovering() const { return m_discover.pending(); }
    // Runs compareSweep on the checked, loaded runs against the chosen baseline (in the background; a newer
    // comparison supersedes one still running); compared() when its result is shown.
    void compare();
    // Writes the HTML report of the checked runs (and its CSV tables beside it) in the background; reportWritten
    // says how it went. False when no loaded run is checked (nothing started).
    bool writeReport(const QString& path);
    bool writingReport() const { return m_report.pending(); }

    std::vector<int> checkedRuns() const;
    void setChecked(int runId, bool checked);
    void setBaseline(const QString& configuration);  // a configuration key shown in the baseline box
    void setFilter(const QString& text);
    const core::SweepComparison& comparison() const { return m_result; }
    // The sweep the shown comparison belongs to ("" when none is shown: a new sweep clears it).
    const QString& comparedSweep() const { return m_resultSweep; }
    // The dock's group-by, baseline (as the plots name a configuration) and skip-steps, for the plots it opens.
    plots::ParamValues plotValues() const;
    bool comparing() const { return m_compare.pending(); }
    int runCount() const { return static_cast<int>(m_runs.size()); }
    bool allLoaded() const;

Q_SIGNALS:
    void openPlotRequested(const std::vector<int>& runIds);
    void compared();
    void sweepOpened(bool found);  // a discovery ended: runs found and opened, or none (or it was cancelled)
    void reportWritten(const QString& path, bool ok);

private:
    struct Run {
        int id = 0;
        core::RunEntry info;  // as discovered (label: its path under the sweep directory); no dataset
        bool checked = true;
    };
    void rebuildRuns();
    void refreshStates();
    void rowMenu(const QPoint& pos);
    void showComparison();
    core::RunSet checkedData() const;
    plots::SweepReportOptions reportOptions(const QString& path) const;
    bool startReport(const QString& path, bool openWhenWritten);
    static bool writeReportFiles(const core::RunSet& data, const plots::SweepReportOptions& o,
                                 const QString& path);

    RunManager& m_runManager;
    std::vector<Run> m_runs;
    std::vector<std::string> m_axes;
    QLabel* m_title = nullptr;
    QLineEdit* m_filter = nullptr;
    QTableWidget* m_table = nullptr;
    QComboBox* m_baseline = nullptr;
    QComboBox* m_groupBy = nullptr;
    QSpinBox* m_skipSteps = nullptr;
    QPushButton* m_compareButton = nullptr;
    QPushButton* m_reportButton = nullptr;
    QPushButton* m_plotButton = nullptr;
    QTableWidget* m_results = nullptr;
    QLabel* m_status = nullptr;
    BackgroundJob m_discover;
    BackgroundJob m_compare;
    BackgroundJob m_report;
    core::SweepComparison m_result;
    QString m_sweep;        // the sweep shown (its directory name)
    QString m_resultSweep;  // the sweep m_result was computed on
    bool m_filling = false;
};

}  // namespace strobe::app
