#pragma once
// The Sweep panel (issue 9): a sweep directory's runs found by core/sweep (manifests, sweep.yaml, directory names),
// opened through the RunManager (load cache, background jobs), listed as runs × axes with their repeat and state;
// the state of each run's load ("queued", "waiting for memory", "loading 42 %": runs load side by side within the
// memory limit; right-click a row to cancel or reload that run alone), a filter, a check box per run (the subset to
// compare), a baseline configuration, the kernel-group comparison
// (core::compareSweep in the background) with significant changes highlighted, the HTML report, and "Open a plot
// comparing the checked runs".

#include <QFutureWatcher>
#include <QWidget>

#include <map>
#include <string>
#include <vector>

#include "core/analysis/sweep_compare.h"
#include "plots/report/sweep_report.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace strobe::app {

class RunManager;

class SweepPanel : public QWidget {
    Q_OBJECT
public:
    explicit SweepPanel(RunManager& runs, QWidget* parent = nullptr);

    // Discovers the runs under `dir` and opens each; false (with the reason in the panel) when none is found.
    bool openSweep(const QString& dir, const QString& pattern = {});
    // Runs compareSweep on the checked, loaded runs against the chosen baseline (in the background).
    void compare();
    // Writes the HTML report of the checked runs (and its CSV tables beside it) on this thread; false on a write
    // error. The Report… button does the same in the background.
    bool writeReport(const QString& path);

    std::vector<int> checkedRuns() const;
    void setChecked(int runId, bool checked);
    void setBaseline(const QString& configuration);  // a configuration key shown in the baseline box
    void setFilter(const QString& text);
    const core::SweepComparison& comparison() const { return m_result; }
    bool comparing() const { return m_watcher.isRunning(); }
    int runCount() const { return static_cast<int>(m_runs.size()); }
    bool allLoaded() const;

Q_SIGNALS:
    void openPlotRequested(const std::vector<int>& runIds);
    void compared();

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
    QPushButton* m_compareButton = nullptr;
    QPushButton* m_reportButton = nullptr;
    QPushButton* m_plotButton = nullptr;
    QTableWidget* m_results = nullptr;
    QLabel* m_status = nullptr;
    QFutureWatcher<core::SweepComparison> m_watcher;
    core::SweepComparison m_result;
    bool m_filling = false;
};

}  // namespace strobe::app
