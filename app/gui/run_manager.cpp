#include "app/gui/run_manager.h"

#include <atomic>

#include <QDir>
#include <QFileInfo>
#include <QCoreApplication>
#include <QPointer>

#include <algorithm>
#include <thread>

#include "core/engine/converted_run.h"
#include "core/engine/load_job.h"
#include "core/engine/memory_budget.h"

namespace strobe::app {

namespace {


QStringList toQStringList(const std::vector<std::string>& v) {
    QStringList out;
    for (const auto& s : v) out << QString::fromStdString(s);
    return out;
}


}  // namespace

struct RunManager::Outcome {
    bool cancelled = false;
    std::optional<core::Error> error;
    core::DatasetPtr dataset;
    std::vector<core::RankSummary> summaries;
    double seconds = 0.0;
};

QString runStateText(RunState s) {
    switch (s) {
        case RunState::Loading: return RunManager::tr("loading");
        case RunState::Loaded: return RunManager::tr("loaded");
        case RunState::Failed: return RunManager::tr("failed");
        case RunState::Cancelled: return RunManager::tr("cancelled");
    }
    return {};
}

QString runProgressText(const RunRecord* r) {
    if (!r) return RunManager::tr("closed");
    if (r->state != RunState::Loading) return runStateText(r->state);
    switch (r->wait) {
        case RunRecord::Wait::Queued: return RunManager::tr("queued");
        case RunRecord::Wait::Memory: return RunManager::tr("waiting for memory");
        case RunRecord::Wait::None: break;
    }
    return RunManager::tr("loading %1 %").arg(static_cast<int>(r->fraction * 100));
}

RunManager::RunManager(core::JobRunner& runner, QObject* parent) : QObject(parent), m_runner(&runner) {
    m_options.summaryFirst = true;
    connect(&m_watcher, &QFileSystemWatcher::fileChanged, this, &RunManager::onFileChanged);
}

RunManager::RunManager(QObject* parent)
    : QObject(parent), m_ownRunner(std::make_unique<core::JobRunner>(2)), m_runner(m_ownRunner.get()) {
    m_options.summaryFirst = true;
    connect(&m_watcher, &QFileSystemWatcher::fileChanged, this, &RunManager::onFileChanged);
}

RunManager::~RunManager() {
    if (m_ownRunner) {
        cancelAll();
        m_ownRunner.reset();  // joins: no load runs past this point
    }
    // A shared runner: the owner cancelled the loads (cancelAll) before; a load still finishing reports to
    // nobody (its posts check this manager is alive).
}

std::vector<QStringList> RunManager::groupIntoRuns(const QStringList& paths) {
    std::vector<QStringList> runs;
    QStringList files;
    for (const auto& p : paths) {
        if (QFileInfo(p).isDir()) runs.push_back({p});
        else files << p;
    }
    if (!files.isEmpty()) runs.push_back(files);
    return runs;
}

QString RunManager::defaultLabel(const QStringList& sources) {
    if (sources.isEmpty()) return tr("(empty run)");
    if (sources.size() == 1) {
        QFileInfo fi(sources.front());
        return fi.fileName().isEmpty() ? QDir(sources.front()).dirName() : fi.fileName();
    }
    const QString parent = QFileInfo(sources.front()).dir().dirName();
    return tr("%1 (%n files)", nullptr, static_cast<int>(sources.size())).arg(parent);
}

int RunManager::openRun(const QStringList& sources, const QString& label, const core::RunParameters& parameters,
                        std::optional<int64_t> clockOffsetNs) {
    core::RunEntry entry;
    entry.label = label.toStdString();
    for (const auto& s : sources) entry.paths.push_back(s.toStdString());
    entry.parameters = parameters;
    return openRun(std::move(entry), clockOffsetNs);
}

int RunManager::openRun(core::RunEntry entry, std::optional<int64_t> clockOffsetNs) {
    auto run = std::make_unique<RunRecord>();
    run->id = m_nextId++;
    for (auto& p : entry.paths) p = QFileInfo(QString::fromStdString(p)).absoluteFilePath().toStdString();
    entry.dataset = nullptr;
    core::Status manifest = entry.manifest ? core::Status(core::Ok{}) : core::attachRunManifest(entry);
    run->entry = std::move(entry);
    if (run->entry.label.empty()) run->entry.label = defaultLabel(run->sources()).toStdString();
    if (!manifest)
        run->warnings.push_back(core::Diagnostic{core::Severity::Warning, manifest.error().where,
                                                 "the run manifest is not used: " + manifest.error().message});
    run->clockOffsetNs = clockOffsetNs;
    RunRecord& ref = *run;
    m_runs[ref.id] = std::move(run);
    m_order.push_back(ref.id);
    Q_EMIT runAdded(ref.id);
    startLoad(ref);
    return ref.id;
}

int RunManager::addDataset(const QString& label, core::DatasetPtr dataset) {
    auto run = std::make_unique<RunRecord>();
    run->id = m_nextId++;
    run->entry.label = label.toStdString();
    run->state = RunState::Loaded;
    run->dataset = std::move(dataset);
    if (run->dataset) {
        for (const auto& rank : run->dataset->ranks) run->summaries.push_back(core::summarizeRank(*rank));
        run->warnings = run->dataset->diagnostics;
    }
    const int id = run->id;
    m_runs[id] = std::move(run);
    m_order.push_back(id);
    Q_EMIT runAdded(id);
    Q_EMIT runChanged(id);
    Q_EMIT runLoaded(id);
    return id;
}

std::string RunManager::loadSlot(const RunRecord& run) {
    std::string slot = "load:" + std::to_string(run.id);
    for (const auto& s : run.entry.paths) slot += ":" + s;
    return slot;
}

void RunManager::startLoad(RunRecord& run) {
    if (run.entry.paths.empty()) return;  // in-memory runs have nothing to reload
    run.reloading = static_cast<bool>(run.dataset);
    run.state = RunState::Loading;
    run.metadata.clear();
    run.stage = tr("queued");  // until a worker takes the job
    run.wait = RunRecord::Wait::Queued;
    run.stageFile.clear();
    run.fraction = 0.0;
    run.clock.start();

    const int id = run.id;
    const std::vector<std::string> sources = run.entry.paths;
    core::RunLoadOptions options = m_options;
    if (run.clockOffsetNs) {
        options.sources.hasClockOffset = true;
        options.sources.clockOffsetNs = *run.clockOffsetNs;
    }
    if (run.wantedRanks) {
        options.ranks = run.wantedRanks;
        // Ranks picked on a run opened summary-first: its summaries are reused while its files are unchanged.
        if (run.dataset) options.knownSummaries = run.dataset->summaryFirst;
    }
    // Results come back as queued calls on the GUI thread, to this manager if it still exists. The job's
    // generation is the load's serial: posts of a superseded load are ignored.
    QPointer<RunManager> self(this);
    auto post = [self](std::function<void(RunManager&)> fn) {
        QMetaObject::invokeMethod(
            QCoreApplication::instance(), [self, fn = std::move(fn)] { if (self) fn(*self); }, Qt::QueuedConnection);
    };
    auto finished = [post, id](uint64_t serial, std::shared_ptr<Outcome> outcome) {
        post([id, serial, outcome](RunManager& m) { m.onLoadFinished(id, serial, outcome); });
    };

    // The one load job (core/engine/load_job.h); its events come back as queued calls on the GUI thread.
    core::LoadJobEvents events;
    // Posts run on the GUI thread after this function stored the job's generation (the load's serial) here: a
    // post of a superseded load finds another serial and is ignored.
    auto serialHolder = std::make_shared<std::atomic<uint64_t>>(0);
    auto current = [serialHolder](const RunManager& m, int runId) -> RunRecord* {
        auto it = m.m_runs.find(runId);
        return it != m.m_runs.end() && it->second->loadSerial == serialHolder->load() ? it->second.get() : nullptr;
    };
    events.onStarted = [post, id, current]() {  // a worker took the job: no longer queued
        post([id, current](RunManager& m) {
            if (RunRecord* r = current(m, id)) {
                r->stage = tr("starting");
                r->wait = RunRecord::Wait::None;
                Q_EMIT m.runChanged(id);
            }
        });
    };
    events.onExpanded = [post, id, current](const std::vector<std::string>& expanded) {
        const QStringList files = toQStringList(expanded);
        post([id, files, current](RunManager& m) {
            if (RunRecord* r = current(m, id)) {
                r->files = files;
                Q_EMIT m.runChanged(id);
            }
        });
    };
    events.onProgress = [post, id, current](const core::ProgressInfo& p) {
        post([id, p, current](RunManager& m) {
            if (RunRecord* r = current(m, id)) {
                r->stage = QString::fromStdString(p.stage);
                r->wait = p.stage == core::kWaitingForMemoryStage ? RunRecord::Wait::Memory : RunRecord::Wait::None;
                r->stageFile = QString::fromStdString(p.file);
                r->fraction = p.fraction;
                Q_EMIT m.runChanged(id);
            }
        });
    };
    events.onMetadata = [post, id, current](size_t fileIndex, const core::TraceInfo& info) {
        post([id, fileIndex, info, current](RunManager& m) {
            if (RunRecord* r = current(m, id)) {
                r->metadata[fileIndex] = info;
                Q_EMIT m.runChanged(id);
            }
        });
    };
    auto done = [finished](uint64_t serial, core::Result<core::LoadJobResult> result) {
        auto outcome = std::make_shared<Outcome>();
        if (!result && result.error().message == "cancelled" && result.error().where.file.empty()) {
            outcome->cancelled = true;
        } else if (!result) {
            outcome->error = result.error();
        } else {
            outcome->dataset = std::move(result->dataset);
            outcome->summaries = std::move(result->summaries);
            outcome->seconds = result->seconds;
        }
        finished(serial, outcome);
    };
    // A load of this run still running is superseded (its results are ignored: its serial is no longer current).
    run.loadSerial = core::submitLoadJob(*m_runner, loadSlot(run), tr("Load %1").arg(run.label()).toStdString(),
                                         sources, options, std::move(done), std::move(events), m_load);
    serialHolder->store(run.loadSerial);
    Q_EMIT runChanged(run.id);
    Q_EMIT loadingChanged(true);
    if (run.loadSerial == 0) {  // the runner is shutting down
        auto outcome = std::make_shared<Outcome>();
        outcome->cancelled = true;
        onLoadFinished(run.id, 0, outcome);
    }
}

void RunManager::onLoadFinished(int id, uint64_t serial, std::shared_ptr<Outcome> outcome) {
    auto it = m_runs.find(id);
    if (it == m_runs.end() || it->second->loadSerial != serial) return;  // closed, superseded or already ended
    if (it->second->state != RunState::Loading) return;
    RunRecord& run = *it->second;
    run.loadSerial = 0;  // ended: a second report of this load (cancelled as it finished) is ignored
    run.wait = RunRecord::Wait::None;
    run.loadSeconds = outcome->seconds;
    run.reloading = false;
    bool newData = false;
    if (outcome->cancelled) {
        run.state = run.dataset ? RunState::Loaded : RunState::Cancelled;
        run.stage = tr("cancelled");
    } else if (outcome->error) {
        run.error = outcome->error;
        run.state = run.dataset ? RunState::Loaded : RunState::Failed;  // a failed reload keeps the old data
        run.stage = tr("failed");
    } else {
        unwatch(run);
        run.error.reset();
        run.dataset = outcome->dataset;
        run.summaries = std::move(outcome->summaries);
        if (!run.dataset || !run.dataset->summaryFirst) run.wantedRanks.reset();  // loaded in full
        run.state = RunState::Loaded;
        run.stage = tr("done");
        run.fraction = 1.0;
        run.warnings.clear();
        if (run.dataset) {
            run.warnings = run.dataset->diagnostics;
            QStringList files;
            for (const core::RankData* r : run.dataset->allSources()) {  // the ranks and the hosts' telemetry
                for (const auto& d : r->diagnostics)
                    if (d.severity != core::Severity::Info) run.warnings.push_back(d);
                files << QString::fromStdString(r->path);
            }
            if (run.files.isEmpty()) run.files = files;
        }
        watch(run);
        newData = true;
    }
    Q_EMIT runChanged(id);
    if (newData) Q_EMIT runLoaded(id);
    Q_EMIT loadingChanged(anyLoading());
}

void RunManager::reload(int id) {
    auto it = m_runs.find(id);
    if (it != m_runs.end()) startLoad(*it->second);
}

bool RunManager::isSummaryFirst(int id) const {
    const RunRecord* r = run(id);
    return r && r->dataset && r->dataset->summaryFirst;
}

bool RunManager::loadRanks(int id, const std::vector<int>& ranks, bool only) {
    auto it = m_runs.find(id);
    if (it == m_runs.end() || !isSummaryFirst(id)) return false;
    RunRecord& run = *it->second;
    std::vector<int> wanted;
    auto add = [&wanted](int r) {
        if (std::find(wanted.begin(), wanted.end(), r) == wanted.end()) wanted.push_back(r);
    };
    for (int r : ranks) add(r);
    if (!only) {
        // The ranks asked for before (most wanted first) that are still loaded: kept while the budget allows.
        const auto& loaded = run.dataset->summaryFirst->loaded;
        for (int r : run.wantedRanks.value_or(std::vector<int>{}))
            if (std::binary_search(loaded.begin(), loaded.end(), r)) add(r);
    }
    run.wantedRanks = std::move(wanted);
    startLoad(run);
    return true;
}

void RunManager::setClockOffset(int id, std::optional<int64_t> clockOffsetNs) {
    auto it = m_runs.find(id);
    if (it == m_runs.end() || it->second->entry.paths.empty() || it->second->clockOffsetNs == clockOffsetNs) return;
    it->second->clockOffsetNs = clockOffsetNs;
    startLoad(*it->second);
}

void RunManager::reloadAll() {
    for (int id : m_order) reload(id);
}

void RunManager::cancel(int id) {
    auto it = m_runs.find(id);
    if (it != m_runs.end() && it->second->state == RunState::Loading && it->second->loadSerial != 0)
        m_runner->cancel(loadSlot(*it->second), it->second->loadSerial);
}

void RunManager::cancelAll() {
    for (auto& [id, run] : m_runs) cancel(id);
}

void RunManager::close(int id) {
    auto it = m_runs.find(id);
    if (it == m_runs.end()) return;
    cancel(id);
    unwatch(*it->second);
    if (auto t = m_reloadTimers.find(id); t != m_reloadTimers.end()) {
        t->second->deleteLater();
        m_reloadTimers.erase(t);
    }
    m_runs.erase(it);
    std::erase(m_order, id);
    Q_EMIT runRemoved(id);
    Q_EMIT loadingChanged(anyLoading());
}

void RunManager::closeAll() {
    const auto ids = m_order;
    for (int id : ids) close(id);
}

const RunRecord* RunManager::run(int id) const {
    auto it = m_runs.find(id);
    return it == m_runs.end() ? nullptr : it->second.get();
}

std::vector<int> RunManager::runIds() const { return m_order; }

bool RunManager::anyLoading() const {
    for (const auto& [id, run] : m_runs)
        if (run->state == RunState::Loading) return true;
    return false;
}

plots::RunEntry RunManager::runEntry(int id) const {
    plots::RunEntry e;
    if (const RunRecord* r = run(id)) {
        e = r->entry;
        e.dataset = r->dataset;
    }
    return e;
}

size_t RunManager::datasetBytes() const {
    size_t total = 0;
    for (const auto& [id, run] : m_runs)
        if (run->dataset) total += run->dataset->bytes();
    return total;
}

void RunManager::setWatchFiles(bool on) {
    m_watchFiles = on;
    for (const auto& [id, run] : m_runs) {
        if (on) watch(*run);
        else unwatch(*run);
    }
}

void RunManager::watch(const RunRecord& run) {
    if (!m_watchFiles || run.files.isEmpty()) return;
    m_watcher.addPaths(run.files);
}

void RunManager::unwatch(const RunRecord& run) {
    if (run.files.isEmpty()) return;
    const QStringList watched = m_watcher.files();
    QStringList remove;
    for (const auto& f : run.files)
        if (watched.contains(f)) remove << f;
    if (!remove.isEmpty()) m_watcher.removePaths(remove);
}

void RunManager::onFileChanged(const QString& path) {
    for (const auto& [id, run] : m_runs) {
        if (!run->files.contains(path)) continue;
        QTimer*& timer = m_reloadTimers[id];
        if (!timer) {
            // Debounced: a trace being written changes many times; reload once it has been quiet for a second.
            timer = new QTimer(this);
            timer->setSingleShot(true);
            timer->setInterval(1000);
            const int runId = id;
            connect(timer, &QTimer::timeout, this, [this, runId] { reload(runId); });
        }
        timer->start();
    }
}

}  // namespace strobe::app
