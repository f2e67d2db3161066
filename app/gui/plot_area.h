#pragma once
// The centre of the window: plots in tabs, optionally in two panes side by side (or stacked). The same plot on
// two runs, or two plots on one run. When both panes show a timeline and synchronisation is on, zooming or
// panning one moves the other to the same time range.

#include <vector>

#include <QWidget>

class QSplitter;
class QStackedWidget;
class QTabWidget;

namespace strobe::app {

class PlotView;

class PlotArea : public QWidget {
    Q_OBJECT
public:
    explicit PlotArea(QWidget* welcome, QWidget* parent = nullptr);
    ~PlotArea() override;  // deletes the views at once (they hold on to the engine)

    void addView(PlotView* view, int pane);  // pane 1 turns the split on
    PlotView* currentView() const;           // current tab of the active pane
    PlotView* currentView(int pane) const;
    int activePane() const { return m_active; }
    std::vector<PlotView*> views() const;     // pane 0 first, in tab order
    std::vector<PlotView*> views(int pane) const;
    int paneOf(const PlotView* view) const;
    void closeView(PlotView* view);
    void closeAll();

    bool isSplit() const;
    void setSplit(bool on);
    bool isVertical() const;
    void setVertical(bool on);
    QList<int> splitSizes() const;
    void setSplitSizes(const QList<int>& sizes);
    void setCurrentIndex(int pane, int index);
    int currentIndex(int pane) const;
    void moveCurrentToOtherPane();
    void cycleTabs(int direction);

    bool syncTimeAxes() const { return m_sync; }
    void setSyncTimeAxes(bool on) { m_sync = on; }

Q_SIGNALS:
    void currentViewChanged(strobe::app::PlotView* view);  // may be null
    void viewsChanged();                                    // a view was added, closed or moved

private:
    void setActivePane(int pane);
    void updateTitles();
    void updatePage();
    void onRangeChanged(PlotView* source, qint64 start, qint64 end);
    void followOtherPane(PlotView* view);

    QStackedWidget* m_stack = nullptr;
    QSplitter* m_splitter = nullptr;
    QTabWidget* m_panes[2] = {nullptr, nullptr};
    int m_active = 0;
    bool m_sync = true;
};

}  // namespace strobe::app
