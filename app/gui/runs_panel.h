#pragma once
// The run tree: runs → ranks → summaries, with load progress, inline errors (with the file they concern) and
// run-level warnings; below it, the details of the selected run or rank (time per category, top kernels).

#include <map>

#include <QWidget>

class QTextBrowser;
class QTreeWidget;
class QTreeWidgetItem;

namespace strobe::app {

class RunManager;

class RunsPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunsPanel(RunManager& runs, QWidget* parent = nullptr);

    int currentRun() const;   // the run of the selected item, or the only/last run; 0 if none
    std::vector<int> selectedRuns() const;
    QTreeWidget* tree() const { return m_tree; }
    QTextBrowser* details() const { return m_details; }
    void selectRun(int id);

Q_SIGNALS:
    void currentRunChanged(int id);
    void reloadRequested(int id);
    void closeRequested(int id);
    void openPlotsRequested(int id);

private:
    void addRun(int id);
    void refreshRun(int id);
    void removeRun(int id);
    void showDetails();
    void contextMenu(const QPoint& pos);

    RunManager& m_runs;
    QTreeWidget* m_tree = nullptr;
    QTextBrowser* m_details = nullptr;
    std::map<int, QTreeWidgetItem*> m_items;
};

}  // namespace strobe::app
