#pragma once
// The runs open in the workbench. Each run loads in the background (core::loadRun on a worker thread); its
// metadata (GPU, platform, rank, event estimate) shows as soon as the loader reports it, then progress in named
// stages, then the dataset and one summary per rank. A failed load keeps what was open before (a reload that
// fails leaves the previous dataset in place) and reports the error with the file it concerns.
// Files of loaded runs are watched; a change on disk reloads the run after a short quiet period.
// Loads are jobs of the one core::JobRunner, one slot per run and file set ("load:<id>:<files>"): loads of
// different runs run side by side within the runner's memory limit (each reserves its estimated peak first);
// a reload supersedes the run's load still running. A run whose job has not started yet says "queued"; one whose
// job waits for room in the memory limit says "waiting for memory"; each run can be cancelled alone.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include <QElapsedTimer>
#include <QFileSystemWatcher>
#include <QObject>
#include <QStringList>
#include <QTimer>

#include "core/analysis/summary.h"
#include "core/engine/job_runner.h"
#include "core/engine/run_loader.h"
#include "core/io/progress.h"
#include "core/model/dataset.h"
#include "core/model/run_set.h"
#include "plots/plot.h"

namespace strobe::app {

enum class RunState { Loading, Loaded, Failed, Cancelled };

struct RunRecord {
    int id = 0;
    // The run: label, paths (what the user opened, absolute), sweep point (parameters, repeat, configuration key) and
    // its manifest when it lies in a run directory with one. Its dataset is `dataset` below (the last load's).
    core::RunEntry entry;
    QString label() const { return QString::fromStdString(entry.label); }
    QStringList sources() const {
        QStringList out;
        for (const auto& p : entry.paths) out << QString::fromStdString(p);
        return out;
    }
    // ns added to the times of the run's sources not on the realtime clock (rocprof boot time, nvidia-smi local
    // time...), as strobe-cli --clock-offset; unset: the manager's load options decide (the command line's).
    std::optional<int64_t> clockOffsetNs;
    RunState state = RunState::Loading;
    bool reloading = false;                        // a load is running while an older dataset is shown
    // A run opened summary-first (its dataset's summaryFirst): the ranks whose events were asked for, most wanted
    // first (RunManager::loadRanks); unset for a run loaded in full.
    std::optional<std::vector<int>> wantedRanks;

    // While loading.
    QStringList files;                             // expanded trace files (known once expansion is done)
    std::map<size_t, core::TraceInfo> metadata;    // per file index, as soon as the loader reports it
    enum class Wait { Queued, Memory, None };      // before the load reads: no worker yet, no room in memory
    Wait wait = Wait::None;
    QString stage;
    QString stageFile;
    double fraction = 0.0;
    uint64_t loadSerial = 0;                       // the runner generation of the load in flight (0: none)
    QElapsedTimer clock;
    double loadSeconds = 0.0;

    // Result.
    core::DatasetPtr dataset;
    std::vector<core::RankSummary> summaries;      // one per rank, same order as dataset->ranks
    std::optional<core::Error> error;              // the last load's error (names the file)
    core::Diagnostics warnings;                    // run-level and per-file warnings of the last load
};

class RunManager : public QObject {
    Q_OBJECT
public:
    // Loads run on `runner`, which must outlive this manager (or have cancelled its loads by then).
    explicit RunManager(core::JobRunner& runner, QObject* parent = nullptr);
    // Loads run on a runner of its own.
    explicit RunManager(QObject* parent = nullptr);
    ~RunManager() override;  // cancels running loads (an own runner waits for them)

    // Opens `sources` (files and/or directories) as one run and starts loading it. Returns the run id.
    int openRun(const QStringList& sources, const QString& label = {}, const core::RunParameters& parameters = {},
                std::optional<int64_t> clockOffsetNs = std::nullopt);
    // Opens a run as described (entry.paths are what it loads; a discovered sweep run keeps its repeat, key and
    // manifest). A run lying in a run directory with a manifest.yaml gets the manifest, and its parameters and
    // repeat when the entry has none (core::attachRunManifest); an unreadable manifest is a warning of the run.
    int openRun(core::RunEntry entry, std::optional<int64_t> clockOffsetNs = std::nullopt);
    // Gives the run a clock offset (or removes it) and reloads it: its unanchored sources are then placed on the
    // realtime clock with it, beside anchored ones (a Kineto trace, the collectors' samplers).
    void setClockOffset(int id, std::optional<int64_t> clockOffsetNs);
    // Adds a run whose data is already in memory (produced elsewhere: tests, a collector). Not reloadable.
    int addDataset(const QString& label, core::DatasetPtr dataset);
    void reload(int id);
    void reloadAll();
    // A run opened summary-first (its dataset's summaryFirst set): loads the events of `ranks` beside those loaded
    // (`only`: instead of them), within the memory budget: the ranks asked for first, then the ones loaded before
    // as long as they fit (core::RunLoadOptions::ranks). False (nothing done) for a run not opened summary-first.
    bool loadRanks(int id, const std::vector<int>& ranks, bool only = false);
    // Whether the run is open summary-first (its latest dataset says so).
    bool isSummaryFirst(int id) const;
    void cancel(int id);
    void cancelAll();
    void close(int id);
    void closeAll();

    const RunRecord* run(int id) const;
    std::vector<int> runIds() const;  // in opening order
    bool anyLoading() const;
    // The run as a plot input (its entry with the dataset). Dataset null while the first load runs.
    plots::RunEntry runEntry(int id) const;
    size_t datasetBytes() const;
    // The runner its loads go to (the GUI's other background work goes there too, to show in the one Jobs panel).
    core::JobRunner& runner() const { return *m_runner; }

    // The function that loads a run on the worker thread (default core::loadRun). Tests put a scripted, slow one
    // here to watch loads run side by side; it must honour callbacks.cancel.
    using LoadFunction = std::function<core::Result<core::DatasetPtr>(
        const std::vector<std::string>&, const core::RunLoadOptions&, const core::RunCallbacks&)>;
    void setLoadFunction(LoadFunction fn) { m_load = std::move(fn); }

    void setWatchFiles(bool on);
    void setLoadOptions(const core::RunLoadOptions& options) { m_options = options; }
    const core::RunLoadOptions& loadOptions() const { return m_options; }
    // The memory budget loads are checked against (0: core::MemoryBudget's default; STROBE_MEMORY_LIMIT overrides);
    // a converted run whose events would not fit it opens summary-first (loadOptions().summaryFirst, on by default).
    void setMemoryLimit(uint64_t bytes) { m_options.memoryLimitBytes = bytes; }
    // Groups command-line or dropped paths into runs: each directory is a run, loose files together are one.
    static std::vector<QStringList> groupIntoRuns(const QStringList& paths);
    static QString defaultLabel(const QStringList& sources);

Q_SIGNALS:
    void runAdded(int id);
    void runChanged(int id);      // metadata, progress, state, warnings
    void runLoaded(int id);       // a new dataset is in place (first load or reload)
    void runRemoved(int id);
    void loadingChanged(bool anyLoading);

private:
    struct Outcome;
    void startLoad(RunRecord& run);
    static std::string loadSlot(const RunRecord& run);
    void onLoadFinished(int id, uint64_t serial, std::shared_ptr<Outcome> outcome);
    void watch(const RunRecord& run);
    void unwatch(const RunRecord& run);
    void onFileChanged(const QString& path);

    std::map<int, std::unique_ptr<RunRecord>> m_runs;
    std::vector<int> m_order;
    int m_nextId = 1;
    uint64_t m_nextSerial = 1;
    core::RunLoadOptions m_options;
    LoadFunction m_load;
    bool m_watchFiles = true;
    QFileSystemWatcher m_watcher;
    std::map<int, QTimer*> m_reloadTimers;
    std::unique_ptr<core::JobRunner> m_ownRunner;
    core::JobRunner* m_runner = nullptr;
};

QString runStateText(RunState s);
// One line of a run's state for lists (the Sweep panel): "queued", "waiting for memory", "loading 42 %", "loaded"...
QString runProgressText(const RunRecord* run);

}  // namespace strobe::app
