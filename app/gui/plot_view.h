#pragma once
// One plot in a tab: the canvas that paints it through the PlotEngine, and the mouse and keyboard around it.
//
//   - A drawing-parameter change repaints at once from the Prepared in hand (prepare() is not called).
//   - A preparation-parameter change is debounced (quick successive edits make one request) and prepared in the
//     background; the last picture stays on screen with an "updating…" overlay until the new one arrives.
//   - Timelines: wheel zoom about the cursor, drag to pan, right-drag box zoom, double-click resets; these change
//     the view-state drawing parameters only. Drag on the time axis (or Shift+drag in the lanes) measures a range
//     (its duration on the overlay, what ran in it in the Selection dock); click or drag in the overview strip
//     moves the view; the scrollbar on the right scrolls the lanes; Ctrl+F searches item names (all matches
//     highlighted, Enter / F3 step); right-click on an item: copy its name, select all of its name, its
//     statistics, filter the plot to it.
//   - Hover shows the value under the cursor; a click selects and reports the details.

#include <optional>
#include <string>
#include <vector>

#include <QImage>
#include <QPointer>
#include <QTimer>
#include <QWidget>

class QMenu;
class QScrollBar;

#include "app/gui/events_list.h"
#include "core/analysis/critical_path.h"
#include "plots/plot.h"
#include "plots/path_marks.h"
#include "plots/plot_engine.h"
#include "plots/timeline_view.h"

namespace strobe::app {

class PlotTableView;
class RunManager;

// A critical path as the timeline shows it (plot_view_path.cpp): its segments with their strings owned, which run of
// the view it belongs to, the class kept ("" = the whole path, with its cross-lane and cross-rank edges) and the
// banner's words: the window and length, and the clock alignment the path was computed on.
struct ShownCriticalPath {
    std::vector<plots::PathSegment> path;
    size_t run = 0;
    std::string boundBy;
    QString title;  // "Critical path of ProfilerStep#10 (4 ranks): 41.200 ms"
    QString clock;  // core::CriticalPathResult::clock
};
// The shown form of an analysis result (`boundBy` as above).
ShownCriticalPath shownCriticalPath(const core::CriticalPathResult& r, size_t run, const std::string& boundBy);

class TimelineSearchBar;

class PlotView : public QWidget {
    Q_OBJECT
public:
    PlotView(const plots::Plot& plot, plots::PlotEngine& engine, RunManager& runs, std::vector<int> runIds,
             const plots::ParamValues& values, QWidget* parent = nullptr);
    ~PlotView() override;

    const plots::Plot& plot() const { return m_plot; }
    const std::vector<int>& runIds() const { return m_runIds; }
    plots::RunSet runSet() const;
    std::vector<int> ranks() const;  // rank numbers present in the runs (rank pickers)
    const std::vector<plots::ParamSpec>& specs() const { return m_specs; }
    const plots::ParamValues& values() const { return m_values; }
    plots::PreparedPtr prepared() const { return m_prepared; }
    QString title() const;
    bool isUpdating() const { return m_updating; }
    QString errorText() const { return m_error; }
    bool dataReady() const;

    // Parameter changes (from the panel, a session, reset).
    void setValue(const std::string& key, const plots::ParamValue& value);
    void setValues(const plots::ParamValues& values);  // unknown keys ignored, missing keys → default
    void resetAll();
    // The runs got new data (first load or reload): recompute specs and prepare again.
    void refreshData();
    // A run of a comparison was closed: the view goes on over the others (prepared again); false when `runId` was
    // its last run (the caller closes the view then).
    bool removeRun(int runId);
    void setPrepareDebounceMs(int ms) { m_debounce.setInterval(ms); }

    // Timelines.
    bool isTimeline() const { return m_nav != nullptr; }
    std::optional<plots::ViewRange> viewRange() const;
    void setViewRange(int64_t start, int64_t end);  // synchronised axes: no viewRangeChanged emitted
    void zoomBy(double factor);                     // about the centre; < 1 zooms in
    void resetZoom();

    QImage renderImage(QSize size) const;  // null when nothing is prepared yet
    // Table plots (Plot::isTable): the table widget that shows them (null for the others).
    PlotTableView* tableView() const { return m_table; }
    bool isDark() const;

    // Timeline navigation (see the top of this file).
    void openSearch();  // shows the search bar and focuses its text
    void closeSearch();
    TimelineSearchBar* searchBar() const { return m_search; }
    void setSearch(const QString& text, bool regex);  // runs the search (opens the bar)
    const std::vector<plots::ItemRef>& matches() const { return m_matches; }
    int currentMatch() const { return m_current; }  // -1: none selected yet
    QString searchError() const { return m_searchError; }
    void findNext();
    void findPrevious();
    void selectItem(const plots::ItemRef& item, bool reveal);  // selects, shows its details, zooms/pans to it
    std::optional<plots::ItemRef> selectedItem() const;
    std::optional<QRectF> selectedRect() const { return selectionRect(); }  // where the selected item is drawn
    // The context menu of the item at `pos` (null when there is none there); the caller owns it.
    QMenu* itemMenu(QPointF pos);
    void showNameStatistics(const plots::ItemRef& item);
    // The events list (eventsListed): every instance of the item's name in its run; the search's matches; the
    // items of the measured range.
    void listInstances(const plots::ItemRef& item);
    void listMatches();
    void listMeasure(int rank = -1);  // only the events of that rank when ≥ 0
    // Every instance named exactly `name` (a kernel or operator), e.g. from Top kernels; false when none.
    bool listName(const std::string& name);
    void filterToItem(const plots::ItemRef& item);  // name_filter := the item's exact name
    void setMeasure(int64_t start, int64_t end);     // relative ns; shows the summary in the Selection dock
    void clearMeasure();
    // Measures [start, end) given in absolute ns (a query's ts_ns/end_ns) and zooms to it with a margin; false when
    // this is not a prepared timeline.
    bool showAbsoluteRange(int64_t start, int64_t end);
    // Selects and reveals the item named `name` on rank `rank` (-1: any) that holds absolute time `ts` — the one that
    // starts there, else the innermost (latest start) — as a row of the operator or live-at-peak table names it;
    // false when there is none (or this is not a prepared timeline).
    bool selectInstance(int rank, int64_t ts, const std::string& name);
    std::optional<std::pair<int64_t, int64_t>> measure() const { return m_measure; }
    QScrollBar* laneScrollBar() const { return m_laneBar; }

    // The critical path on this timeline (plot_view_path.cpp): its segments outlined on their lanes and everything
    // else dimmed, the edges where it changes lane or rank drawn as the flows are, a banner with its window, length
    // and clock alignment. Esc or clearCriticalPath() takes it away. Ignored by plots that are not timelines.
    void showCriticalPath(ShownCriticalPath shown);
    void clearCriticalPath();
    bool hasCriticalPath() const { return m_path.has_value(); }
    // Where the shown path is on the current prepared timeline (empty without one).
    const plots::PathMarks& criticalPathMarks();

Q_SIGNALS:
    void valuesChanged();                                 // by the view itself (zoom/pan) or by setValues
    void viewRangeChanged(qint64 start, qint64 end);      // the user zoomed or panned
    void stateChanged();                                  // updating / ready / error
    void itemSelected(const QString& title, const QString& details);
    void eventsListed(const strobe::app::EventListing& listing);  // for the Events dock
    void instancesRequested(const std::string& name);              // a table's row: list it on the timeline
    void pathClassRequested(const std::string& boundBy);           // critical-path plot: a bar double-clicked
    // A table's row (PlotTableView::instanceRequested): show that instance on the timeline.
    void instanceRequested(const std::string& run, int rank, qint64 ts, const std::string& name);
    // A summary-first run's ranks picked in a plot (a rank × step heatmap's cell: double-click, or its menu): load
    // their events (`only`: instead of those loaded) and show them on the timeline.
    void ranksRequested(int runId, const std::vector<int>& ranks, bool only);

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;
    void mouseDoubleClickEvent(QMouseEvent*) override;
    void wheelEvent(QWheelEvent*) override;
    void keyPressEvent(QKeyEvent*) override;
    void leaveEvent(QEvent*) override;
    void changeEvent(QEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    bool event(QEvent*) override;

private:
    void recomputeSpecs();
    void requestPrepare();
    void onReady(plots::PreparedPtr prepared, uint64_t requestId);
    void onError(const core::Error& error, uint64_t requestId);
    void onProgress(const core::ProgressInfo& p, uint64_t requestId);
    void onCancelled(uint64_t requestId);
    void applyView(plots::ParamValues values, bool emitRange);
    std::optional<plots::TimelineGeometry> geometry() const;
    QRectF plotRect() const;
    // The summary-first run and ranks a non-timeline plot's item at `pos` names (HitInfo::ranks), if any.
    std::optional<std::pair<int, std::vector<int>>> ranksAt(QPointF pos) const;
    QMenu* ranksMenu(QPointF pos);
    void syncTable();  // table plots: the table widget follows the prepared data and the values
    void runSearch();
    void stepMatch(int direction);
    void syncLaneBar();
    void placeChildren();
    void paintNavigation(QPainter& p, const plots::Theme& theme);
    void paintMeasure(QPainter& p, const plots::Theme& theme, int64_t start, int64_t end);
    void moveViewToOverview(double x);
    void emitMeasure();
    // Flows of the selected item (plot_view_flows.cpp): computed once per selection, drawn as arrows, offered in
    // the item menu ("Go to …") and summarised in the Selection dock.
    const std::vector<plots::FlowLink>& selectedFlows();
    void paintFlows(QPainter& p);
    // Arrows (with their ends outlined) for `links`, clipped to the plot area: the flows' drawing, also the path's.
    void paintLinks(QPainter& p, const std::vector<plots::FlowLink>& links, const QColor& color);
    void paintCriticalPath(QPainter& p, const plots::Theme& theme);
    void addFlowActions(QMenu* menu, const plots::ItemRef& item);
    QString flowsHtml(const plots::ItemRef& item);

    PlotTableView* m_table = nullptr;

    const plots::Plot& m_plot;
    const plots::TimelineNavigation* const m_nav;  // m_plot.timeline(): null for plots that are not timelines
    plots::PlotEngine& m_engine;
    RunManager& m_runs;
    std::vector<int> m_runIds;
    std::string m_slot;

    std::vector<plots::ParamSpec> m_specs;
    plots::ParamValues m_values;       // resolved: every spec key present
    plots::PreparedPtr m_prepared;
    std::string m_preparedKey;         // prepareKey() of the values m_prepared was made with
    std::string m_requestedKey;        // prepareKey() of the request in flight
    uint64_t m_pendingRequest = 0;     // the runner generation of the job in flight (0: none)
    bool m_updating = false;
    QString m_error;
    QString m_progressText;
    QTimer m_debounce;

    // Mouse state.
    enum class Drag { None, Pan, Box, Measure, Overview };
    Drag m_drag = Drag::None;
    QPointF m_pressPos;
    QPointF m_lastPos;
    bool m_moved = false;
    // The clicked item, kept as where it was clicked and the view it was clicked in, so that after a zoom, pan,
    // lane scroll or resize the highlight follows the item (selectionRect() maps the point into the current
    // view and hit-tests again) instead of staying at stale pixels.
    struct Selection {
        QPointF point;
        QRectF itemRect;  // where the item was drawn then
        plots::ParamValues values;
        QRectF plotRect;
        std::optional<plots::ItemRef> item;  // timelines: the item itself (its rect follows the view)
    };
    std::optional<Selection> m_selection;
    std::optional<plots::ItemRef> m_flowsOf;  // the item m_flows were computed for, in m_flowsPrepared
    const plots::Prepared* m_flowsPrepared = nullptr;
    std::vector<plots::FlowLink> m_flows;
    std::optional<ShownCriticalPath> m_path;
    plots::PathMarks m_pathMarks;
    const plots::Prepared* m_pathPrepared = nullptr;  // what m_pathMarks were found in
    std::optional<QRectF> selectionRect() const;

    TimelineSearchBar* m_search = nullptr;
    std::vector<plots::ItemRef> m_matches;
    int64_t m_longestMatch = 0;
    int m_current = -1;
    QString m_searchError;
    std::optional<std::pair<int64_t, int64_t>> m_measure;
    QScrollBar* m_laneBar = nullptr;
};

}  // namespace strobe::app
