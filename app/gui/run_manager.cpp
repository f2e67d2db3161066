#include "app/gui/run_manager.h"

#include <QDir>
#include <QFileInfo>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

namespace strobe::app {

namespace {

QThreadPool& loadPool() {
    // Loads get their own pool so that exports and other QtConcurrent work never wait behind a big trace.
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool();
        p->setMaxThreadCount(2);
        return p;
    }();
    return *pool;
}

QStringList toQStringList(const std::vector<std::string>& v) {
    QStringList out;
    for (const auto& s : v) out << QString::fromStdString(s);
    return out;
}

std::vector<std::string> toStd(const QStringList& v) {
    std::vector<std::string> out;
    for (const auto& s : v) out.push_back(s.toStdString());
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

RunManager::RunManager(QObject* parent) : QObject(parent) {
    connect(&m_watcher, &QFileSystemWatcher::fileChanged, this, &RunManager::onFileChanged);
}

RunManager::~RunManager() {
    cancelAll();
    for (auto& f : m_futures) f->waitForFinished();
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

int RunManager::openRun(const QStringList& sources, const QString& label,
                        const std::map<std::string, std::string>& parameters) {
    auto run = std::make_unique<RunRecord>();
    run->id = m_nextId++;
    for (const auto& s : sources) run->sources << QFileInfo(s).absoluteFilePath();
    run->label = label.isEmpty() ? defaultLabel(run->sources) : label;
    run->parameters = parameters;
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
    run->label = label;
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

void RunManager::startLoad(RunRecord& run) {
    if (run.sources.isEmpty()) return;  // in-memory runs have nothing to reload
    run.cancel.cancel();  // a load still running for this run is superseded
    run.cancel = core::CancelToken();
    run.loadSerial = m_nextSerial++;
    run.reloading = static_cast<bool>(run.dataset);
    run.state = RunState::Loading;
    run.metadata.clear();
    run.stage = tr("starting");
    run.stageFile.clear();
    run.fraction = 0.0;
    run.clock.start();
    Q_EMIT runChanged(run.id);
    Q_EMIT loadingChanged(true);

    const int id = run.id;
    const uint64_t serial = run.loadSerial;
    const std::vector<std::string> sources = toStd(run.sources);
    const core::CancelToken cancel = run.cancel;
    const core::RunLoadOptions options = m_options;

    // Everything below runs on a worker thread; results come back as queued calls on this object.
    auto work = [this, id, serial, sources, cancel, options]() {
        auto outcome = std::make_shared<Outcome>();
        QElapsedTimer clock;
        clock.start();
        auto post = [this](auto fn) { QMetaObject::invokeMethod(this, std::move(fn), Qt::QueuedConnection); };

        auto expanded = core::expandRunPaths(sources);
        if (!expanded) {
            outcome->error = expanded.error();
            post([this, id, serial, outcome] { onLoadFinished(id, serial, outcome); });
            return;
        }
        const QStringList files = toQStringList(expanded.value());
        post([this, id, serial, files] {
            auto it = m_runs.find(id);
            if (it == m_runs.end() || it->second->loadSerial != serial) return;
            it->second->files = files;
            Q_EMIT runChanged(id);
        });

        core::RunCallbacks cb;
        cb.cancel = cancel;
        cb.onMetadata = [post, this, id, serial](size_t fileIndex, const core::TraceInfo& info) {
            post([this, id, serial, fileIndex, info] {
                auto it = m_runs.find(id);
                if (it == m_runs.end() || it->second->loadSerial != serial) return;
                it->second->metadata[fileIndex] = info;
                Q_EMIT runChanged(id);
            });
        };
        auto throttle = std::make_shared<core::ProgressThrottle>([post, this, id, serial](const core::ProgressInfo& p) {
            post([this, id, serial, p] {
                auto it = m_runs.find(id);
                if (it == m_runs.end() || it->second->loadSerial != serial) return;
                it->second->stage = QString::fromStdString(p.stage);
                it->second->stageFile = QString::fromStdString(p.file);
                it->second->fraction = p.fraction;
                Q_EMIT runChanged(id);
            });
        });
        cb.onProgress = [throttle](const core::ProgressInfo& p) { throttle->report(p, p.fraction >= 1.0); };

        auto loaded = core::loadRun(expanded.value(), options, cb);
        if (cancel.cancelled()) {
            outcome->cancelled = true;
        } else if (!loaded) {
            outcome->error = loaded.error();
        } else {
            outcome->dataset = loaded.value();
            if (outcome->dataset) {
                for (const auto& rank : outcome->dataset->ranks) {
                    if (cancel.cancelled()) break;
                    outcome->summaries.push_back(core::summarizeRank(*rank));
                }
            }
            outcome->cancelled = cancel.cancelled();
        }
        outcome->seconds = clock.elapsed() / 1000.0;
        post([this, id, serial, outcome] { onLoadFinished(id, serial, outcome); });
    };
    auto watcher = std::make_unique<QFutureWatcher<void>>();
    watcher->setFuture(QtConcurrent::run(&loadPool(), std::move(work)));
    // Keep finished watchers from piling up.
    std::erase_if(m_futures, [](const auto& f) { return f->isFinished(); });
    m_futures.push_back(std::move(watcher));
}

void RunManager::onLoadFinished(int id, uint64_t serial, std::shared_ptr<Outcome> outcome) {
    auto it = m_runs.find(id);
    if (it == m_runs.end() || it->second->loadSerial != serial) return;  // closed or superseded
    RunRecord& run = *it->second;
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
        run.state = RunState::Loaded;
        run.stage = tr("done");
        run.fraction = 1.0;
        run.warnings.clear();
        if (run.dataset) {
            run.warnings = run.dataset->diagnostics;
            QStringList files;
            for (const auto& r : run.dataset->ranks) {
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

void RunManager::reloadAll() {
    for (int id : m_order) reload(id);
}

void RunManager::cancel(int id) {
    auto it = m_runs.find(id);
    if (it != m_runs.end() && it->second->state == RunState::Loading) it->second->cancel.cancel();
}

void RunManager::cancelAll() {
    for (auto& [id, run] : m_runs) run->cancel.cancel();
}

void RunManager::close(int id) {
    auto it = m_runs.find(id);
    if (it == m_runs.end()) return;
    it->second->cancel.cancel();
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
        e.label = r->label.toStdString();
        e.dataset = r->dataset;
        e.parameters = r->parameters;
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
