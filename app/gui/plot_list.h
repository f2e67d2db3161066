#pragma once
// The searchable list of plots (from the plot registry). Enter or double-click opens the selected plot on the
// current run; the context menu opens it in the second pane, over the runs selected in the Runs tree, or on every
// loaded run at once (comparison).

#include <string>

#include <QWidget>

class QLineEdit;
class QListWidget;

namespace strobe::app {

class PlotList : public QWidget {
    Q_OBJECT
public:
    explicit PlotList(QWidget* parent = nullptr);
    void focusSearch();
    QLineEdit* searchField() const { return m_search; }
    QListWidget* list() const { return m_list; }
    std::string currentPlotId() const;
    void reload();  // re-read the registry

Q_SIGNALS:
    // pane: -1 the active pane, 0 or 1; allRuns: every loaded run in one plot.
    void openRequested(const std::string& plotId, int pane, bool allRuns);
    // The plot over the runs selected in the Runs tree.
    void compareSelectedRequested(const std::string& plotId);

private:
    void filter(const QString& text);
    QLineEdit* m_search = nullptr;
    QListWidget* m_list = nullptr;
};

}  // namespace strobe::app
