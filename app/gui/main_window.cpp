#include "app/gui/main_window.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/engine/converted_run.h"

#include "app/gui/diff_view.h"

#include <algorithm>
#include <optional>
#include <set>
#include <thread>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QRegularExpression>
#include <QStatusBar>
#include <QStyle>
#include <QTableWidget>
#include <QTextBrowser>
#include <QTimer>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "app/gui/chart_panel.h"
#include "app/gui/error_bar.h"
#include "app/gui/events_list.h"
#include "app/gui/findings_dock.h"
#include "app/gui/query_dock.h"
#include "app/gui/file_dialogs.h"
#include "app/gui/format.h"
#include "app/gui/jobs_panel.h"
#include "app/gui/launch_panel.h"
#include "app/gui/param_editor.h"
#include "app/gui/param_panel.h"
#include "app/gui/param_values.h"
#include "app/gui/plot_area.h"
#include "app/gui/plot_list.h"
#include "app/gui/plot_view.h"
#include "core/analysis/context.h"
#include "app/gui/profile_dialog.h"
#include "app/gui/run_manager.h"
#include "app/gui/runs_panel.h"
#include "app/gui/sweep_panel.h"
#include "core/engine/memory_budget.h"
#include "core/sweep/sweep_discovery.h"
#include "core/io/resources.h"
#include "plots/plot_registry.h"

namespace strobe::app {

namespace {
// The details of the item selected in a plot view, kept on the view (the Selection dock follows the current view).
constexpr const char* kSelectionProperty = "strobeSelectionHtml";
}  // namespace


namespace {

constexpr int kMaxRecent = 10;
constexpr const char* kPreferredFirstPlot = "gpu-timeline";
constexpr const char* kSummaryFirstPlot = "rank-step-heatmap";

QPalette darkPalette() {
    QPalette p;
    const QColor window(45, 45, 48), base(30, 30, 32), text(225, 225, 225), disabled(120, 120, 120);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, QColor(60, 60, 64));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Link, QColor(100, 160, 255));
    p.setColor(QPalette::Highlight, QColor(60, 110, 190));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Disabled, QPalette::Text, disabled);
    p.setColor(QPalette::Disabled, QPalette::WindowText, disabled);
    p.setColor(QPalette::Disabled, QPalette::ButtonText, disabled);
    return p;
}

QString sampleRunPath() {
    return QString::fromStdString(core::resourcePath("sample/param-dlrm-8rank").string());
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("Strobe"));
    setObjectName(QStringLiteral("StrobeMainWindow"));
    setAcceptDrops(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks);
    m_systemPalette = new QPalette(QApplication::palette());

    // The one job runner: loads, preparations and exports. Two threads beyond the cores, so that two long loads
    // never leave preparations waiting; loads reserve their estimated memory within the loader's limit.
    m_runner = std::make_unique<core::JobRunner>(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())) + 2);
    m_runner->setMemoryLimit(core::MemoryBudget().limit());
    m_engine = std::make_unique<plots::PlotEngine>(*m_runner);
    m_runs = new RunManager(*m_runner, this);
    m_jobs = new JobList(this);
    m_jobs->observe(*m_runner);  // the jobs panel shows every job of the runner

    // Centre: an error bar (inline, one at a time, never a modal storm) above the plot area.
    auto* centre = new QWidget(this);
    auto* centreLayout = new QVBoxLayout(centre);
    centreLayout->setContentsMargins(0, 0, 0, 0);
    centreLayout->setSpacing(0);
    m_errorBar = new ErrorBar(centre);
    centreLayout->addWidget(m_errorBar);
    m_plotArea = new PlotArea(buildWelcome(), centre);
    centreLayout->addWidget(m_plotArea, 1);
    setCentralWidget(centre);

    buildDocks();
    buildActions();
    buildMenus();
    buildStatusBar();

    connect(m_plotArea, &PlotArea::currentViewChanged, this, &MainWindow::onCurrentViewChanged);
    connect(m_plotArea, &PlotArea::viewsChanged, this, &MainWindow::updateActions);
    connect(m_plotArea, &PlotArea::viewsChanged, this, &MainWindow::markSessionModified);
    connect(m_runs, &RunManager::runLoaded, this, &MainWindow::onRunLoaded);
    connect(m_runs, &RunManager::runRemoved, this, &MainWindow::onRunRemoved);
    connect(m_runs, &RunManager::runRemoved, this, &MainWindow::markSessionModified);
    connect(m_runs, &RunManager::runChanged, this, &MainWindow::updateLoadStatus);
    connect(m_runs, &RunManager::runChanged, this, [this](int id) {
        const RunRecord* r = m_runs->run(id);
        if (r && r->error && r->state == RunState::Failed) {
            // The error names the file and the place; the run's label (its file or directory name) is said
            // only when the error does not already contain it.
            const QString error = QString::fromStdString(r->error->toString());
            showError(error.contains(r->label()) ? tr("Cannot load %1").arg(error)
                                               : tr("Cannot load %1: %2").arg(r->label(), error));
        }
    });
    connect(m_runs, &RunManager::loadingChanged, this, [this] {
        updateLoadStatus();
        updateActions();
        Q_EMIT idleChanged();
    });
    connect(m_jobs, &JobList::jobRemoved, this, [this] { Q_EMIT idleChanged(); });
    connect(m_runsPanel, &RunsPanel::reloadRequested, m_runs, &RunManager::reload);
    connect(m_runsPanel, &RunsPanel::clockOffsetChanged, this, [this] { markSessionModified(); });
    connect(m_runsPanel, &RunsPanel::closeRequested, m_runs, &RunManager::close);
    connect(m_runsPanel, &RunsPanel::ranksRequested, this, &MainWindow::drillIntoRanks);
    connect(m_runsPanel, &RunsPanel::openPlotsRequested, this, [this](int id) {
        const std::string pid = m_plotList->currentPlotId();
        auto all = plots::PlotRegistry::instance().plots();
        if (!all.empty()) openPlot(pid.empty() ? all.front()->id() : pid, {id});
    });
    connect(m_runsPanel, &RunsPanel::currentRunChanged, this, &MainWindow::updateActions);
    connect(m_runsPanel->tree(), &QTreeWidget::itemSelectionChanged, this, &MainWindow::updateActions);
    connect(m_runsPanel, &RunsPanel::compareRequested, this,
            [this](const std::vector<int>& ids, const std::string& plotId) { compareRuns(ids, plotId); });
    connect(m_plotList, &PlotList::compareSelectedRequested, this,
            [this](const std::string& plotId) { compareSelectedRuns(plotId); });
    connect(m_plotList, &PlotList::openRequested, this, &MainWindow::openSelectedPlot);
    connect(m_paramPanel, &ParamPanel::valueEdited, this, [this](const std::string& key, const plots::ParamValue& v) {
        PlotView* view = m_boundView;
        if (!view) return;
        view->setValue(key, v);
        markSessionModified();
        if (const auto* spec = plots::findSpec(view->specs(), key)) persistValue(view->plot().id(), *spec, v);
    });
    connect(m_paramPanel, &ParamPanel::resetAllRequested, this, [this] {
        PlotView* view = m_boundView;
        if (!view) return;
        forgetPersistedValues(view->plot().id());
        view->resetAll();
        markSessionModified();
        bindPanel(view, false);
    });

    auto* memoryTimer = new QTimer(this);
    connect(memoryTimer, &QTimer::timeout, this, &MainWindow::updateMemoryStatus);
    memoryTimer->start(1000);

    QSettings settings;
    m_actWatch->setChecked(settings.value(QStringLiteral("watchFiles"), true).toBool());
    m_runs->setWatchFiles(m_actWatch->isChecked());
    const QString theme = settings.value(QStringLiteral("theme"), QStringLiteral("system")).toString();
    setTheme(theme == QLatin1String("dark") ? Theme::Dark : theme == QLatin1String("light") ? Theme::Light : Theme::System);
    resize(1500, 920);
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    updateActions();
    updateMemoryStatus();
}

MainWindow::~MainWindow() {
    // Views cancel their jobs; then the engine and the runner go (the runner joins its threads).
    m_runs->cancelAll();
    delete m_plotArea;  // the views use the engine, which goes with this object's members
    m_plotArea = nullptr;
    // The panels whose background jobs use the runner go before it.
    m_drops.clear();
    delete m_sweepPanel;
    m_sweepPanel = nullptr;
    delete m_launchPanel;  // a strobe-cli still running (the window was never closed) is stopped and waited for
    m_launchPanel = nullptr;
    m_runner->cancelAll();
    m_engine.reset();
    m_runner.reset();  // joins while the jobs list and the run manager are still here
    delete m_systemPalette;
}

// ---------------------------------------------------------------- construction

QWidget* MainWindow::buildWelcome() {
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->addStretch();
    auto* title = new QLabel(tr("<h2>Strobe</h2><p>Open a PyTorch profiler (Kineto) trace — one file per rank — or a "
                                "directory of them.</p>"
                                "<p><b>File ▸ Open files…</b> (Ctrl+O), <b>File ▸ Open directory…</b> (Ctrl+Shift+O), "
                                "drop files or a sweep directory here, or start with the bundled sample.</p>"
                                "<p>Then double-click a plot in the <b>Plots</b> list; its parameters appear on the "
                                "right.</p>"),
                             page);
    title->setAlignment(Qt::AlignCenter);
    title->setWordWrap(true);
    layout->addWidget(title);
    auto* row = new QHBoxLayout();
    row->addStretch();
    auto* openBtn = new QPushButton(tr("Open files…"), page);
    auto* dirBtn = new QPushButton(tr("Open directory…"), page);
    auto* sampleBtn = new QPushButton(tr("Open the sample run (8 ranks, DLRM)"), page);
    sampleBtn->setObjectName(QStringLiteral("openSampleButton"));
    row->addWidget(openBtn);
    row->addWidget(dirBtn);
    row->addWidget(sampleBtn);
    row->addStretch();
    layout->addLayout(row);
    layout->addStretch();
    connect(openBtn, &QPushButton::clicked, this, &MainWindow::openFilesDialog);
    connect(dirBtn, &QPushButton::clicked, this, &MainWindow::openDirectoryDialog);
    connect(sampleBtn, &QPushButton::clicked, this, [this] { openPaths({sampleRunPath()}); });
    return page;
}

// The first show places the side docks at their share of the window (sizes asked before the window has its size
// are not kept): about a fifth of the width each, at least what their content needs, unless a saved window state
// placed them.
void MainWindow::showEvent(QShowEvent* e) {
    QMainWindow::showEvent(e);
    if (m_docksSized) return;
    m_docksSized = true;
    if (QSettings().contains(QStringLiteral("window/state"))) return;
    auto* runsDock = findChild<QDockWidget*>(QStringLiteral("runsDock"));
    auto* paramDock = findChild<QDockWidget*>(QStringLiteral("paramDock"));
    if (!runsDock || !paramDock) return;
    const int side = std::max(320, width() * 22 / 100);
    resizeDocks({runsDock, paramDock}, {side, side}, Qt::Horizontal);
}

void MainWindow::buildDocks() {
    // A dock holding `widget`; window state is saved and restored by the object names.
    auto addDock = [this](const QString& title, const QString& objectName, QWidget* widget, Qt::DockWidgetArea area) {
        auto* dock = new QDockWidget(title, this);
        dock->setObjectName(objectName);
        dock->setWidget(widget);
        addDockWidget(area, dock);
        return dock;
    };
    m_runsPanel = new RunsPanel(*m_runs, this);
    auto* runsDock = addDock(tr("Runs"), QStringLiteral("runsDock"), m_runsPanel, Qt::LeftDockWidgetArea);

    m_plotList = new PlotList(this);
    auto* plotsDock = addDock(tr("Plots"), QStringLiteral("plotsDock"), m_plotList, Qt::LeftDockWidgetArea);
    splitDockWidget(runsDock, plotsDock, Qt::Vertical);
    resizeDocks({runsDock, plotsDock}, {560, 260}, Qt::Vertical);

    m_paramPanel = new ParamPanel(this);
    auto* paramDock = addDock(tr("Parameters"), QStringLiteral("paramDock"), m_paramPanel, Qt::RightDockWidgetArea);

    m_selection = new QTextBrowser(this);
    m_selection->setObjectName(QStringLiteral("selectionDetails"));
    m_selection->setPlaceholderText(tr("Click an item in a plot to see its details here."));
    auto* selDock = addDock(tr("Selection"), QStringLiteral("selectionDock"), m_selection, Qt::RightDockWidgetArea);
    splitDockWidget(paramDock, selDock, Qt::Vertical);
    resizeDocks({paramDock, selDock}, {500, 320}, Qt::Vertical);
    resizeDocks({runsDock, paramDock}, {340, 340}, Qt::Horizontal);

    auto* jobsDock =
        addDock(tr("Jobs"), QStringLiteral("jobsDock"), new JobsPanel(*m_jobs, this), Qt::RightDockWidgetArea);
    tabifyDockWidget(selDock, jobsDock);

    // The current plot's numbers as an interactive Qt Charts chart (zoom, hover values, legend toggling).
    m_chartPanel = new ChartPanel(this);
    auto* chartDock = addDock(tr("Chart"), QStringLiteral("chartDock"), m_chartPanel, Qt::RightDockWidgetArea);
    tabifyDockWidget(jobsDock, chartDock);
    // Every instance of what a timeline was asked to list (its context menu, search, measured range), at the
    // bottom, under the plots: wide enough for names and every column.
    m_eventsList = new EventsList(this);
    m_eventsDock = addDock(tr("Events"), QStringLiteral("eventsDock"), m_eventsList, Qt::BottomDockWidgetArea);
    m_eventsDock->hide();
    // SQL over the loaded runs (View ▸ Query), tabbed with the Events dock: a result row's range goes there.
    m_query = new QueryDock(*m_runs, this);
    m_queryDock = addDock(tr("Query"), QStringLiteral("queryDock"), m_query, Qt::BottomDockWidgetArea);
    tabifyDockWidget(m_eventsDock, m_queryDock);
    m_queryDock->hide();
    connect(m_query, &QueryDock::rangeRequested, this,
            [this](int runId, int, qint64 start, qint64 end) { showRangeOnTimeline(runId, start, end); });
    connect(m_query, &QueryDock::finished, this, [this] { markSessionModified(); });
    m_findings = new FindingsDock(*m_runs, this);
    m_findingsDock = addDock(tr("Findings"), QStringLiteral("findingsDock"), m_findings, Qt::BottomDockWidgetArea);
    // Beside the Events dock (added after its tab group), not tabbed with it: a click on a finding lists its events
    // there, and the findings stay in view to click the next one.
    m_findingsDock->hide();
    // A finding's range is on its rank's clock: the events list shows that rank's events in it.
    connect(m_findings, &FindingsDock::rangeRequested, this,
            [this](int runId, int rank, qint64 start, qint64 end) { showRangeOnTimeline(runId, start, end, rank); });
    selDock->raise();

    // A sweep's runs × axes, the comparison and the report (File ▸ Open sweep…), tabbed with the Runs dock.
    m_sweepPanel = new SweepPanel(*m_runs, this);
    m_sweepDock = addDock(tr("Sweep"), QStringLiteral("sweepDock"), m_sweepPanel, Qt::LeftDockWidgetArea);
    tabifyDockWidget(runsDock, m_sweepDock);
    runsDock->raise();
    // strobe-cli runs launched from File ▸ Profile a workload…, at the bottom; shown with the first launch.
    m_launchPanel = new LaunchPanel(*m_runner, this);
    m_launchDock = addDock(tr("Profiling runs"), QStringLiteral("launchDock"), m_launchPanel, Qt::BottomDockWidgetArea);
    m_launchDock->hide();
    // A completed run opens as File ▸ Open does (a sweep as File ▸ Open sweep); Open does the same for any run.
    connect(m_launchPanel, &LaunchPanel::openRequested, this, [this](const QString& dir, bool sweep) {
        if (sweep) openSweep(dir);
        else openPaths({dir});
    });
    // Closing while profiling runs were in flight: the window closes once the last one has ended.
    connect(m_launchPanel, &LaunchPanel::runningChanged, this, [this](int running) {
        if (running == 0 && m_closeWhenStopped) QMetaObject::invokeMethod(this, [this] { close(); }, Qt::QueuedConnection);
    });
    connect(m_sweepPanel, &SweepPanel::openPlotRequested, this, [this](const std::vector<int>& ids) {
        const std::string pid = m_plotList->currentPlotId();
        PlotView* view = openPlot(pid.empty() ? std::string("kernel-breakdown") : pid, ids);
        if (!view) return;
        // The dock's group-by, baseline and skip-steps, where the plot has them (issue 21).
        plots::ParamValues values = view->values();
        bool changed = false;
        for (const auto& [key, value] : m_sweepPanel->plotValues())
            if (auto it = values.find(key); it != values.end() && it->second.index() == value.index()) {
                it->second = value;
                changed = true;
            }
        if (changed) view->setValues(values);
    });
}

void MainWindow::openSweep(const QString& dir) {
    m_sweepDock->show();
    m_sweepDock->raise();
    // The runs × axes table and the comparison need room: at least 40 % of the window's width.
    if (m_sweepDock->width() < width() * 2 / 5) resizeDocks({m_sweepDock}, {width() * 2 / 5}, Qt::Horizontal);
    m_sweepPanel->openSweep(dir);
}

void MainWindow::showSweep(const QString& dir, const core::sweep::SweepDiscovery& found) {
    m_sweepDock->show();
    m_sweepDock->raise();
    if (m_sweepDock->width() < width() * 2 / 5) resizeDocks({m_sweepDock}, {width() * 2 / 5}, Qt::Horizontal);
    m_sweepPanel->showDiscovered(dir, found);
}

void MainWindow::buildActions() {
    auto make = [this](const QString& text, const QKeySequence& key, auto slot, QStyle::StandardPixmap icon = QStyle::SP_CustomBase) {
        auto* a = new QAction(text, this);
        if (!key.isEmpty()) a->setShortcut(key);
        if (icon != QStyle::SP_CustomBase) a->setIcon(style()->standardIcon(icon));
        connect(a, &QAction::triggered, this, slot);
        addAction(a);
        return a;
    };
    m_actOpenFiles = make(tr("&Open files…"), QKeySequence::Open, [this] { openFilesDialog(); }, QStyle::SP_DialogOpenButton);
    m_actOpenDir = make(tr("Open &directory…"), QKeySequence(tr("Ctrl+Shift+O")), [this] { openDirectoryDialog(); },
                        QStyle::SP_DirOpenIcon);
    m_actOpenSweep = make(tr("Open s&weep…"), QKeySequence(tr("Ctrl+Alt+W")), [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a sweep directory"),
                                                              dialogDirectory(QStringLiteral("sweep")));
        if (dir.isEmpty()) return;
        rememberDialogDirectory(QStringLiteral("sweep"), QFileInfo(dir).absolutePath());
        openSweep(dir);
    });
    m_actOpenSample = make(tr("Open the &sample run"), {}, [this] { openPaths({sampleRunPath()}); });
    m_actProfile = make(tr("&Profile a workload…"), QKeySequence(tr("Ctrl+Shift+P")), [this] { profileWorkloadDialog(); },
                        QStyle::SP_MediaPlay);
    m_actProfile->setToolTip(tr("Run a command under profilers and samplers (strobe-cli collect) and open the result"));
    m_actReload = make(tr("&Reload"), QKeySequence(Qt::Key_F5), [this] {
        const auto sel = m_runsPanel->selectedRuns();
        if (sel.empty()) m_runs->reloadAll();
        for (int id : sel) m_runs->reload(id);
        for (auto* v : m_plotArea->views())
            if (!v->errorText().isEmpty()) v->refreshData();
    }, QStyle::SP_BrowserReload);
    m_actCloseRun = make(tr("Close r&un"), QKeySequence(tr("Ctrl+Shift+W")), [this] {
        if (int id = m_runsPanel->currentRun()) m_runs->close(id);
    });
    m_actCompareRuns = make(tr("Compare selected r&uns"), QKeySequence(tr("Ctrl+Shift+K")),
                            [this] { compareSelectedRuns(); });
    m_actCompareRuns->setToolTip(tr("Open the current plot over the runs selected in the Runs tree"));
    m_actDiff = make(tr("Structural &diff of two runs…"), QKeySequence(tr("Ctrl+Shift+D")), [this] { openDiff(); });
    m_actDiff->setToolTip(tr("Compare two runs as trees of CPU operators by call site, with the GPU time beneath each"));
    m_actCloseTab = make(tr("&Close plot"), QKeySequence::Close, [this] {
        if (auto* v = m_plotArea->currentView()) m_plotArea->closeView(v);
    });
    m_actOpenSession = make(tr("Open s&ession…"), QKeySequence(tr("Ctrl+Alt+O")), [this] { openSessionDialog(); });
    m_actSaveSession = make(tr("&Save session"), QKeySequence::Save, [this] { saveSessionDialog(false); },
                            QStyle::SP_DialogSaveButton);
    m_actSaveSessionAs = make(tr("Save session &as…"), QKeySequence(tr("Ctrl+Shift+S")), [this] { saveSessionDialog(true); });
    m_actApplySession = make(tr("Apply session to open &runs…"), {}, [this] { applySessionDialog(); });
    m_actExport = make(tr("&Export plot…"), QKeySequence(tr("Ctrl+E")), [this] { exportDialog(false); });
    m_actExportCsv = make(tr("Export plot &table (CSV)…"), QKeySequence(tr("Ctrl+Shift+E")), [this] { exportDialog(true); });
    m_actCopyImage = make(tr("&Copy plot image"), QKeySequence(tr("Ctrl+Shift+C")), [this] { copyImageToClipboard(); });
    m_actQuit = make(tr("&Quit"), QKeySequence::Quit, [this] { close(); });
    m_actFindPlot = make(tr("&Find plot"), QKeySequence::Find, [this] { m_plotList->focusSearch(); });
    m_actResetParams = make(tr("&Reset parameters to defaults"), QKeySequence(tr("Ctrl+Shift+R")),
                            [this] { Q_EMIT m_paramPanel->resetAllRequested(); });
    m_actSplit = make(tr("&Split view"), QKeySequence(tr("Ctrl+\\")), [this](bool on) { m_plotArea->setSplit(on); });
    m_actSplit->setCheckable(true);
    m_actSplitVertical = make(tr("Stack panes &vertically"), {}, [this](bool on) { m_plotArea->setVertical(on); });
    m_actSplitVertical->setCheckable(true);
    m_actMoveTab = make(tr("&Move plot to the other pane"), QKeySequence(tr("Ctrl+M")),
                        [this] { m_plotArea->moveCurrentToOtherPane(); });
    m_actSync = make(tr("S&ynchronise time axes"), {}, [this](bool on) { m_plotArea->setSyncTimeAxes(on); });
    m_actSync->setCheckable(true);
    m_actSync->setChecked(true);
    // Zoom keys act only while the focus is in the plot area, so they never steal typing from a field.
    auto plotKey = [this](QAction* a) {
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        removeAction(a);
        m_plotArea->addAction(a);
    };
    m_actZoomIn = make(tr("Zoom &in"), QKeySequence(Qt::Key_Plus), [this] {
        if (auto* v = m_plotArea->currentView()) v->zoomBy(0.8);
    });
    m_actZoomIn->setShortcuts({QKeySequence(Qt::Key_Plus), QKeySequence(Qt::Key_Equal)});
    m_actZoomOut = make(tr("Zoom &out"), QKeySequence(Qt::Key_Minus), [this] {
        if (auto* v = m_plotArea->currentView()) v->zoomBy(1.25);
    });
    m_actZoomReset = make(tr("&Reset zoom"), QKeySequence(Qt::Key_0), [this] {
        if (auto* v = m_plotArea->currentView()) v->resetZoom();
    });
    plotKey(m_actZoomIn);
    plotKey(m_actZoomOut);
    plotKey(m_actZoomReset);
    m_actNextTab = make(tr("&Next plot"), QKeySequence(tr("Ctrl+Tab")), [this] { m_plotArea->cycleTabs(1); });
    m_actPrevTab = make(tr("&Previous plot"), QKeySequence(tr("Ctrl+Shift+Tab")), [this] { m_plotArea->cycleTabs(-1); });
    m_actWatch = make(tr("Reload when files &change"), {}, [this](bool on) {
        m_runs->setWatchFiles(on);
        QSettings().setValue(QStringLiteral("watchFiles"), on);
    });
    m_actWatch->setCheckable(true);
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_actOpenFiles);
    file->addAction(m_actOpenDir);
    file->addAction(m_actOpenSweep);
    m_recentMenu = file->addMenu(tr("Open &recent"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::fillRecentMenu);
    file->addAction(m_actOpenSample);
    file->addSeparator();
    file->addAction(m_actProfile);
    file->addSeparator();
    file->addAction(m_actReload);
    file->addAction(m_actWatch);
    file->addAction(m_actCloseRun);
    file->addSeparator();
    file->addAction(m_actOpenSession);
    file->addAction(m_actSaveSession);
    file->addAction(m_actSaveSessionAs);
    file->addAction(m_actApplySession);
    file->addSeparator();
    file->addAction(m_actExport);
    file->addAction(m_actExportCsv);
    file->addSeparator();
    file->addAction(m_actQuit);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(m_actCopyImage);
    edit->addAction(m_actFindPlot);
    edit->addAction(m_actResetParams);

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    m_viewMenu->addAction(m_actSplit);
    m_viewMenu->addAction(m_actSplitVertical);
    m_viewMenu->addAction(m_actMoveTab);
    m_viewMenu->addAction(m_actSync);
    m_viewMenu->addAction(m_actCompareRuns);
    m_viewMenu->addAction(m_actDiff);
    {
        auto* q = m_viewMenu->addAction(tr("&Query the runs (SQL)…"), this, [this] { showQueryDock(); });
        q->setShortcut(QKeySequence(tr("Ctrl+Shift+Q")));
        q->setToolTip(tr("SQL over the loaded runs: kernels, slices, flows, counters, samples, steps, ranks, runs"));
    }
    {
        auto* f = m_viewMenu->addAction(tr("&Findings (where the step goes)…"), this, [this] { showFindingsDock(); });
        f->setToolTip(tr("Findings of a loaded run ranked by the time they cost per step, as strobe-cli advise"));
    }
    m_viewMenu->addSeparator();
    m_viewMenu->addAction(m_actZoomIn);
    m_viewMenu->addAction(m_actZoomOut);
    m_viewMenu->addAction(m_actZoomReset);
    m_viewMenu->addSeparator();
    m_viewMenu->addAction(m_actNextTab);
    m_viewMenu->addAction(m_actPrevTab);
    m_viewMenu->addAction(m_actCloseTab);
    m_viewMenu->addSeparator();
    QMenu* theme = m_viewMenu->addMenu(tr("&Theme"));
    auto* group = new QActionGroup(this);
    const QString current = QSettings().value(QStringLiteral("theme"), QStringLiteral("system")).toString();
    for (auto [name, value, key] : {std::tuple{tr("Follow the system"), Theme::System, QStringLiteral("system")},
                                    std::tuple{tr("Light"), Theme::Light, QStringLiteral("light")},
                                    std::tuple{tr("Dark"), Theme::Dark, QStringLiteral("dark")}}) {
        QAction* a = theme->addAction(name);
        a->setCheckable(true);
        a->setChecked(current == key);
        group->addAction(a);
        connect(a, &QAction::triggered, this, [this, value, key] {
            setTheme(value);
            QSettings().setValue(QStringLiteral("theme"), key);
        });
    }
    m_viewMenu->addSeparator();
    for (auto* dock : findChildren<QDockWidget*>()) m_viewMenu->addAction(dock->toggleViewAction());

    QMenu* analyze = menuBar()->addMenu(tr("&Analyze"));
    {
        auto* a = analyze->addAction(tr("Show &critical path…"), this, [this] { showCriticalPathDialog(); });
        a->setObjectName(QStringLiteral("actCriticalPath"));
        a->setToolTip(tr("The critical path of a step on the timeline: its segments outlined, the rest dimmed, its "
                         "cross-lane and cross-rank edges as arrows (Esc clears)"));
        auto* c = analyze->addAction(tr("C&lear critical path"), this, [this] {
            for (PlotView* v : m_plotArea->views()) v->clearCriticalPath();
        });
        c->setObjectName(QStringLiteral("actClearCriticalPath"));
    }

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard shortcuts"), this, &MainWindow::showShortcuts);
    help->addAction(tr("&About Strobe"), this, [this] {
        showError(QString());  // clears
        statusBar()->showMessage(tr("Strobe %1 — a workbench for GPU performance traces").arg(QStringLiteral(STROBE_VERSION)), 8000);
    });
}

void MainWindow::buildStatusBar() {
    m_loadLabel = new QLabel(this);
    m_loadBar = new QProgressBar(this);
    m_loadBar->setRange(0, 1000);
    m_loadBar->setMaximumWidth(200);
    m_loadCancel = new QToolButton(this);
    m_loadCancel->setText(tr("Cancel"));
    m_loadCancel->setToolTip(tr("Stop loading"));
    connect(m_loadCancel, &QToolButton::clicked, this, [this] { m_runs->cancelAll(); });
    m_memoryLabel = new QLabel(this);
    m_memoryLabel->setObjectName(QStringLiteral("memoryLabel"));
    statusBar()->addPermanentWidget(m_loadLabel);
    statusBar()->addPermanentWidget(m_loadBar);
    statusBar()->addPermanentWidget(m_loadCancel);
    statusBar()->addPermanentWidget(m_memoryLabel);
    m_loadLabel->hide();
    m_loadBar->hide();
    m_loadCancel->hide();
}

// ---------------------------------------------------------------- runs

std::vector<int> MainWindow::openPaths(const QStringList& paths, std::optional<int64_t> clockOffsetNs) {
    std::vector<int> ids;
    QStringList traces;
    for (const auto& p : paths) {
        if (isSessionFile(p) && QFileInfo(p).isFile()) openSession(p);
        else traces << p;
    }
    for (const auto& group : RunManager::groupIntoRuns(traces)) ids.push_back(openRun(group, {}, {}, clockOffsetNs));
    return ids;
}

int MainWindow::openRun(const QStringList& sources, const QString& label,
                        const core::RunParameters& parameters, std::optional<int64_t> clockOffsetNs) {
    const int id = m_runs->openRun(sources, label, parameters, clockOffsetNs);
    m_viewOnLoad.insert(id);
    markSessionModified();
    addRecent(sources);
    m_runsPanel->selectRun(id);
    return id;
}

void MainWindow::onRunLoaded(int id) {
    for (auto* v : m_plotArea->views()) {
        const auto& ids = v->runIds();
        if (std::find(ids.begin(), ids.end(), id) != ids.end()) v->refreshData();
    }
    bool shown = false;
    for (auto* v : m_plotArea->views()) {
        const auto& ids = v->runIds();
        shown = shown || std::find(ids.begin(), ids.end(), id) != ids.end();
    }
    if (m_viewOnLoad.erase(id) > 0 && m_autoOpen && !shown) {
        // A run the user opened shows at once: its timeline (the first plot) in a tab of its own.
        auto all = plots::PlotRegistry::instance().plots();
        // A run opened summary-first: the cross-rank view its summaries answer (the timeline has only the ranks
        // picked there).
        const plots::Plot* first = plots::PlotRegistry::instance().find(
            m_runs->isSummaryFirst(id) ? kSummaryFirstPlot : kPreferredFirstPlot);
        if (!first && !all.empty()) first = all.front();
        if (first) openPlot(first->id(), {id});
    }
    if (auto drill = m_drillOnLoad.find(id); drill != m_drillOnLoad.end()) {
        const std::vector<int> ranks = drill->second;
        m_drillOnLoad.erase(drill);
        const RunRecord* run = m_runs->run(id);
        const core::RunSummaries* sf = run && run->dataset ? run->dataset->summaryFirst.get() : nullptr;
        if (sf && std::any_of(ranks.begin(), ranks.end(), [sf](int r) { return sf->isLoaded(r); })) {
            onTimelineOf({id}, [](PlotView*) {});
            statusBar()->showMessage(QString::fromStdString(sf->loadedText()), 8000);
        }
        if (sf && !sf->notes.empty()) showError(QString::fromStdString(fmt::format("{}", fmt::join(sf->notes, "\n"))));
    }
    if (m_boundView) bindPanel(m_boundView, true);
    updateActions();
    updateMemoryStatus();
}

void MainWindow::drillIntoRanks(int id, const std::vector<int>& ranks, bool only) {
    if (ranks.empty() || !m_runs->loadRanks(id, ranks, only)) return;
    m_drillOnLoad[id] = ranks;
    QStringList names;
    for (int r : ranks) names << QString::number(r);
    statusBar()->showMessage(tr("Loading the events of rank %1 of %2…")
                                 .arg(names.join(QStringLiteral(", ")), m_runs->run(id)->label()));
}

void MainWindow::onRunRemoved(int id) {
    // A view over several runs goes on over the others; a view left without runs closes.
    for (auto* v : m_plotArea->views()) {
        const auto& ids = v->runIds();
        if (std::find(ids.begin(), ids.end(), id) == ids.end()) continue;
        if (!v->removeRun(id)) m_plotArea->closeView(v);
    }
    if (m_boundView) bindPanel(m_boundView, true);  // the specs may depend on the runs (ranks, axes, steps)
    updateActions();
    updateMemoryStatus();
}

void MainWindow::updateLoadStatus() {
    int loading = 0;
    double fraction = 0;
    QString text;
    for (int id : m_runs->runIds()) {
        const RunRecord* r = m_runs->run(id);
        if (!r || r->state != RunState::Loading) continue;
        ++loading;
        fraction += r->fraction;
        text = r->stageFile.isEmpty() ? tr("Loading %1: %2").arg(r->label(), r->stage)
                                      : tr("Loading %1: %2 (%3)").arg(r->label(), r->stage, QFileInfo(r->stageFile).fileName());
    }

    const bool show = loading > 0;
    if (loading > 1) text = tr("Loading %n runs", nullptr, loading);
    m_loadLabel->setText(text);
    m_loadBar->setValue(static_cast<int>(fraction / std::max(1, loading) * 1000));
    m_loadLabel->setVisible(show);
    m_loadBar->setVisible(show);
    m_loadCancel->setVisible(show);
}

void MainWindow::updateMemoryStatus() {
    const size_t data = m_runs->datasetBytes();
    const size_t cache = m_engine->cache().bytes();
    QString text = tr("Data %1 · plot cache %2 (%n entries)", nullptr, static_cast<int>(m_engine->cache().size()))
                       .arg(formatBytes(data), formatBytes(cache));
    // What a summary-first run holds: which ranks' events are loaded, the others summary only.
    for (int id : m_runs->runIds())
        if (const RunRecord* r = m_runs->run(id); r && r->dataset && r->dataset->summaryFirst)
            text += tr(" · %1: %2").arg(r->label(), QString::fromStdString(r->dataset->summaryFirst->loadedText()));
    m_memoryLabel->setText(text);
    m_memoryLabel->setToolTip(tr("Memory held by the loaded runs' tables and strings, and by prepared plot data "
                                 "(budget %1)").arg(formatBytes(m_engine->cache().budget())));
}

bool MainWindow::isIdle() const {
    if (m_runs->anyLoading()) return false;
    for (auto* v : m_plotArea->views())
        if (v->isUpdating()) return false;
    return true;
}

// ---------------------------------------------------------------- plots

PlotView* MainWindow::openPlot(const std::string& plotId, const std::vector<int>& runIds, int pane,
                               const plots::ParamValues* values) {
    const plots::Plot* plot = plots::PlotRegistry::instance().find(plotId);
    if (!plot) {
        showError(tr("There is no plot “%1”.").arg(QString::fromStdString(plotId)));
        return nullptr;
    }
    if (runIds.empty()) {
        showError(tr("Open a run first (File ▸ Open files…), then open “%1” on it.").arg(QString::fromStdString(plot->title())));
        return nullptr;
    }
    plots::RunSet runsNow;
    for (int id : runIds)
        if (auto e = m_runs->runEntry(id); e.dataset) runsNow.push_back(e);
    const auto specs = plot->parameters(runsNow);
    plots::ParamValues initial = values ? *values : loadPersistedValues(plotId, specs);
    auto* view = new PlotView(*plot, *m_engine, *m_runs, runIds, initial);
    connect(view, &PlotView::valuesChanged, this, [this, view] {
        if (view == m_boundView) bindPanel(view, false);
    });
    connect(view, &PlotView::itemSelected, this, [this, view](const QString&, const QString& html) {
        view->setProperty(kSelectionProperty, html);  // shown again when the view becomes current again
        if (view == m_plotArea->currentView()) m_selection->setHtml(html);
    });
    connect(view, &PlotView::stateChanged, this, [this] { Q_EMIT idleChanged(); });
    connect(view, &PlotView::instancesRequested, this,
            [this, view](const std::string& name) { listInstancesOnTimeline(view->runIds(), name); });
    // The critical-path plot: a double-clicked bar's class highlighted on the timeline, with the plot's window.
    connect(view, &PlotView::pathClassRequested, this, [this, view](const std::string& boundBy) {
        if (view->runIds().empty()) return;
        core::CpRequest req;
        const auto& v = view->values();
        auto number = [&](const char* key) -> std::optional<long long> {
            auto it = v.find(key);
            const long long* n = it == v.end() ? nullptr : std::get_if<long long>(&it->second);
            return n ? std::optional<long long>(*n) : std::nullopt;
        };
        req.rank = static_cast<int>(number("rank").value_or(-1));
        req.step = number("step").value_or(-1);
        if (auto it = v.find("definition"); it != v.end()) {
            const std::string* d = std::get_if<std::string>(&it->second);
            if (d && *d == "hta") req.definition = core::CpDefinition::Hta;
        }
        showCriticalPath(view->runIds().front(), req, boundBy);
    });
    connect(view, &PlotView::instanceRequested, this,
            [this, view](const std::string& run, int rank, qint64 ts, const std::string& name) {
                showInstanceOnTimeline(view->runIds(), run, rank, ts, name);
            });
    connect(view, &PlotView::ranksRequested, this, &MainWindow::drillIntoRanks);
    connect(view, &PlotView::eventsListed, this, [this, view](const EventListing& listing) {
        m_eventsList->setListing(listing, view);
        m_eventsDock->show();
        m_eventsDock->raise();
    });
    m_plotArea->addView(view, pane < 0 ? m_plotArea->activePane() : pane);
    view->setFocus();
    return view;
}

// Runs `then` on the timeline of exactly these runs (opened when none shows them, made the current tab) once it is
// prepared.
void MainWindow::onTimelineOf(const std::vector<int>& runIds, std::function<void(PlotView*)> then) {
    PlotView* timeline = nullptr;
    for (PlotView* v : m_plotArea->views())
        if (v->isTimeline() && v->runIds() == runIds) timeline = v;
    if (!timeline) timeline = openPlot("gpu-timeline", runIds);
    if (!timeline) return;
    if (const int pane = m_plotArea->paneOf(timeline); pane >= 0) {
        const auto tabs = m_plotArea->views(pane);
        const auto at = std::find(tabs.begin(), tabs.end(), timeline);
        m_plotArea->setCurrentIndex(pane, int(at - tabs.begin()));
    }
    if (timeline->prepared() && !timeline->isUpdating()) return then(timeline);
    auto done = std::make_shared<QMetaObject::Connection>();
    *done = connect(timeline, &PlotView::stateChanged, this, [timeline, then, done] {
        if (!timeline->prepared() || timeline->isUpdating()) return;
        QObject::disconnect(*done);
        then(timeline);
    });
}

void MainWindow::showCriticalPathDialog() {
    PlotView* current = m_plotArea->currentView();
    const auto ids = m_runs->runIds();
    const int runId = current && !current->runIds().empty() ? current->runIds().front() : ids.empty() ? -1 : ids.front();
    const RunRecord* run = runId >= 0 ? m_runs->run(runId) : nullptr;
    if (!run || !run->dataset) {
        showError(tr("Open a run first: the critical path is computed on a loaded run."));
        return;
    }
    // The steps of the run's ranks (the merge's step table), then the whole trace.
    std::set<int64_t> steps;
    for (const auto& r : run->dataset->ranks)
        if (r)
            for (size_t i = 0; i < r->steps.size(); ++i) steps.insert(r->steps.number[i]);
    QStringList items;
    for (int64_t n : steps) items << QStringLiteral("ProfilerStep#%1").arg(n);
    items << tr("the whole trace");
    bool ok = false;
    const QString picked = QInputDialog::getItem(this, tr("Show critical path"),
                                                 tr("Window of %1 (every rank, Strobe's definition):").arg(run->label()),
                                                 items, std::max<int>(0, int(items.size()) - 2), false, &ok);
    if (!ok) return;
    core::CpRequest req;
    if (picked.startsWith(QStringLiteral("ProfilerStep#"))) req.step = picked.mid(13).toLongLong();
    showCriticalPath(runId, req);
}

void MainWindow::showCriticalPath(int runId, const core::CpRequest& req, const std::string& boundBy) {
    const RunRecord* run = m_runs->run(runId);
    if (!run || !run->dataset) return;
    if (!m_pathJob) m_pathJob = std::make_unique<BackgroundJob>(*m_runner, "critical-path:main");
    const core::DatasetPtr dataset = run->dataset;
    m_pathJob->start<core::Result<ShownCriticalPath>>(
        tr("Critical path of %1").arg(run->label()),
        [dataset, req, boundBy](const core::JobContext&) -> core::Result<ShownCriticalPath> {
            auto ctx = core::AnalysisContext::of(dataset);
            auto r = core::criticalPath(*ctx, req);
            if (!r) return r.error();
            return shownCriticalPath(r.value(), 0, boundBy);
        },
        [this, runId](core::Result<ShownCriticalPath> r) {
            if (!r) return showError(tr("Critical path: %1").arg(QString::fromStdString(r.error().message)));
            onTimelineOf({runId}, [shown = std::move(r.value())](PlotView* timeline) { timeline->showCriticalPath(shown); });
        },
        [this](const QString& why) { statusBar()->showMessage(tr("Critical path: %1").arg(why), 8000); });
}

void MainWindow::listInstancesOnTimeline(const std::vector<int>& runIds, const std::string& name) {
    onTimelineOf(runIds, [this, name](PlotView* timeline) {
        if (!timeline->listName(name))
            statusBar()->showMessage(tr("No instance of %1 on the timeline").arg(QString::fromStdString(name)), 8000);
    });
}

void MainWindow::showQueryDock() {
    const bool wasHidden = !m_queryDock->isVisible();
    m_queryDock->show();
    m_queryDock->raise();
    if (wasHidden) resizeDocks({m_queryDock}, {height() * 2 / 5}, Qt::Vertical);  // room for the SQL and rows
    m_query->editor()->setFocus();
}

void MainWindow::showFindingsDock() {
    const bool wasHidden = !m_findingsDock->isVisible();
    m_findingsDock->show();
    if (tabifiedDockWidgets(m_findingsDock).contains(m_eventsDock)) {
        // A layout saved when the two were tabbed: the events a click lists would hide the findings.
        removeDockWidget(m_findingsDock);
        addDockWidget(Qt::BottomDockWidgetArea, m_findingsDock);
        m_findingsDock->show();
    }
    m_findingsDock->raise();
    if (wasHidden) resizeDocks({m_findingsDock}, {height() * 2 / 5}, Qt::Vertical);
    if (m_findings->shownRun() < 0 && !m_findings->isRunning()) m_findings->analyse();
}

void MainWindow::showRangeOnTimeline(int runId, int64_t start, int64_t end, int rank) {
    onTimelineOf({runId}, [start, end, rank](PlotView* timeline) {
        if (timeline->showAbsoluteRange(start, end)) timeline->listMeasure(rank);
    });
}

void MainWindow::showInstanceOnTimeline(const std::vector<int>& runIds, const std::string& run, int rank, int64_t ts,
                                        const std::string& name) {
    if (runIds.empty()) return;
    int runId = runIds.front();
    for (int id : runIds)
        if (!run.empty() && m_runs->runEntry(id).label == run) runId = id;
    onTimelineOf({runId}, [this, rank, ts, name](PlotView* timeline) {
        if (timeline->selectInstance(rank, ts, name)) return;
        statusBar()->showMessage(tr("%1 not found on the timeline at that time: the time is shown")
                                     .arg(QString::fromStdString(name)),
                                 8000);
        timeline->showAbsoluteRange(ts, ts + 1);
    });
}

PlotView* MainWindow::compareRuns(const std::vector<int>& runIds, const std::string& plotId) {
    std::vector<int> ids;
    for (int id : runIds)
        if (const RunRecord* r = m_runs->run(id); r && r->state != RunState::Failed) ids.push_back(id);
    std::string pid = plotId;
    if (pid.empty())
        if (PlotView* v = m_plotArea->currentView()) pid = v->plot().id();
    if (pid.empty()) pid = m_plotList->currentPlotId();
    if (pid.empty()) pid = kPreferredFirstPlot;
    return openPlot(pid, ids);
}

PlotView* MainWindow::compareSelectedRuns(const std::string& plotId) {
    const auto ids = m_runsPanel->selectedRuns();
    if (ids.size() < 2) {
        showError(tr("Select two or more runs in the Runs tree (Ctrl+click), then compare them."));
        return nullptr;
    }
    return compareRuns(ids, plotId);
}

void MainWindow::openSelectedPlot(const std::string& plotId, int pane, bool allRuns) {
    if (plotId.empty()) return;
    std::vector<int> ids;
    if (allRuns) {
        for (int id : m_runs->runIds())
            if (const RunRecord* r = m_runs->run(id); r && r->state != RunState::Failed) ids.push_back(id);
    } else if (int id = m_runsPanel->currentRun()) {
        ids.push_back(id);  // the current run (Compare selected runs opens one over several)
    }
    openPlot(plotId, ids, pane);
}

void MainWindow::onCurrentViewChanged(PlotView* view) {
    bindPanel(view, true);
    // The Selection dock shows the current plot's selected item, never one of a plot no longer in front.
    const QString html = view ? view->property(kSelectionProperty).toString() : QString();
    if (html.isEmpty())
        m_selection->clear();
    else
        m_selection->setHtml(html);
    m_chartPanel->setView(view);
    updateActions();
}

void MainWindow::bindPanel(PlotView* view, bool rebuild) {
    if (!view) {
        m_boundView = nullptr;
        m_paramPanel->clear();
        return;
    }
    // Rebuild when the view or its specs (data-dependent choices) changed; otherwise only show the values.
    bool same = !rebuild && view == m_boundView && m_paramPanel->specs().size() == view->specs().size();
    if (same) {
        const auto& a = m_paramPanel->specs();
        const auto& b = view->specs();
        for (size_t i = 0; i < a.size() && same; ++i) same = a[i].key == b[i].key && a[i].choices == b[i].choices;
    }
    m_boundView = view;
    if (same) m_paramPanel->showValues(view->values());
    else m_paramPanel->setSpecs(view->title(), view->specs(), view->values(), view->ranks(), viewStateKeys());
}

void MainWindow::updateActions() {
    const bool haveView = m_plotArea->currentView() != nullptr;
    const bool haveRun = !m_runs->runIds().empty();
    m_actExport->setEnabled(haveView);
    m_actExportCsv->setEnabled(haveView);
    m_actCopyImage->setEnabled(haveView);
    m_actCloseTab->setEnabled(haveView);
    m_actMoveTab->setEnabled(haveView);
    m_actResetParams->setEnabled(haveView);
    m_actReload->setEnabled(haveRun);
    m_actCloseRun->setEnabled(haveRun);
    m_actCompareRuns->setEnabled(m_runsPanel->selectedRuns().size() >= 2);
    m_actDiff->setEnabled(m_runs->runIds().size() >= 2);
    m_actApplySession->setEnabled(haveRun);
    m_actSplit->setChecked(m_plotArea->isSplit());
    QString title = tr("Strobe");
    if (!m_sessionPath.isEmpty()) title = tr("%1 — Strobe").arg(QFileInfo(m_sessionPath).fileName());
    setWindowTitle(title);
}

// ---------------------------------------------------------------- errors

void MainWindow::showError(const QString& text) {
    if (text.isEmpty()) return clearError();
    m_lastError = text;
    qWarning("%s", qUtf8Printable(text));  // also on stderr, for command-line use
    m_errorBar->showMessage(text);
}

void MainWindow::clearError() { m_errorBar->dismiss(); }

// ---------------------------------------------------------------- open dialogs, recent files, drag and drop

void MainWindow::openFilesDialog() {
    const QStringList files = QFileDialog::getOpenFileNames(this, tr("Open trace files (one run)"),
                                                            dialogDirectory(QStringLiteral("open")), openTracesFilter());
    if (files.isEmpty()) return;
    rememberDialogDirectory(QStringLiteral("open"), files.front());
    openPaths(files);
}

void MainWindow::openDirectoryDialog() {
    const QString dir =
        QFileDialog::getExistingDirectory(this, tr("Open a run directory"), dialogDirectory(QStringLiteral("open")));
    if (dir.isEmpty()) return;
    rememberDialogDirectory(QStringLiteral("open"), QFileInfo(dir).absolutePath());  // its parent: the next run's
    openPaths({dir});
}

void MainWindow::addRecent(const QStringList& sources) {
    QSettings settings;
    QStringList recent = settings.value(QStringLiteral("recent")).toStringList();
    QStringList abs;
    for (const auto& s : sources) abs << QFileInfo(s).absoluteFilePath();
    const QString entry = abs.join(QLatin1Char('\n'));
    recent.removeAll(entry);
    recent.prepend(entry);
    while (recent.size() > kMaxRecent) recent.removeLast();
    settings.setValue(QStringLiteral("recent"), recent);
}

void MainWindow::fillRecentMenu() {
    m_recentMenu->clear();
    const QStringList recent = QSettings().value(QStringLiteral("recent")).toStringList();
    if (recent.isEmpty()) {
        m_recentMenu->addAction(tr("(none yet)"))->setEnabled(false);
        return;
    }
    int n = 0;
    for (const auto& entry : recent) {
        const QStringList sources = entry.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QString text = RunManager::defaultLabel(sources);
        if (n < 9) text = QStringLiteral("&%1 %2").arg(n + 1).arg(text);
        QAction* a = m_recentMenu->addAction(text, this, [this, sources] { openRun(sources); });
        a->setToolTip(sources.join(QLatin1Char('\n')));
        a->setStatusTip(sources.join(QStringLiteral(", ")));
        ++n;
    }
    m_recentMenu->addSeparator();
    m_recentMenu->addAction(tr("Clear the list"), this, [] { QSettings().remove(QStringLiteral("recent")); });
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
    if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
    QStringList paths;
    for (const QUrl& url : e->mimeData()->urls())
        if (url.isLocalFile()) paths << url.toLocalFile();
    if (paths.isEmpty()) return;
    e->acceptProposedAction();
    openDropped(paths);
}

void MainWindow::openDropped(const QStringList& paths) {
    // A sweep directory holds runs (two or more, found as File ▸ Open sweep finds them); a run directory holds
    // trace files (one run, or none found by a sweep rule). Looking reads the directories: on a worker, as a job
    // of its own (a second drop does not supersede the first).
    struct Looked {
        std::vector<std::pair<QString, core::sweep::SweepDiscovery>> sweeps;
        QStringList others;
    };
    const int serial = m_nextDrop++;
    auto job = std::make_unique<BackgroundJob>(*m_runner, backgroundSlot("drop", this) + ":" + std::to_string(serial));
    BackgroundJob& started = *job;
    m_drops[serial] = std::move(job);
    started.start<Looked>(
        tr("Look at %n dropped path(s)", nullptr, static_cast<int>(paths.size())),
        [paths](const core::JobContext& ctx) {
            Looked out;
            for (const QString& p : paths) {
                if (ctx.cancel.cancelled()) break;
                if (QFileInfo(p).isDir()) {
                    auto found = core::sweep::discoverSweep({p.toStdString()}, {}, ctx.cancel);
                    if (found.runs.size() >= 2) {
                        out.sweeps.emplace_back(p, std::move(found));
                        continue;
                    }
                }
                out.others << p;
            }
            return out;
        },
        [this, serial](Looked looked) {
            m_drops.erase(serial);
            for (const auto& [dir, found] : looked.sweeps) showSweep(dir, found);
            if (!looked.others.isEmpty()) openPaths(looked.others);
            Q_EMIT droppedOpened();
        },
        [this, serial](const QString& why) {
            m_drops.erase(serial);
            statusBar()->showMessage(tr("Dropped paths not opened: %1").arg(why), 5000);
            Q_EMIT droppedOpened();
        });
}

void MainWindow::markSessionModified() { m_sessionModified = true; }

bool MainWindow::confirmDiscardSession() {
    if (!m_sessionModified || qEnvironmentVariableIsSet("STROBE_NO_SAVE_PROMPT")) return true;
    if (m_runs->runIds().empty() && m_plotArea->views().empty()) return true;  // nothing left to save
    QMessageBox box(QMessageBox::Question, tr("Save the session?"),
                    tr("The runs, plots or parameters changed since the session was last saved. Save the session "
                       "before closing?"),
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
    box.setObjectName(QStringLiteral("saveSessionPrompt"));
    box.setDefaultButton(QMessageBox::Save);
    switch (box.exec()) {
        case QMessageBox::Save: saveSessionDialog(false); return !m_sessionModified;  // still modified: not saved
        case QMessageBox::Discard: return true;
        default: return false;
    }
}

void MainWindow::profileWorkloadDialog() {
    ProfileDialog dialog(m_launchPanel->strobeCli(), *m_runner, this);
    if (dialog.exec() != QDialog::Accepted) return;
    m_launchDock->show();
    m_launchDock->raise();
    m_launchPanel->launch(dialog.request(), dialog.catalog());
}

bool MainWindow::confirmStopProfiling() {
    const int running = m_launchPanel->runningCount();
    if (running == 0 || qEnvironmentVariableIsSet("STROBE_NO_SAVE_PROMPT")) return true;
    QMessageBox box(QMessageBox::Question, tr("Stop profiling?"),
                    tr("%n profiling run(s) still running. Closing Strobe cancels them; what they collected so far "
                       "is kept in their output directories.", nullptr, running),
                    QMessageBox::NoButton, this);
    box.setObjectName(QStringLiteral("stopProfilingPrompt"));
    QPushButton* stop = box.addButton(tr("Cancel the runs and close"), QMessageBox::AcceptRole);
    box.addButton(tr("Keep running"), QMessageBox::RejectRole);
    box.exec();
    return box.clickedButton() == stop;
}

void MainWindow::closeEvent(QCloseEvent* e) {
    // Asked once: a close deferred for the profiling runs was confirmed already.
    if (!m_closeWhenStopped && (!confirmStopProfiling() || !confirmDiscardSession())) {
        e->ignore();
        return;
    }
    // Never leave a strobe-cli behind: cancel each (SIGTERM, SIGKILL after the grace period) and close when the
    // last has ended (runningChanged(0) closes again). The event loop goes on as usual meanwhile; nothing spins it.
    if (m_launchPanel->runningCount() > 0) {
        m_closeWhenStopped = true;
        statusBar()->showMessage(tr("Cancelling the profiling runs; Strobe closes when they have stopped…"));
        m_launchPanel->cancelAll();
        e->ignore();
        return;
    }
    m_closeWhenStopped = false;
    stopBackgroundWork();
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    QMainWindow::closeEvent(e);
}

void MainWindow::stopBackgroundWork() {
    m_runs->cancelAll();
    m_drops.clear();
    m_runner->cancelAll();
    m_runner->waitIdle();  // the workers stop at their next cancellation point; their results are dropped
}

// ---------------------------------------------------------------- theme, help

void MainWindow::setTheme(Theme theme) {
    switch (theme) {
        case Theme::System: QApplication::setPalette(*m_systemPalette); break;
        case Theme::Light: QApplication::setPalette(QApplication::style()->standardPalette()); break;
        case Theme::Dark: QApplication::setPalette(darkPalette()); break;
    }
    const bool dark = QApplication::palette().color(QPalette::Window).lightness() < 128;
    m_errorBar->setDark(dark);
}

void MainWindow::showShortcuts() {
    auto* dialog = new QDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Keyboard shortcuts"));
    auto* layout = new QVBoxLayout(dialog);
    auto* table = new QTableWidget(dialog);
    table->setColumnCount(2);
    table->setHorizontalHeaderLabels({tr("Action"), tr("Shortcut")});
    table->horizontalHeader()->setStretchLastSection(true);
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    QList<QAction*> actions = this->actions() + m_plotArea->actions();
    for (QAction* a : actions) {
        if (a->shortcuts().isEmpty()) continue;
        const int row = table->rowCount();
        table->insertRow(row);
        table->setItem(row, 0, new QTableWidgetItem(a->text().remove(QLatin1Char('&'))));
        QStringList keys;
        for (const auto& k : a->shortcuts()) keys << k.toString(QKeySequence::NativeText);
        table->setItem(row, 1, new QTableWidgetItem(keys.join(tr(", "))));
    }
    const QStringList mouse{tr("Wheel on a timeline: zoom about the cursor"), tr("Drag: pan"),
                            tr("Right-drag: box zoom"), tr("Double-click: whole range"),
                            tr("Shift+wheel, ↑/↓ or the scrollbar: scroll lanes"), tr("Click: select and show details"),
                            tr("Drag on the time axis or Shift+drag: measure a range"),
                            tr("Click or drag in the overview strip: move the view"),
                            tr("Right-click on an item: copy name, select all, statistics, filter to it"),
                            tr("Ctrl+F in a timeline: search names (Enter/F3 next, Shift+Enter/Shift+F3 previous)")};
    for (const auto& m : mouse) {
        const int row = table->rowCount();
        table->insertRow(row);
        table->setItem(row, 0, new QTableWidgetItem(m.section(QLatin1Char(':'), 1).trimmed()));
        table->setItem(row, 1, new QTableWidgetItem(m.section(QLatin1Char(':'), 0, 0)));
    }
    table->resizeColumnsToContents();
    layout->addWidget(table);
    dialog->resize(520, 560);
    dialog->show();
}

}  // namespace strobe::app

namespace strobe::app {

DiffDialog* MainWindow::openDiff() {
    std::vector<int> ids;
    for (int id : m_runsPanel->selectedRuns().size() >= 2 ? m_runsPanel->selectedRuns() : m_runs->runIds())
        if (const RunRecord* r = m_runs->run(id); r && r->dataset) ids.push_back(id);
    if (ids.size() < 2) {
        statusBar()->showMessage(tr("A structural diff needs two loaded runs"), 5000);
        return nullptr;
    }
    if (!m_diffDialog) {
        m_diffDialog = new DiffDialog(*m_runs, *m_runner, this);
        // A row's instances in its run: the run's timeline (opened when none shows that run alone) lists every
        // instance of the name in the Events dock, each a click from its place on the timeline.
        connect(m_diffDialog, &DiffDialog::instanceRequested, this, [this](int runId, const QString& name, qint64) {
            listInstancesOnTimeline({runId}, name.toStdString());
        });
    }
    m_diffDialog->compare(ids[0], ids[1]);
    m_diffDialog->show();
    m_diffDialog->raise();
    return m_diffDialog;
}

}  // namespace strobe::app
