#pragma once
// The structural diff in the workbench (issue 22): two loaded runs (A, B) compared as the tree of CPU operators by
// call site with the GPU work beneath each (core/analysis/structural_diff.h, as `strobe-cli diff`). Columns: call
// site or kernel, status, count per step on each side, GPU ms per step on each side, Δ (B − A); every column
// sorts (within each level of the tree), Δ numerically. Double-clicking a row asks for its first instance on the
// timeline of the run it came from (instanceRequested: B's when the node is in B, else A's).

#include <memory>

#include <QDialog>

#include "core/analysis/structural_diff.h"

class QComboBox;
class QLabel;
class QStandardItemModel;
class QTreeView;

namespace strobe::core {
class JobRunner;
}

namespace strobe::app {

class BackgroundJob;

class RunManager;

class DiffDialog : public QDialog {
    Q_OBJECT
public:
    enum Column { Name = 0, Status, CountA, CountB, PerStepA, PerStepB, Delta, ColumnCount };

    // The diff is computed as a job of `runner` (the Jobs panel shows it; the GUI thread never waits on it).
    DiffDialog(RunManager& runs, core::JobRunner& runner, QWidget* parent = nullptr);
    ~DiffDialog() override;

    // Starts comparing run a (A) with run b (B) by their ids; false when either has no dataset yet. The tree fills
    // when the job is done (isComputing() false again).
    bool compare(int a, int b);
    bool isComputing() const { return m_computing; }
    const core::StructuralDiff& diff() const { return m_diff; }
    QTreeView* tree() const { return m_tree; }
    QStandardItemModel* model() const { return m_model; }
    QString summary() const;

Q_SIGNALS:
    // The run to show (its id) and the instance's raw name and start (ns since the epoch, as loaded).
    void instanceRequested(int runId, const QString& name, qint64 start);

private:
    void refillRuns();
    void fill();
    void activate(const QModelIndex& index);

    RunManager& m_runs;
    QComboBox* m_a = nullptr;
    QComboBox* m_b = nullptr;
    QLabel* m_summary = nullptr;
    QTreeView* m_tree = nullptr;
    QStandardItemModel* m_model = nullptr;
    core::StructuralDiff m_diff;
    int m_runA = -1, m_runB = -1;
    std::unique_ptr<BackgroundJob> m_job;
    bool m_computing = false;
};

}  // namespace strobe::app
