#pragma once
// The workbench window. Left: runs → ranks → summaries, and the searchable plot list. Centre: plots in tabs, two
// panes side by side when split. Right: the parameter panel of the current plot and the details of what was
// clicked. Bottom: background jobs. Status bar: load progress with Cancel, memory of loaded data and caches.

#include <map>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <QMainWindow>
#include <QPointer>

#include "app/gui/background_job.h"
#include "core/engine/job_runner.h"
#include "core/engine/session.h"
#include "core/sweep/sweep_discovery.h"
#include "plots/plot_engine.h"

class QAction;
class QLabel;
class QMenu;
class QProgressBar;
class QDockWidget;
class QTextBrowser;
class QToolButton;

namespace strobe::core {
struct CpRequest;
}

namespace strobe::app {

class ChartPanel;
class EventsList;
class QueryDock;
class FindingsDock;
class ErrorBar;
class JobList;
class LaunchPanel;
class ParamPanel;
class PlotArea;
class PlotList;
class PlotView;
class RunManager;
class RunsPanel;
class DiffDialog;
class SweepPanel;

enum class Theme { System, Light, Dark };

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opening. Each directory becomes a run, loose files together one run. Returns the run ids. `clockOffsetNs`:
    // each run's clock offset (strobe --clock-offset; the run's menu ▸ Clock offset… later).
    std::vector<int> openPaths(const QStringList& paths, std::optional<int64_t> clockOffsetNs = std::nullopt);
    // Discovers the runs of a sweep directory (core/sweep) in the background, opens each and shows them in the
    // Sweep dock (SweepPanel::sweepOpened says when).
    void openSweep(const QString& dir);
    SweepPanel* sweepPanel() { return m_sweepPanel; }
    // View ▸ Structural diff: the runs selected in the Runs tree (else the first two loaded), A then B, compared
    // in the diff dialog (app/gui/diff_view.h); null with fewer than two loaded runs.
    DiffDialog* openDiff();
    // The Profiling runs dock (strobe-cli runs launched from File ▸ Profile a workload…).
    LaunchPanel* launchPanel() const { return m_launchPanel; }
    // File ▸ Profile a workload…: the dialog, then the launch in the Profiling runs dock.
    void profileWorkloadDialog();
    int openRun(const QStringList& sources, const QString& label = {}, const core::RunParameters& parameters = {},
                std::optional<int64_t> clockOffsetNs = std::nullopt);
    // Opens `plotId` on `runIds` in `pane` (-1: the active pane). Values: stored preferences when null.
    PlotView* openPlot(const std::string& plotId, const std::vector<int>& runIds, int pane = -1,
                       const plots::ParamValues* values = nullptr);

    // Opens `plotId` (empty: the current view's plot, else the one chosen in the Plots list, else the GPU
    // timeline) over exactly `runIds` (runs that failed to load left out), in the active pane.
    PlotView* compareRuns(const std::vector<int>& runIds, const std::string& plotId = {});
    // Compares the runs selected in the Runs tree (two or more).
    PlotView* compareSelectedRuns(const std::string& plotId = {});
    // What a drop does: each directory in which sweep discovery finds two or more runs opens as a sweep (the Sweep
    // dock, as File ▸ Open sweep), other directories and files as openPaths does (File ▸ Open). Discovery runs in
    // the background (a job of the runner); the paths open when it is done (droppedOpened).
    void openDropped(const QStringList& paths);
    // Drops whose paths are still being looked at.
    int pendingDrops() const { return static_cast<int>(m_drops.size()); }

    // Sessions. `replacementPaths` (non-empty): open the session's plots and parameters on these paths instead
    // of the session's own runs ("a session reopens on new data"). Errors show inline; returns false on error.
    bool openSession(const QString& path, const QStringList& replacementPaths = {});
    bool saveSession(const QString& path);
    // The session shown now: runs, plots, values, and the layout (app/gui/session_layout.h).
    core::Session captureSession() const;
    // Shows `session` (on `useRuns` when given). A layout field of the wrong type shows an error naming
    // `sourceName` and its line, and changes nothing; returns false then.
    bool applySession(const core::Session& session, const std::vector<int>* useRuns = nullptr,
                      const QString& sourceName = QStringLiteral("<session>"));

    // Export of the current plot (format from the extension: png, svg, pdf; csv writes the table) at
    // `imageSize` (empty: the view's size, at least 640 × 400), with the plot's title and runs at the top.
    // Runs in the background; returns false when there is nothing to export.
    bool exportCurrentPlot(const QString& path, QSize imageSize = {});
    void copyImageToClipboard();

    RunManager& runs() { return *m_runs; }
    // The one job runner: loads, preparations, exports, sweep discovery/comparison/report, tool probes.
    core::JobRunner& runner() { return *m_runner; }
    PlotArea* plotArea() const { return m_plotArea; }
    ParamPanel* paramPanel() const { return m_paramPanel; }
    RunsPanel* runsPanel() const { return m_runsPanel; }
    PlotList* plotList() const { return m_plotList; }
    // The Events dock: every instance of a name, a search's matches, a measured range (app/gui/events_list.h).
    EventsList* eventsList() const { return m_eventsList; }
    // Lists every instance named `name` from the GPU timeline over `runIds` (the one open, else a new one, once
    // prepared): Top kernels' "List every instance on the timeline".
    void listInstancesOnTimeline(const std::vector<int>& runIds, const std::string& name);
    // A time range (absolute ns) of one run: its timeline (opened when none shows the run) measures the range,
    // zooms to it and lists its items (of `rank` only when ≥ 0) in the Events dock. From the Query and Findings docks.
    void showRangeOnTimeline(int runId, int64_t start, int64_t end, int rank = -1);
    // Analyze ▸ Show critical path… (issue 26): the critical path of `req`'s window in run `runId`, computed in the
    // background, shown on that run's timeline (opened when none shows it); `boundBy` non-empty: that class only.
    void showCriticalPath(int runId, const core::CpRequest& req, const std::string& boundBy = {});
    void showCriticalPathDialog();  // picks the step of the current view's run (or the first run)
    // A table row's operator instance (operator-efficiency, memory-live-at-peak) on the timeline of its run (`run`:
    // the row's run label, "" for the view's only run): selected and zoomed to, else the time measured.
    void showInstanceOnTimeline(const std::vector<int>& runIds, const std::string& run, int rank, int64_t ts,
                                const std::string& name);
    QueryDock* queryDock() const { return m_query; }
    void showQueryDock();
    FindingsDock* findingsDock() const { return m_findings; }
    void showFindingsDock();  // and analyses the newest run when nothing is shown yet
    JobList& jobs() { return *m_jobs; }
    plots::PlotEngine& engine() { return *m_engine; }
    QString lastError() const { return m_lastError; }
    void setAutoOpenDefaultPlot(bool on) { m_autoOpen = on; }
    void setTheme(Theme theme);
    // True when nothing loads or prepares (screenshots, tests).
    bool isIdle() const;
    // True when runs, plots or parameters changed since the session was last opened or saved (zoom and pan do
    // not count). Closing the window then asks Save / Discard / Cancel, unless STROBE_NO_SAVE_PROMPT is set.
    bool isSessionModified() const { return m_sessionModified; }
    // Closing waits for the profiling runs it cancelled: the window stays (the event loop running as usual) and
    // closes when the last one has ended. True while it waits.
    bool closeDeferred() const { return m_closeWhenStopped; }

Q_SIGNALS:
    void idleChanged();
    void droppedOpened();  // a drop's paths were looked at and opened

protected:
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;
    void closeEvent(QCloseEvent* e) override;
    void showEvent(QShowEvent* e) override;

private:
    void buildActions();
    void buildMenus();
    void buildDocks();
    void buildStatusBar();
    QWidget* buildWelcome();
    void showError(const QString& text);
    void clearError();
    void bindPanel(PlotView* view, bool rebuild);
    void onTimelineOf(const std::vector<int>& runIds, std::function<void(PlotView*)> then);
    void onCurrentViewChanged(PlotView* view);
    void onRunLoaded(int id);
    // A summary-first run's ranks picked in a plot (PlotView::ranksRequested): their events loaded, then the run's
    // timeline shown.
    void drillIntoRanks(int id, const std::vector<int>& ranks, bool only);
    void onRunRemoved(int id);
    void updateLoadStatus();
    void updateMemoryStatus();
    void updateActions();
    void addRecent(const QStringList& sources);
    void fillRecentMenu();
    void openFilesDialog();
    void openDirectoryDialog();
    void openSessionDialog();
    void saveSessionDialog(bool saveAs);
    void applySessionDialog();
    void exportDialog(bool table);
    void openSelectedPlot(const std::string& plotId, int pane, bool allRuns);
    void showShortcuts();
    void markSessionModified();
    bool confirmDiscardSession();  // false: the user cancelled
    bool confirmStopProfiling();   // false: the user keeps the window (and the runs) open
    // Cancels every job of the runner (loads, preparations, exports, sweep work, probes) and joins them: they stop
    // at their next cancellation point. Blocks this thread without running the event loop.
    void stopBackgroundWork();
    void showSweep(const QString& dir, const core::sweep::SweepDiscovery& found);
    static bool isSessionFile(const QString& path);

    std::unique_ptr<core::JobRunner> m_runner;
    std::unique_ptr<plots::PlotEngine> m_engine;
    RunManager* m_runs = nullptr;
    JobList* m_jobs = nullptr;

    PlotArea* m_plotArea = nullptr;
    RunsPanel* m_runsPanel = nullptr;
    SweepPanel* m_sweepPanel = nullptr;
    QDockWidget* m_sweepDock = nullptr;
    LaunchPanel* m_launchPanel = nullptr;
    QDockWidget* m_launchDock = nullptr;
    PlotList* m_plotList = nullptr;
    ParamPanel* m_paramPanel = nullptr;
    ChartPanel* m_chartPanel = nullptr;
    EventsList* m_eventsList = nullptr;
    QDockWidget* m_eventsDock = nullptr;
    QueryDock* m_query = nullptr;
    QDockWidget* m_queryDock = nullptr;
    FindingsDock* m_findings = nullptr;
    QDockWidget* m_findingsDock = nullptr;
    QTextBrowser* m_selection = nullptr;
    QPointer<PlotView> m_boundView;

    ErrorBar* m_errorBar = nullptr;
    QLabel* m_loadLabel = nullptr;
    QProgressBar* m_loadBar = nullptr;
    QToolButton* m_loadCancel = nullptr;
    QLabel* m_memoryLabel = nullptr;

    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    QAction* m_actOpenFiles = nullptr;
    QAction* m_actOpenDir = nullptr;
    QAction* m_actOpenSweep = nullptr;
    QAction* m_actOpenSample = nullptr;
    QAction* m_actProfile = nullptr;
    QAction* m_actReload = nullptr;
    QAction* m_actCloseRun = nullptr;
    QAction* m_actCompareRuns = nullptr;
    QAction* m_actDiff = nullptr;
    DiffDialog* m_diffDialog = nullptr;
    QAction* m_actCloseTab = nullptr;
    QAction* m_actOpenSession = nullptr;
    QAction* m_actSaveSession = nullptr;
    QAction* m_actSaveSessionAs = nullptr;
    QAction* m_actApplySession = nullptr;
    QAction* m_actExport = nullptr;
    QAction* m_actExportCsv = nullptr;
    QAction* m_actCopyImage = nullptr;
    QAction* m_actQuit = nullptr;
    QAction* m_actFindPlot = nullptr;
    QAction* m_actResetParams = nullptr;
    QAction* m_actSplit = nullptr;
    QAction* m_actSplitVertical = nullptr;
    QAction* m_actMoveTab = nullptr;
    QAction* m_actSync = nullptr;
    QAction* m_actZoomIn = nullptr;
    QAction* m_actZoomOut = nullptr;
    QAction* m_actZoomReset = nullptr;
    QAction* m_actNextTab = nullptr;
    QAction* m_actPrevTab = nullptr;
    QAction* m_actWatch = nullptr;

    std::map<int, std::unique_ptr<BackgroundJob>> m_drops;
    std::unique_ptr<BackgroundJob> m_pathJob;  // the critical path being computed for the timeline  // drops being looked at, by serial
    int m_nextDrop = 1;
    bool m_closeWhenStopped = false;
    QString m_sessionPath;
    bool m_sessionModified = false;
    QString m_lastError;
    bool m_autoOpen = true;
    // Runs opened by the user (File ▸ Open, a drop, a finished profiling run, a recent file) that open their own
    // view when loaded, unless a view shows them by then; runs of a sweep or a session are not in it.
    std::set<int> m_viewOnLoad;
    std::map<int, std::vector<int>> m_drillOnLoad;  // runs whose picked ranks load: show their timeline then
    bool m_docksSized = false;  // the side docks got their first width (showEvent)
    QPalette* m_systemPalette = nullptr;
};

}  // namespace strobe::app
