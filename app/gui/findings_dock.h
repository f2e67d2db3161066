#pragma once
// The Findings dock (issue 30): the findings of a loaded run (core/analysis/findings.h, what `strobe-cli advise`
// prints), ranked by the time they cost per step. Each finding expands to its definition, evidence, what to try and
// its time ranges; a click on a finding (its longest range) or on one of its ranges shows the range on the run's
// timeline, measured, and the finding's rank's events in it in the events list (MainWindow::showRangeOnTimeline). Computed on a worker (BackgroundJob); a run that
// finishes loading is analysed at once when the dock is visible.

#include <optional>
#include <vector>

#include <QElapsedTimer>
#include <QWidget>

#include "app/gui/background_job.h"
#include "core/analysis/findings.h"

class QComboBox;
class QLabel;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace strobe::app {

class RunManager;

class FindingsDock final : public QWidget {
    Q_OBJECT
public:
    explicit FindingsDock(RunManager& runs, QWidget* parent = nullptr);
    ~FindingsDock() override;

    // Analyses run `runId` (the one chosen in the picker when -1).
    void analyse(int runId = -1);
    bool isRunning() const { return m_running; }
    QTreeWidget* tree() const { return m_tree; }
    QLabel* status() const { return m_status; }
    const core::FindingsResult& result() const { return m_result; }
    int shownRun() const { return m_shownRun; }
    // Shows the range of `item` (a finding: its longest range; a range row: that range).
    void activate(QTreeWidgetItem* item);

Q_SIGNALS:
    void rangeRequested(int runId, int rank, qint64 start, qint64 end);
    void finished();

private:
    void refreshRuns();
    void show(const core::FindingsResult& r);

    RunManager& m_runs;
    QComboBox* m_runBox = nullptr;
    QPushButton* m_analyseButton = nullptr;
    QLabel* m_status = nullptr;
    QTreeWidget* m_tree = nullptr;
    BackgroundJob m_job;
    core::FindingsResult m_result;
    int m_shownRun = -1;
    bool m_running = false;
    QTreeWidgetItem* m_lastActivated = nullptr;  // the item last shown, and since when (a double-click shows it once)
    QElapsedTimer m_sinceActivated;
};

}  // namespace strobe::app
