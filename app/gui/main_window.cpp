#include "app/gui/main_window.h"

#include <algorithm>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFrame>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QTableWidget>
#include <QTextBrowser>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "app/gui/format.h"
#include "app/gui/jobs_panel.h"
#include "app/gui/param_editor.h"
#include "app/gui/param_panel.h"
#include "app/gui/param_values.h"
#include "app/gui/plot_area.h"
#include "app/gui/plot_list.h"
#include "app/gui/plot_view.h"
#include "app/gui/run_manager.h"
#include "app/gui/runs_panel.h"
#include "core/engine/resources.h"
#include "plots/plot_registry.h"
#include "plots/render.h"

namespace strobe::app {

namespace {

constexpr int kMaxRecent = 10;
constexpr const char* kPreferredFirstPlot = "gpu-timeline";

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

bool isSessionFile(const QString& path) {
    return path.endsWith(QLatin1String(".yaml"), Qt::CaseInsensitive) ||
           path.endsWith(QLatin1String(".yml"), Qt::CaseInsensitive);
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("Strobe"));
    setObjectName(QStringLiteral("StrobeMainWindow"));
    setAcceptDrops(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks);
    m_systemPalette = new QPalette(QApplication::palette());

    m_runner = std::make_unique<core::JobRunner>();
    m_engine = std::make_unique<plots::PlotEngine>(*m_runner);
    m_runs = new RunManager(this);
    m_jobs = new JobList(this);

    // Centre: an error bar (inline, one at a time, never a modal storm) above the plot area.
    auto* centre = new QWidget(this);
    auto* centreLayout = new QVBoxLayout(centre);
    centreLayout->setContentsMargins(0, 0, 0, 0);
    centreLayout->setSpacing(0);
    m_errorBar = new QFrame(centre);
    m_errorBar->setObjectName(QStringLiteral("errorBar"));
    m_errorBar->setStyleSheet(QStringLiteral(
        "QFrame#errorBar { background: #fbe3e3; border-bottom: 1px solid #d08080; } QLabel { color: #7a0000; }"));
    auto* barLayout = new QHBoxLayout(m_errorBar);
    barLayout->setContentsMargins(8, 4, 4, 4);
    auto* icon = new QLabel(m_errorBar);
    icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(16, 16));
    m_errorText = new QLabel(m_errorBar);
    m_errorText->setWordWrap(true);
    m_errorText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* closeBar = new QToolButton(m_errorBar);
    closeBar->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    closeBar->setAutoRaise(true);
    closeBar->setToolTip(tr("Dismiss"));
    connect(closeBar, &QToolButton::clicked, this, &MainWindow::clearError);
    barLayout->addWidget(icon);
    barLayout->addWidget(m_errorText, 1);
    barLayout->addWidget(closeBar);
    m_errorBar->hide();
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
    connect(m_runs, &RunManager::runLoaded, this, &MainWindow::onRunLoaded);
    connect(m_runs, &RunManager::runRemoved, this, &MainWindow::onRunRemoved);
    connect(m_runs, &RunManager::runChanged, this, &MainWindow::updateLoadStatus);
    connect(m_runs, &RunManager::runChanged, this, [this](int id) {
        const RunRecord* r = m_runs->run(id);
        if (r && r->error && r->state == RunState::Failed)
            showError(tr("Cannot load %1: %2").arg(r->label, QString::fromStdString(r->error->toString())));
    });
    connect(m_runs, &RunManager::loadingChanged, this, [this] {
        updateLoadStatus();
        updateActions();
        Q_EMIT idleChanged();
    });
    connect(m_jobs, &JobList::jobRemoved, this, [this] { Q_EMIT idleChanged(); });
    connect(m_runsPanel, &RunsPanel::reloadRequested, m_runs, &RunManager::reload);
    connect(m_runsPanel, &RunsPanel::closeRequested, m_runs, &RunManager::close);
    connect(m_runsPanel, &RunsPanel::openPlotsRequested, this, [this](int id) {
        const std::string pid = m_plotList->currentPlotId();
        auto all = plots::PlotRegistry::instance().plots();
        if (!all.empty()) openPlot(pid.empty() ? all.front()->id() : pid, {id});
    });
    connect(m_runsPanel, &RunsPanel::currentRunChanged, this, &MainWindow::updateActions);
    connect(m_plotList, &PlotList::openRequested, this, &MainWindow::openSelectedPlot);
    connect(m_paramPanel, &ParamPanel::valueEdited, this, [this](const std::string& key, const plots::ParamValue& v) {
        PlotView* view = m_boundView;
        if (!view) return;
        view->setValue(key, v);
        if (const auto* spec = plots::findSpec(view->specs(), key)) persistValue(view->plot().id(), *spec, v);
    });
    connect(m_paramPanel, &ParamPanel::resetAllRequested, this, [this] {
        PlotView* view = m_boundView;
        if (!view) return;
        forgetPersistedValues(view->plot().id());
        view->resetAll();
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
    m_runner->cancelAll();
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
                                "drop files here, or start with the bundled sample.</p>"
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

void MainWindow::buildDocks() {
    m_runsPanel = new RunsPanel(*m_runs, this);
    auto* runsDock = new QDockWidget(tr("Runs"), this);
    runsDock->setObjectName(QStringLiteral("runsDock"));
    runsDock->setWidget(m_runsPanel);
    addDockWidget(Qt::LeftDockWidgetArea, runsDock);

    m_plotList = new PlotList(this);
    auto* plotsDock = new QDockWidget(tr("Plots"), this);
    plotsDock->setObjectName(QStringLiteral("plotsDock"));
    plotsDock->setWidget(m_plotList);
    addDockWidget(Qt::LeftDockWidgetArea, plotsDock);
    splitDockWidget(runsDock, plotsDock, Qt::Vertical);
    resizeDocks({runsDock, plotsDock}, {560, 260}, Qt::Vertical);

    m_paramPanel = new ParamPanel(this);
    auto* paramDock = new QDockWidget(tr("Parameters"), this);
    paramDock->setObjectName(QStringLiteral("paramDock"));
    paramDock->setWidget(m_paramPanel);
    addDockWidget(Qt::RightDockWidgetArea, paramDock);

    m_selection = new QTextBrowser(this);
    m_selection->setObjectName(QStringLiteral("selectionDetails"));
    m_selection->setPlaceholderText(tr("Click an item in a plot to see its details here."));
    auto* selDock = new QDockWidget(tr("Selection"), this);
    selDock->setObjectName(QStringLiteral("selectionDock"));
    selDock->setWidget(m_selection);
    addDockWidget(Qt::RightDockWidgetArea, selDock);
    splitDockWidget(paramDock, selDock, Qt::Vertical);
    resizeDocks({paramDock, selDock}, {500, 320}, Qt::Vertical);
    resizeDocks({runsDock, paramDock}, {430, 330}, Qt::Horizontal);

    auto* jobsDock = new QDockWidget(tr("Jobs"), this);
    jobsDock->setObjectName(QStringLiteral("jobsDock"));
    jobsDock->setWidget(new JobsPanel(*m_jobs, this));
    addDockWidget(Qt::RightDockWidgetArea, jobsDock);
    tabifyDockWidget(selDock, jobsDock);
    selDock->raise();
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
    m_actOpenSample = make(tr("Open the &sample run"), {}, [this] { openPaths({sampleRunPath()}); });
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
    m_recentMenu = file->addMenu(tr("Open &recent"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::fillRecentMenu);
    file->addAction(m_actOpenSample);
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

std::vector<int> MainWindow::openPaths(const QStringList& paths) {
    std::vector<int> ids;
    QStringList traces;
    for (const auto& p : paths) {
        if (isSessionFile(p) && QFileInfo(p).isFile()) openSession(p);
        else traces << p;
    }
    for (const auto& group : RunManager::groupIntoRuns(traces)) ids.push_back(openRun(group));
    return ids;
}

int MainWindow::openRun(const QStringList& sources, const QString& label,
                        const std::map<std::string, std::string>& parameters) {
    const int id = m_runs->openRun(sources, label, parameters);
    addRecent(sources);
    m_runsPanel->selectRun(id);
    return id;
}

void MainWindow::onRunLoaded(int id) {
    for (auto* v : m_plotArea->views()) {
        const auto& ids = v->runIds();
        if (std::find(ids.begin(), ids.end(), id) != ids.end()) v->refreshData();
    }
    if (m_autoOpen && !m_autoOpened && m_plotArea->views().empty()) {
        // The first loaded run opens the first plot, so that a new user sees a picture at once.
        m_autoOpened = true;
        auto all = plots::PlotRegistry::instance().plots();
        const plots::Plot* first = plots::PlotRegistry::instance().find(kPreferredFirstPlot);
        if (!first && !all.empty()) first = all.front();
        if (first) openPlot(first->id(), {id});
    }
    if (m_boundView) bindPanel(m_boundView, true);
    updateActions();
    updateMemoryStatus();
}

void MainWindow::onRunRemoved(int id) {
    for (auto* v : m_plotArea->views()) {
        const auto& ids = v->runIds();
        if (std::find(ids.begin(), ids.end(), id) != ids.end()) m_plotArea->closeView(v);
    }
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
        text = r->stageFile.isEmpty() ? tr("Loading %1: %2").arg(r->label, r->stage)
                                      : tr("Loading %1: %2 (%3)").arg(r->label, r->stage, QFileInfo(r->stageFile).fileName());
        const QString key = QStringLiteral("load-%1").arg(id);
        if (!m_jobs->jobs().count(key)) m_jobs->begin(key, tr("Load %1").arg(r->label), [this, id] { m_runs->cancel(id); });
        m_jobs->update(key, r->stage, r->fraction);
    }
    // Jobs of runs that stopped loading.
    std::vector<QString> done;
    for (const auto& [key, job] : m_jobs->jobs()) {
        if (!key.startsWith(QLatin1String("load-"))) continue;
        const RunRecord* r = m_runs->run(key.mid(5).toInt());
        if (!r || r->state != RunState::Loading) done.push_back(key);
    }
    for (const auto& k : done) m_jobs->end(k);

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
    m_memoryLabel->setText(tr("Data %1 · plot cache %2 (%n entries)", nullptr, static_cast<int>(m_engine->cache().size()))
                               .arg(formatBytes(data), formatBytes(cache)));
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
    auto* view = new PlotView(*plot, *m_engine, *m_runs, runIds, initial, m_jobs);
    connect(view, &PlotView::valuesChanged, this, [this, view] {
        if (view == m_boundView) bindPanel(view, false);
    });
    connect(view, &PlotView::itemSelected, this, [this](const QString&, const QString& html) {
        m_selection->setHtml(html);
    });
    connect(view, &PlotView::stateChanged, this, [this] { Q_EMIT idleChanged(); });
    m_plotArea->addView(view, pane < 0 ? m_plotArea->activePane() : pane);
    view->setFocus();
    return view;
}

void MainWindow::openSelectedPlot(const std::string& plotId, int pane, bool allRuns) {
    if (plotId.empty()) return;
    std::vector<int> ids;
    if (allRuns) {
        for (int id : m_runs->runIds())
            if (const RunRecord* r = m_runs->run(id); r && r->state != RunState::Failed) ids.push_back(id);
    } else {
        ids = m_runsPanel->selectedRuns();
        if (ids.size() > 1) ids.erase(ids.begin() + 1, ids.end());  // not resize(1): GCC 12 -O3 warns falsely
        if (ids.empty())
            if (int id = m_runsPanel->currentRun()) ids.push_back(id);
    }
    openPlot(plotId, ids, pane);
}

void MainWindow::onCurrentViewChanged(PlotView* view) {
    bindPanel(view, true);
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
    m_errorText->setText(text);
    m_errorBar->show();
}

void MainWindow::clearError() {
    m_errorBar->hide();
    m_errorText->clear();
}

// ---------------------------------------------------------------- sessions

core::Session MainWindow::captureSession() const {
    core::Session s;
    std::map<int, int> index;
    for (int id : m_runs->runIds()) {
        const RunRecord* r = m_runs->run(id);
        if (!r) continue;
        index[id] = static_cast<int>(s.runs.size());
        core::SessionRun run;
        run.label = r->label.toStdString();
        for (const auto& src : r->sources) run.paths.push_back(src.toStdString());
        run.parameters = r->parameters;
        s.runs.push_back(std::move(run));
    }
    for (int pane = 0; pane < 2; ++pane) {
        for (PlotView* v : m_plotArea->views(pane)) {
            core::SessionPlot p;
            p.plotId = v->plot().id();
            for (int id : v->runIds())
                if (auto it = index.find(id); it != index.end()) p.runs.push_back(it->second);
            for (const auto& [k, val] : v->values()) p.values[k] = val;  // same variant as core::SessionValue
            p.pane = pane;
            s.plots.push_back(std::move(p));
        }
    }
    s.layout.split = m_plotArea->isSplit();
    s.layout.splitVertical = m_plotArea->isVertical();
    for (int size : m_plotArea->splitSizes()) s.layout.splitSizes.push_back(size);
    s.layout.currentTab = {m_plotArea->currentIndex(0), m_plotArea->currentIndex(1)};
    s.layout.syncTimeAxes = m_plotArea->syncTimeAxes();
    s.layout.windowGeometry = saveGeometry().toBase64().toStdString();
    s.layout.windowState = saveState().toBase64().toStdString();
    return s;
}

void MainWindow::applySession(const core::Session& s, const std::vector<int>* useRuns) {
    m_plotArea->closeAll();
    std::vector<int> ids;
    if (useRuns) {
        ids = *useRuns;
    } else {
        m_runs->closeAll();
        for (const auto& r : s.runs) {
            QStringList sources;
            for (const auto& p : r.paths) sources << QString::fromStdString(p);
            ids.push_back(openRun(sources, QString::fromStdString(r.label), r.parameters));
        }
    }
    m_autoOpened = true;  // the session says which plots to show
    if (!s.layout.windowGeometry.empty())
        restoreGeometry(QByteArray::fromBase64(QByteArray::fromStdString(s.layout.windowGeometry)));
    if (!s.layout.windowState.empty())
        restoreState(QByteArray::fromBase64(QByteArray::fromStdString(s.layout.windowState)));
    m_plotArea->setVertical(s.layout.splitVertical);
    m_plotArea->setSyncTimeAxes(s.layout.syncTimeAxes);
    m_actSync->setChecked(s.layout.syncTimeAxes);
    m_actSplitVertical->setChecked(s.layout.splitVertical);
    QStringList missing, invalid;
    for (const auto& p : s.plots) {
        std::vector<int> runIds;
        for (int i : p.runs) {
            if (ids.empty()) break;
            // On new data with fewer runs, plots of the missing runs go to the last one.
            runIds.push_back(ids[static_cast<size_t>(std::min<int>(i, static_cast<int>(ids.size()) - 1))]);
        }
        if (runIds.empty() && !ids.empty()) runIds.push_back(ids.front());
        const plots::Plot* plot = plots::PlotRegistry::instance().find(p.plotId);
        if (!plot) {
            missing << QString::fromStdString(p.plotId);
            continue;
        }
        plots::ParamValues values(p.values.begin(), p.values.end());
        std::vector<std::string> problems;  // values the plot's specs refuse keep their default; say which
        sanitizeValues(plot->parameters({}), values, &problems);
        for (const auto& m : problems) invalid << QString::fromStdString(p.plotId + ": " + m);
        openPlot(p.plotId, runIds, p.pane, &values);
    }
    m_plotArea->setSplit(s.layout.split && !m_plotArea->views(1).empty());
    if (s.layout.splitSizes.size() == 2) m_plotArea->setSplitSizes({s.layout.splitSizes[0], s.layout.splitSizes[1]});
    for (size_t i = 0; i < s.layout.currentTab.size() && i < 2; ++i)
        m_plotArea->setCurrentIndex(static_cast<int>(i), s.layout.currentTab[i]);
    if (!missing.isEmpty()) showError(tr("The session names plots this Strobe does not have: %1").arg(missing.join(QStringLiteral(", "))));
    else if (!invalid.isEmpty()) showError(tr("Session values not applied (defaults used): %1").arg(invalid.join(QStringLiteral("; "))));
    updateActions();
}

bool MainWindow::openSession(const QString& path, const QStringList& replacementPaths) {
    auto loaded = core::loadSession(path.toStdString());
    if (!loaded) {
        showError(tr("Cannot open the session: %1").arg(QString::fromStdString(loaded.error().toString())));
        return false;
    }
    m_sessionPath = path;
    if (!replacementPaths.isEmpty()) {
        m_plotArea->closeAll();
        m_runs->closeAll();
        std::vector<int> ids;
        for (const auto& group : RunManager::groupIntoRuns(replacementPaths)) ids.push_back(openRun(group));
        applySession(loaded.value(), &ids);
    } else {
        applySession(loaded.value());
    }
    statusBar()->showMessage(tr("Session %1 opened").arg(QFileInfo(path).fileName()), 5000);
    return true;
}

bool MainWindow::saveSession(const QString& path) {
    auto st = core::saveSession(captureSession(), path.toStdString());
    if (!st) {
        showError(tr("Cannot save the session: %1").arg(QString::fromStdString(st.error().toString())));
        return false;
    }
    m_sessionPath = path;
    updateActions();
    statusBar()->showMessage(tr("Session saved to %1").arg(path), 5000);
    return true;
}

void MainWindow::openSessionDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open session"), QString(),
                                                      tr("Strobe sessions (*.yaml *.yml);;All files (*)"));
    if (!path.isEmpty()) openSession(path);
}

void MainWindow::saveSessionDialog(bool saveAs) {
    QString path = m_sessionPath;
    if (saveAs || path.isEmpty())
        path = QFileDialog::getSaveFileName(this, tr("Save session"), path.isEmpty() ? QStringLiteral("session.yaml") : path,
                                            tr("Strobe sessions (*.yaml *.yml)"));
    if (path.isEmpty()) return;
    if (!isSessionFile(path)) path += QStringLiteral(".yaml");
    saveSession(path);
}

void MainWindow::applySessionDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Apply a session's plots and parameters to the open runs"),
                                                      QString(), tr("Strobe sessions (*.yaml *.yml);;All files (*)"));
    if (path.isEmpty()) return;
    auto loaded = core::loadSession(path.toStdString());
    if (!loaded) {
        showError(tr("Cannot open the session: %1").arg(QString::fromStdString(loaded.error().toString())));
        return;
    }
    const auto ids = m_runs->runIds();
    applySession(loaded.value(), &ids);
}

// ---------------------------------------------------------------- export

bool MainWindow::exportCurrentPlot(const QString& path) {
    PlotView* view = m_plotArea->currentView();
    if (!view || !view->prepared()) {
        showError(tr("Nothing to export yet: the plot is still being prepared."));
        return false;
    }
    const plots::Plot* plot = &view->plot();
    const plots::PreparedPtr prepared = view->prepared();
    const plots::ParamValues values = view->values();
    const QSize size = view->size().expandedTo(QSize(640, 400));
    const bool dark = view->isDark();
    const std::string file = path.toStdString();
    const bool csv = path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive);
    // Rendering and writing run off the GUI thread (the Prepared is immutable, draw() is const).
    const QString key = QStringLiteral("export-%1").arg(path);
    m_jobs->begin(key, tr("Export %1").arg(QFileInfo(path).fileName()), {});
    auto* watcher = new QFutureWatcher<core::Status>(this);
    connect(watcher, &QFutureWatcher<core::Status>::finished, this, [this, watcher, key, path] {
        const core::Status st = watcher->result();
        m_jobs->end(key);
        if (st.ok()) statusBar()->showMessage(tr("Exported %1").arg(path), 5000);
        else showError(tr("Export failed: %1").arg(QString::fromStdString(st.error().toString())));
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run([plot, prepared, values, size, dark, file, csv]() -> core::Status {
        if (csv) return plots::writeTableCsv(*plot, *prepared, values, file);
        return plots::renderToFile(*plot, *prepared, values, size, file, std::nullopt, dark);
    }));
    return true;
}

void MainWindow::exportDialog(bool table) {
    PlotView* view = m_plotArea->currentView();
    if (!view) return;
    QString base = QString::fromStdString(view->plot().id());
    QString filter;
    if (table) {
        base += QStringLiteral(".csv");
        filter = tr("CSV table (*.csv)");
    } else {
        base += QStringLiteral(".png");
        filter = tr("PNG image (*.png);;SVG vector image (*.svg);;PDF document (*.pdf);;CSV table (*.csv)");
    }
    QString selected;
    QString path = QFileDialog::getSaveFileName(this, table ? tr("Export plot table") : tr("Export plot"), base, filter,
                                                &selected);
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) {
        if (selected.contains(QLatin1String("*.svg"))) path += QStringLiteral(".svg");
        else if (selected.contains(QLatin1String("*.pdf"))) path += QStringLiteral(".pdf");
        else if (selected.contains(QLatin1String("*.csv"))) path += QStringLiteral(".csv");
        else path += QStringLiteral(".png");
    }
    exportCurrentPlot(path);
}

void MainWindow::copyImageToClipboard() {
    PlotView* view = m_plotArea->currentView();
    if (!view) return;
    const QImage img = view->renderImage(view->size());
    if (img.isNull()) {
        showError(tr("Nothing to copy yet: the plot is still being prepared."));
        return;
    }
    QGuiApplication::clipboard()->setImage(img);
    statusBar()->showMessage(tr("Plot image copied to the clipboard"), 4000);
}

// ---------------------------------------------------------------- open dialogs, recent files, drag and drop

void MainWindow::openFilesDialog() {
    const QStringList files = QFileDialog::getOpenFileNames(
        this, tr("Open trace files (one run)"), QString(),
        tr("Traces (*.json *.json.gz *.pt.trace.json *.gz);;Sessions (*.yaml *.yml);;All files (*)"));
    if (!files.isEmpty()) openPaths(files);
}

void MainWindow::openDirectoryDialog() {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a run directory"));
    if (!dir.isEmpty()) openPaths({dir});
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
    openPaths(paths);
}

void MainWindow::closeEvent(QCloseEvent* e) {
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    QMainWindow::closeEvent(e);
}

// ---------------------------------------------------------------- theme, help

void MainWindow::setTheme(Theme theme) {
    switch (theme) {
        case Theme::System: QApplication::setPalette(*m_systemPalette); break;
        case Theme::Light: QApplication::setPalette(QApplication::style()->standardPalette()); break;
        case Theme::Dark: QApplication::setPalette(darkPalette()); break;
    }
    const bool dark = QApplication::palette().color(QPalette::Window).lightness() < 128;
    m_errorBar->setStyleSheet(dark ? QStringLiteral("QFrame#errorBar { background: #4a1f1f; border-bottom: 1px solid #803030; }"
                                                    " QLabel { color: #ffd0d0; }")
                                   : QStringLiteral("QFrame#errorBar { background: #fbe3e3; border-bottom: 1px solid #d08080; }"
                                                    " QLabel { color: #7a0000; }"));
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
                            tr("Shift+drag or right-drag: box zoom"), tr("Double-click: whole range"),
                            tr("Shift+wheel or ↑/↓: scroll lanes"), tr("Click: select and show details")};
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
