#pragma once
// The Profiling runs dock: each launch from File ▸ Profile a workload… is a strobe-cli process (argv from
// buildCollectArgv, never a shell) shown with its status, a ticking elapsed time, the samples collected so far
// (data rows of the *.csv sampler files under its output directory: every sampler writes one header line, then
// one row per sample, flushed as taken; counted by jobs of the job runner, never on the GUI thread) and the last 200
// lines of its output (stdout and stderr merged), and the torch profiler's step as its hook reports it.
// Cancel sends SIGTERM — strobe-cli then stops its whole process tree, writes the manifest (status: cancelled)
// and exits 143 — and SIGKILL only if it is still running after a grace period. A run that completes (exit 0)
// asks to be opened (openRequested); Open does the same for a finished run of any status (a failed or cancelled
// run keeps what it collected). The final sample count of a finished run follows in the background (samplesFinal).
// Re-run starts a finished launch again into a new directory beside it; Resume continues a finished sweep in its own
// directory (strobe-cli sweep launch skips what completed and refuses a changed plan); Copy command puts the
// strobe-cli line on the clipboard, quoted for a shell.
// Waiting for runs never spins the event loop: the main window defers its close until runningChanged(0).

#include <deque>
#include <map>
#include <memory>
#include <vector>

#include <QElapsedTimer>
#include <QProcess>
#include <QWidget>

#include "app/gui/background_job.h"
#include "app/gui/profile_dialog.h"

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTimer;
class QTreeWidget;
class QTreeWidgetItem;

namespace strobe::app {

enum class LaunchStatus { Starting, Running, Cancelling, Completed, Incomplete, Failed, Cancelled };
QString launchStatusText(LaunchStatus s);

struct LaunchRecord {
    int id = 0;
    QStringList argv;  // strobe-cli's arguments
    QString outDir;
    QString workingDir;  // strobe-cli's (empty: ours)
    bool sweep = false;
    LaunchStatus status = LaunchStatus::Starting;
    int exitCode = -1;        // strobe-cli's exit status once finished (-1: killed by a signal or never started)
    QString error;            // why it could not start, or how it ended abnormally
    QString reason;           // a run that did not complete: its manifest's status_reason, or its last output lines
    std::deque<QString> tail; // the last lines of output
    QString partialLine;
    qint64 samples = 0;
    bool samplesFinal = false;  // the count after the run ended is in (or nothing is counted)
    QElapsedTimer clock;
    qint64 elapsedMs = 0;     // frozen when it ends
    bool cancelRequested = false;
    bool openedAutomatically = false;
    QProcess* process = nullptr;
    QTimer* killTimer = nullptr;
    std::map<QString, std::pair<qint64, qint64>> csvState;  // file → (bytes read, newlines seen)
    QStringList samplerFiles;                                // the file names the run's samplers write
    std::unique_ptr<BackgroundJob> counter;                  // the sample count in flight (a job of the runner)
    // The torch profiler hook's step lines ("strobe_torch: rank R step N/TOTAL (phase)") as they stream, per rank.
    struct Step {
        int step = 0, total = 0;
        QString phase;
    };
    std::map<int, Step> steps;
    // "N/TOTAL (phase)" of the rank furthest behind, ", R ranks" with several; "" before the first step.
    QString stepText() const;
};

class LaunchPanel : public QWidget {
    Q_OBJECT
public:
    static constexpr int kTailLines = 200;

    // Sample counts run on `runner`, which must outlive this panel.
    explicit LaunchPanel(core::JobRunner& runner, QWidget* parent = nullptr);
    // Stops every run still in flight and waits for it (the last resort when the window was not closed first:
    // closing it cancels the runs and waits for them without blocking).
    ~LaunchPanel() override;

    // strobe-cli beside this executable, else the one on PATH, else "strobe-cli".
    static QString defaultStrobeCli();
    QString strobeCli() const { return m_strobeCli; }
    void setStrobeCli(const QString& path) { m_strobeCli = path; }
    // Milliseconds between SIGTERM and SIGKILL on Cancel (default 20 s: strobe-cli's own grace is 5 s per stage).
    void setKillGraceMs(int ms) { m_killGraceMs = ms; }

    // Starts strobe-cli for `request`; returns the launch id.
    int launch(const ProfileRequest& request, const collectors::ToolCatalog& catalog);
    // A finished launch again, same command and tools, into a new directory beside its own (DIR-r2, DIR-r3 ...);
    // returns the new id, 0 when `id` is unknown or still running.
    int rerun(int id);
    // A finished sweep continued in its own directory (sweep launch resumes: completed runs are skipped, the others
    // run again, and a changed plan is refused); returns the new id, 0 for a single run, one in flight or unknown.
    int resume(int id);
    // strobe-cli's command line of launch `id` for a POSIX shell (cd DIR && first when it has a working
    // directory), put on the clipboard; returned ("" when unknown).
    QString copyCommand(int id);
    void cancel(int id);
    void cancelAll();
    int runningCount() const;

    const LaunchRecord* record(int id) const;
    std::vector<int> ids() const;
    int currentId() const;
    void setCurrent(int id);
    QTreeWidget* list() const { return m_list; }
    QPlainTextEdit* logView() const { return m_log; }

Q_SIGNALS:
    void openRequested(const QString& dir, bool sweep);
    void finished(int id);
    void runningChanged(int running);

private:
    int start(const QStringList& argv, const QString& outDir, bool sweep, const QString& workingDir,
              const QStringList& samplerFiles);
    void onOutput(LaunchRecord& r);
    void onFinished(LaunchRecord& r, int exitCode, QProcess::ExitStatus status);
    void onError(LaunchRecord& r, QProcess::ProcessError error);
    // A finished run's manifest: incomplete (and why), or a failed run's last lines, into r.status and r.reason.
    void readEndReason(LaunchRecord& r);
    // Counts the run's sampler rows in the background; `then` (optional) runs once the count is in or was
    // cancelled. Does nothing (then at once) when the run has no samplers.
    void countSamples(LaunchRecord& r, std::function<void()> then = {});
    void tick();
    void refreshRow(const LaunchRecord& r);
    void refreshButtons();
    void showLog();
    LaunchRecord* find(int id);
    QTreeWidgetItem* itemOf(int id) const;

    core::JobRunner& m_runner;
    QString m_strobeCli;
    int m_killGraceMs = 20000;
    int m_nextId = 1;
    std::map<int, std::unique_ptr<LaunchRecord>> m_records;
    QTreeWidget* m_list = nullptr;
    QPlainTextEdit* m_log = nullptr;
    QLabel* m_command = nullptr;
    QPushButton* m_cancel = nullptr;
    QPushButton* m_open = nullptr;
    QPushButton* m_rerun = nullptr;
    QPushButton* m_resume = nullptr;
    QPushButton* m_copy = nullptr;
    QPushButton* m_clear = nullptr;
    QTimer* m_ticker = nullptr;
};

}  // namespace strobe::app
