#pragma once
// The run tree: runs → ranks → summaries, with load progress, inline errors (with the file they concern) and
// run-level warnings; below it, the details of the selected run or rank (time per category, top kernels).
// Several runs can be selected (Ctrl/Shift+click): "Compare selected runs" (the button above the tree, or the
// context menu) opens one plot over exactly those runs; its arrow picks which plot.

#include <map>
#include <string>
#include <vector>

#include <QWidget>

class QMenu;
class QTextBrowser;
class QToolButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace strobe::app {

class RunManager;

class RunsPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunsPanel(RunManager& runs, QWidget* parent = nullptr);

    int currentRun() const;   // the run of the selected item, or the only/last run; 0 if none
    std::vector<int> selectedRuns() const;  // in the tree's order (a rank row selects its run)
    QTreeWidget* tree() const { return m_tree; }
    QTextBrowser* details() const { return m_details; }
    void selectRun(int id);
    void setSelectedRuns(const std::vector<int>& ids);  // tests, sessions
    QToolButton* compareButton() const { return m_compare; }
    // The run's menu ▸ Clock offset…: the dialog (app/gui/clock_offset_dialog.h), then the run reloads with it.
    void editClockOffset(int id);

Q_SIGNALS:
    void currentRunChanged(int id);
    void reloadRequested(int id);
    void closeRequested(int id);
    void openPlotsRequested(int id);
    void clockOffsetChanged(int id);
    // A summary-first run's ranks to load (the run's menu): MainWindow loads them and shows their timeline.
    void ranksRequested(int id, const std::vector<int>& ranks, bool only);  // set or removed from the run's menu (the run reloads)
    // One plot over exactly `ids` (two or more); plotId empty: the current plot.
    void compareRequested(const std::vector<int>& ids, const std::string& plotId);

private:
    void addRun(int id);
    void refreshRun(int id);
    void removeRun(int id);
    void showDetails();
    void contextMenu(const QPoint& pos);
    void pickRanks(int id);  // "Load events of ranks…": a rank list asked for, then ranksRequested
    void updateCompare();
    QMenu* comparePlotsMenu(QWidget* parent);  // "Compare selected runs in" ▸ every registered plot

    RunManager& m_runs;
    QTreeWidget* m_tree = nullptr;
    QTextBrowser* m_details = nullptr;
    QToolButton* m_compare = nullptr;
    std::map<int, QTreeWidgetItem*> m_items;
};

}  // namespace strobe::app
