#include "app/gui/launch_panel.h"

#include <algorithm>

#include <QApplication>
#include <QClipboard>
#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSplitter>
#include <QStandardPaths>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "core/model/run_manifest.h"

namespace strobe::app {

namespace {

enum Column { ColOut, ColStatus, ColElapsed, ColSamples, ColSteps, ColCount };

QString elapsedText(qint64 ms) {
    const qint64 s = ms / 1000;
    if (s >= 3600) return QStringLiteral("%1:%2:%3").arg(s / 3600).arg(s / 60 % 60, 2, 10, QLatin1Char('0')).arg(s % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

bool inFlight(const LaunchRecord& r) {
    return r.status == LaunchStatus::Starting || r.status == LaunchStatus::Running || r.status == LaunchStatus::Cancelling;
}

// The file names the sidecar (sampler) tools of `request` write: their output globs' last parts ("cpu.csv").
QStringList samplerFiles(const ProfileRequest& request, const collectors::ToolCatalog& catalog) {
    QStringList names;
    for (const auto& t : request.tools)
        if (const auto* spec = catalog.find(t.name.toStdString()); spec && spec->kind == collectors::ToolKind::Sidecar)
            for (const auto& o : spec->outputs)
                if (QString::fromStdString(o.glob).endsWith(QLatin1String(".csv")))
                    names << QFileInfo(QString::fromStdString(o.glob)).fileName();
    return names;
}

// The sampler files' data rows under `outDir` (the run directory, or every run of a sweep: <sweep>/<point>/rep<R>/;
// runs set aside as incomplete do not count), reading only what was appended since `state` (file → bytes read,
// newlines seen). Runs on a worker of the job runner.
struct LaunchSampleCount {
    std::map<QString, std::pair<qint64, qint64>> state;
    qint64 total = 0;
};
LaunchSampleCount countLaunchSamples(const QString& outDir, const QStringList& names,
                                     std::map<QString, std::pair<qint64, qint64>> state, const core::CancelToken& cancel) {
    LaunchSampleCount out;
    out.state = std::move(state);
    if (names.isEmpty() || !QFileInfo(outDir).isDir()) return out;
    QDirIterator it(outDir, names, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext() && !cancel.cancelled()) {
        const QString path = it.next();
        if (path.contains(QLatin1String("/.incomplete/"))) continue;
        auto& [offset, newlines] = out.state[path];
        QFile f(path);
        if (f.size() < offset) offset = newlines = 0;  // replaced
        if (f.size() > offset && f.open(QIODevice::ReadOnly) && f.seek(offset)) {
            const QByteArray bytes = f.read(f.size() - offset);
            offset += bytes.size();
            newlines += bytes.count('\n');
        }
        out.total += std::max<qint64>(0, newlines - 1);  // the header line
    }
    return out;
}

}  // namespace

QString launchStatusText(LaunchStatus s) {
    switch (s) {
        case LaunchStatus::Starting: return QObject::tr("starting");
        case LaunchStatus::Running: return QObject::tr("running");
        case LaunchStatus::Cancelling: return QObject::tr("cancelling…");
        case LaunchStatus::Completed: return QObject::tr("completed");
        case LaunchStatus::Incomplete: return QObject::tr("incomplete");
        case LaunchStatus::Failed: return QObject::tr("failed");
        case LaunchStatus::Cancelled: return QObject::tr("cancelled");
    }
    return {};
}

QString LaunchPanel::defaultStrobeCli() {
    const QString beside = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("strobe-cli"));
    if (QFileInfo(beside).isExecutable()) return beside;
    const QString onPath = QStandardPaths::findExecutable(QStringLiteral("strobe-cli"));
    return onPath.isEmpty() ? QStringLiteral("strobe-cli") : onPath;
}

LaunchPanel::LaunchPanel(core::JobRunner& runner, QWidget* parent)
    : QWidget(parent), m_runner(runner), m_strobeCli(defaultStrobeCli()) {
    setObjectName(QStringLiteral("launchPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* split = new QSplitter(Qt::Horizontal, this);
    layout->addWidget(split, 1);

    auto* left = new QWidget(split);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    m_list = new QTreeWidget(left);
    m_list->setObjectName(QStringLiteral("launchList"));
    m_list->setRootIsDecorated(false);
    m_list->setHeaderLabels({tr("Output"), tr("Status"), tr("Elapsed"), tr("Samples"), tr("Profiled step")});
    m_list->headerItem()->setToolTip(ColSamples, tr("Rows the samplers (sidecar tools) have written so far"));
    m_list->headerItem()->setToolTip(ColSteps, tr("The torch profiler's schedule (wait, warm-up, active steps) as its "
                                                  "hook reports each step; with several ranks, the one furthest behind"));
    m_list->header()->setStretchLastSection(false);
    m_list->header()->setSectionResizeMode(ColOut, QHeaderView::Stretch);
    for (int c = ColStatus; c < ColCount; ++c) m_list->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    leftLayout->addWidget(m_list, 1);
    auto* buttons = new QHBoxLayout;
    m_cancel = new QPushButton(tr("Cancel"), left);
    m_cancel->setObjectName(QStringLiteral("launchCancel"));
    m_cancel->setToolTip(tr("Stop the run: SIGTERM to strobe-cli, which stops its processes and keeps what was collected"));
    m_open = new QPushButton(tr("Open"), left);
    m_open->setObjectName(QStringLiteral("launchOpen"));
    m_open->setToolTip(tr("Open what the run collected in the workbench"));
    m_clear = new QPushButton(tr("Clear finished"), left);
    m_clear->setObjectName(QStringLiteral("launchClear"));
    m_rerun = new QPushButton(tr("Re-run"), left);
    m_rerun->setObjectName(QStringLiteral("launchRerun"));
    m_rerun->setToolTip(tr("Run it again, same command and tools, into a new directory beside this one"));
    m_resume = new QPushButton(tr("Resume"), left);
    m_resume->setObjectName(QStringLiteral("launchResume"));
    m_resume->setToolTip(tr("Continue the sweep in its directory: completed runs are skipped, the others run again"));
    m_copy = new QPushButton(tr("Copy command"), left);
    m_copy->setObjectName(QStringLiteral("launchCopy"));
    m_copy->setToolTip(tr("Put the strobe-cli command line on the clipboard"));
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_open);
    buttons->addWidget(m_rerun);
    buttons->addWidget(m_resume);
    buttons->addWidget(m_copy);
    buttons->addStretch();
    buttons->addWidget(m_clear);
    leftLayout->addLayout(buttons);

    auto* right = new QWidget(split);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    m_command = new QLabel(right);
    m_command->setObjectName(QStringLiteral("launchCommand"));
    m_command->setWordWrap(true);
    m_command->setTextInteractionFlags(Qt::TextSelectableByMouse);
    rightLayout->addWidget(m_command);
    m_log = new QPlainTextEdit(right);
    m_log->setObjectName(QStringLiteral("launchLog"));
    m_log->setReadOnly(true);
    m_log->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_log->setMaximumBlockCount(kTailLines);
    m_log->setPlaceholderText(tr("Profile a workload (File ▸ Profile a workload…) to see its output here."));
    QFont mono = m_log->font();
    mono.setFamily(QStringLiteral("monospace"));
    mono.setStyleHint(QFont::Monospace);
    m_log->setFont(mono);
    rightLayout->addWidget(m_log, 1);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);

    m_ticker = new QTimer(this);
    m_ticker->setInterval(500);
    connect(m_ticker, &QTimer::timeout, this, &LaunchPanel::tick);
    connect(m_list, &QTreeWidget::currentItemChanged, this, [this] {
        showLog();
        refreshButtons();
    });
    connect(m_list, &QTreeWidget::itemDoubleClicked, this, [this] { m_open->click(); });
    connect(m_cancel, &QPushButton::clicked, this, [this] { cancel(currentId()); });
    connect(m_open, &QPushButton::clicked, this, [this] {
        if (const LaunchRecord* r = record(currentId()); r && !inFlight(*r)) Q_EMIT openRequested(r->outDir, r->sweep);
    });
    connect(m_rerun, &QPushButton::clicked, this, [this] { rerun(currentId()); });
    connect(m_resume, &QPushButton::clicked, this, [this] { resume(currentId()); });
    connect(m_copy, &QPushButton::clicked, this, [this] { copyCommand(currentId()); });
    connect(m_clear, &QPushButton::clicked, this, [this] {
        for (auto it = m_records.begin(); it != m_records.end();) {
            if (inFlight(*it->second)) {
                ++it;
                continue;
            }
            delete itemOf(it->first);
            if (it->second->process) it->second->process->deleteLater();
            it = m_records.erase(it);
        }
        showLog();
        refreshButtons();
    });
    refreshButtons();
}

LaunchPanel::~LaunchPanel() {
    // Never leave a strobe-cli behind: SIGTERM, wait for it to stop its tree, SIGKILL only as the last resort.
    for (auto& [id, r] : m_records) {
        if (!r->process) continue;
        r->process->disconnect(this);
        if (r->process->state() != QProcess::NotRunning) {
            r->process->terminate();
            if (!r->process->waitForFinished(m_killGraceMs)) {
                r->process->kill();
                r->process->waitForFinished(-1);
            }
        }
        delete r->process;
        r->process = nullptr;
    }
}

int LaunchPanel::launch(const ProfileRequest& request, const collectors::ToolCatalog& catalog) {
    return start(buildCollectArgv(request, catalog), request.outDir, request.isSweep(), request.workingDir,
                 samplerFiles(request, catalog));
}

int LaunchPanel::rerun(int id) {
    const LaunchRecord* r = record(id);
    if (!r || inFlight(*r)) return 0;
    QString out = r->outDir;
    static const QRegularExpression suffix(QStringLiteral("-r\\d+$"));  // a re-run's own suffix: DIR-r2, DIR-r3 ...
    const QString stem = QString(out).remove(suffix);
    for (int n = 2; QFileInfo::exists(out); ++n) out = stem + QStringLiteral("-r%1").arg(n);
    QStringList argv = r->argv;
    const qsizetype at = argv.indexOf(QStringLiteral("--out"));
    if (at < 0 || at + 1 >= argv.size()) return 0;
    argv[at + 1] = out;
    return start(argv, out, r->sweep, r->workingDir, r->samplerFiles);
}

int LaunchPanel::resume(int id) {
    const LaunchRecord* r = record(id);
    if (!r || inFlight(*r) || !r->sweep) return 0;
    return start(r->argv, r->outDir, true, r->workingDir, r->samplerFiles);
}

QString LaunchPanel::copyCommand(int id) {
    const LaunchRecord* r = record(id);
    if (!r) return {};
    QString line = shellCommand(QStringList{m_strobeCli} + r->argv);
    if (!r->workingDir.isEmpty()) line = QStringLiteral("cd ") + shellCommand({r->workingDir}) + QStringLiteral(" && ") + line;
    QApplication::clipboard()->setText(line);
    return line;
}

int LaunchPanel::start(const QStringList& argv, const QString& outDir, bool sweep, const QString& workingDir,
                       const QStringList& samplers) {
    auto rec = std::make_unique<LaunchRecord>();
    LaunchRecord& r = *rec;
    r.id = m_nextId++;
    r.argv = argv;
    r.outDir = outDir;
    r.workingDir = workingDir;
    r.sweep = sweep;
    r.clock.start();
    r.samplerFiles = samplers;
    r.counter = std::make_unique<BackgroundJob>(m_runner, backgroundSlot("launch-samples", this) + ":" + std::to_string(r.id));
    r.process = new QProcess(this);
    r.process->setProcessChannelMode(QProcess::MergedChannels);
    r.process->setProgram(m_strobeCli);
    r.process->setArguments(r.argv);
    if (!workingDir.isEmpty()) r.process->setWorkingDirectory(workingDir);
    const int id = r.id;
    m_records[id] = std::move(rec);

    auto* item = new QTreeWidgetItem(m_list);
    item->setData(ColOut, Qt::UserRole, id);
    item->setText(ColOut, QFileInfo(r.outDir).fileName() + (r.sweep ? tr(" (sweep)") : QString()));
    item->setToolTip(ColOut, r.outDir);
    item->setTextAlignment(ColElapsed, Qt::AlignRight | Qt::AlignVCenter);
    item->setTextAlignment(ColSamples, Qt::AlignRight | Qt::AlignVCenter);

    connect(r.process, &QProcess::readyReadStandardOutput, this, [this, id] {
        if (LaunchRecord* x = find(id)) onOutput(*x);
    });
    connect(r.process, &QProcess::started, this, [this, id] {
        if (LaunchRecord* x = find(id); x && x->status == LaunchStatus::Starting) {
            x->status = LaunchStatus::Running;
            refreshRow(*x);
        }
    });
    connect(r.process, &QProcess::finished, this, [this, id](int code, QProcess::ExitStatus status) {
        if (LaunchRecord* x = find(id)) onFinished(*x, code, status);
    });
    connect(r.process, &QProcess::errorOccurred, this, [this, id](QProcess::ProcessError e) {
        if (LaunchRecord* x = find(id)) onError(*x, e);
    });
    r.tail.push_back(QStringLiteral("$ ") + joinCommand(QStringList{m_strobeCli} + r.argv));
    r.process->start();
    refreshRow(r);
    m_list->setCurrentItem(item);
    if (!m_ticker->isActive()) m_ticker->start();
    Q_EMIT runningChanged(runningCount());
    return id;
}

void LaunchPanel::onOutput(LaunchRecord& r) {
    const QString text = r.partialLine + QString::fromLocal8Bit(r.process->readAllStandardOutput());
    QStringList lines = text.split(QLatin1Char('\n'));
    r.partialLine = lines.takeLast();  // what follows the last newline (empty when the chunk ended with one)
    static const QRegularExpression stepLine(QStringLiteral("^strobe_torch: rank (\\d+) step (\\d+)/(\\d+) \\(([^)]+)\\)$"));
    bool stepped = false;
    for (QString& l : lines) {
        if (l.endsWith(QLatin1Char('\r'))) l.chop(1);
        if (const auto m = stepLine.match(l); m.hasMatch()) {
            r.steps[m.captured(1).toInt()] = {m.captured(2).toInt(), m.captured(3).toInt(), m.captured(4)};
            stepped = true;
        }
        r.tail.push_back(l);
        if (currentId() == r.id) m_log->appendPlainText(l);
    }
    while (r.tail.size() > static_cast<size_t>(kTailLines)) r.tail.pop_front();
    if (stepped) refreshRow(r);
}

QString LaunchRecord::stepText() const {
    if (steps.empty()) return {};
    const auto behind = std::min_element(steps.begin(), steps.end(),
                                         [](const auto& a, const auto& b) { return a.second.step < b.second.step; });
    QString text = QObject::tr("%1/%2 (%3)").arg(behind->second.step).arg(behind->second.total).arg(behind->second.phase);
    if (steps.size() > 1) text += QObject::tr(", %1 ranks").arg(steps.size());
    return text;
}

void LaunchPanel::onError(LaunchRecord& r, QProcess::ProcessError error) {
    if (error != QProcess::FailedToStart) return;  // crashes and kills arrive through finished()
    r.status = LaunchStatus::Failed;
    r.samplesFinal = true;  // nothing ran, nothing to count
    r.error = tr("could not start %1: %2").arg(m_strobeCli, r.process->errorString());
    r.tail.push_back(r.error);
    r.elapsedMs = r.clock.elapsed();
    if (currentId() == r.id) showLog();
    refreshRow(r);
    refreshButtons();
    Q_EMIT finished(r.id);
    Q_EMIT runningChanged(runningCount());
}

void LaunchPanel::onFinished(LaunchRecord& r, int exitCode, QProcess::ExitStatus status) {
    if (!r.partialLine.isEmpty()) {
        r.tail.push_back(r.partialLine);
        if (currentId() == r.id) m_log->appendPlainText(r.partialLine);
        r.partialLine.clear();
    }
    if (r.killTimer) {
        r.killTimer->stop();
        r.killTimer->deleteLater();
        r.killTimer = nullptr;
    }
    r.elapsedMs = r.clock.elapsed();
    // The final count (what the samplers wrote last) comes in the background; the row shows it when it is in.
    const int id = r.id;
    countSamples(r, [this, id] {
        if (LaunchRecord* x = find(id)) x->samplesFinal = true;
    });
    if (status == QProcess::CrashExit) {
        r.exitCode = -1;
        r.status = r.cancelRequested ? LaunchStatus::Cancelled : LaunchStatus::Failed;
        r.error = tr("strobe-cli was killed");
    } else {
        r.exitCode = exitCode;
        // strobe-cli: 0 every run completed, 130/143 cancelled by SIGINT/SIGTERM; anything else is a failure
        // (1 some sweep runs failed, 2 usage, 125 refused, 126/127 the command cannot run, else the workload's).
        if (exitCode == 0) r.status = LaunchStatus::Completed;
        else if (exitCode == 130 || exitCode == 143) r.status = LaunchStatus::Cancelled;
        else r.status = LaunchStatus::Failed;
    }
    readEndReason(r);
    const QString end = r.status == LaunchStatus::Completed
                            ? tr("— completed in %1").arg(elapsedText(r.elapsedMs))
                            : tr("— %1 (%2) after %3")
                                  .arg(launchStatusText(r.status),
                                       r.exitCode >= 0 ? tr("exit %1").arg(r.exitCode) : r.error,
                                       elapsedText(r.elapsedMs)) +
                                  // a failed run's last lines are in the log already (strobe-cli printed them)
                                  (r.status == LaunchStatus::Incomplete ? QStringLiteral(": ") + r.reason : QString());
    r.tail.push_back(end);
    while (r.tail.size() > static_cast<size_t>(kTailLines)) r.tail.pop_front();
    if (currentId() == r.id) m_log->appendPlainText(end);
    refreshRow(r);
    refreshButtons();
    const bool open = r.status == LaunchStatus::Completed;
    if (open) r.openedAutomatically = true;
    Q_EMIT finished(id);
    Q_EMIT runningChanged(runningCount());
    if (open)
        if (const LaunchRecord* x = record(id)) Q_EMIT openRequested(x->outDir, x->sweep);
}

void LaunchPanel::readEndReason(LaunchRecord& r) {
    // One run's manifest (a sweep's runs each have theirs; strobe-cli's output names them): a few KiB of YAML.
    if (r.sweep || r.status == LaunchStatus::Completed || r.status == LaunchStatus::Cancelled) return;
    const auto m = core::readRunManifest(r.outDir.toStdString());
    if (!m) return;
    if (m->status == core::RunStatus::Incomplete) r.status = LaunchStatus::Incomplete;
    if (!m->statusReason.empty()) r.reason = QString::fromStdString(m->statusReason);
    else if (!m->failure.empty()) r.reason = tr("the workload's last lines:\n%1").arg(QString::fromStdString(m->failure));
}

void LaunchPanel::cancel(int id) {
    LaunchRecord* r = find(id);
    if (!r || !r->process || r->process->state() == QProcess::NotRunning) return;
    r->cancelRequested = true;
    r->status = LaunchStatus::Cancelling;
    r->process->terminate();  // SIGTERM: strobe-cli cancels its whole process tree and exits 143
    if (!r->killTimer) {
        r->killTimer = new QTimer(this);
        r->killTimer->setSingleShot(true);
        connect(r->killTimer, &QTimer::timeout, this, [this, id] {
            if (LaunchRecord* x = find(id); x && x->process && x->process->state() != QProcess::NotRunning) {
                x->tail.push_back(tr("— still running %1 s after SIGTERM: SIGKILL").arg(m_killGraceMs / 1000));
                x->process->kill();
            }
        });
        r->killTimer->start(m_killGraceMs);
    }
    refreshRow(*r);
    refreshButtons();
}

void LaunchPanel::cancelAll() {
    for (int id : ids()) cancel(id);
}

int LaunchPanel::runningCount() const {
    return static_cast<int>(std::count_if(m_records.begin(), m_records.end(), [](const auto& kv) { return inFlight(*kv.second); }));
}

const LaunchRecord* LaunchPanel::record(int id) const {
    auto it = m_records.find(id);
    return it == m_records.end() ? nullptr : it->second.get();
}

LaunchRecord* LaunchPanel::find(int id) {
    auto it = m_records.find(id);
    return it == m_records.end() ? nullptr : it->second.get();
}

std::vector<int> LaunchPanel::ids() const {
    std::vector<int> out;
    for (const auto& [id, r] : m_records) out.push_back(id);
    return out;
}

QTreeWidgetItem* LaunchPanel::itemOf(int id) const {
    for (int i = 0; i < m_list->topLevelItemCount(); ++i)
        if (m_list->topLevelItem(i)->data(ColOut, Qt::UserRole).toInt() == id) return m_list->topLevelItem(i);
    return nullptr;
}

int LaunchPanel::currentId() const {
    const QTreeWidgetItem* item = m_list->currentItem();
    return item ? item->data(ColOut, Qt::UserRole).toInt() : 0;
}

void LaunchPanel::setCurrent(int id) {
    if (QTreeWidgetItem* item = itemOf(id)) m_list->setCurrentItem(item);
}

void LaunchPanel::countSamples(LaunchRecord& r, std::function<void()> then) {
    if (r.samplerFiles.isEmpty() || !r.counter) {
        if (then) then();
        return;
    }
    // A count still in flight is superseded by this one (it would miss what was appended since it started).
    const int id = r.id;
    r.counter->start<LaunchSampleCount>(
        tr("Count the samples of %1").arg(QFileInfo(r.outDir).fileName()),
        [outDir = r.outDir, names = r.samplerFiles, state = r.csvState](const core::JobContext& ctx) {
            return countLaunchSamples(outDir, names, state, ctx.cancel);
        },
        [this, id, then](LaunchSampleCount count) {
            if (LaunchRecord* x = find(id)) {
                x->csvState = std::move(count.state);
                x->samples = count.total;
                refreshRow(*x);
            }
            if (then) then();
        },
        [then](const QString&) {
            if (then) then();  // cancelled: the count so far stands
        });
}

void LaunchPanel::tick() {
    bool any = false;
    for (auto& [id, r] : m_records) {
        if (!inFlight(*r)) continue;
        any = true;
        if (r->process && r->process->state() != QProcess::NotRunning && !r->counter->pending()) countSamples(*r);
        refreshRow(*r);
    }
    if (!any) m_ticker->stop();
}

void LaunchPanel::refreshRow(const LaunchRecord& r) {
    QTreeWidgetItem* item = itemOf(r.id);
    if (!item) return;
    QString status = launchStatusText(r.status);
    if (!inFlight(r) && r.status != LaunchStatus::Completed)
        status += r.exitCode >= 0 ? tr(" (exit %1)").arg(r.exitCode) : QStringLiteral(" (%1)").arg(r.error);
    item->setText(ColStatus, status);
    item->setToolTip(ColStatus, r.reason.isEmpty() ? status : status + QLatin1Char('\n') + r.reason);
    const QColor colour = r.status == LaunchStatus::Completed    ? QColor(39, 174, 96)
                          : r.status == LaunchStatus::Incomplete ? QColor(211, 84, 0)
                          : r.status == LaunchStatus::Failed     ? QColor(192, 57, 43)
                          : r.status == LaunchStatus::Cancelled ? QColor(150, 150, 150)
                                                                : palette().text().color();
    item->setForeground(ColStatus, colour);
    item->setText(ColElapsed, elapsedText(inFlight(r) ? r.clock.elapsed() : r.elapsedMs));
    item->setText(ColSamples, !r.samplerFiles.isEmpty() ? QString::number(r.samples) : QStringLiteral("—"));
    item->setText(ColSteps, r.stepText());
}

void LaunchPanel::refreshButtons() {
    const LaunchRecord* r = record(currentId());
    m_cancel->setEnabled(r && (r->status == LaunchStatus::Running || r->status == LaunchStatus::Starting));
    m_open->setEnabled(r && !inFlight(*r) && QFileInfo(r->outDir).isDir());
    m_rerun->setEnabled(r && !inFlight(*r));
    m_resume->setEnabled(r && !inFlight(*r) && r->sweep && r->status != LaunchStatus::Completed);
    m_resume->setToolTip(r && !r->sweep ? tr("Only a sweep resumes: Re-run starts a single run again in a new directory")
                                        : tr("Continue the sweep in its directory: completed runs are skipped, the others run again"));
    m_copy->setEnabled(r != nullptr);
    m_clear->setEnabled(std::any_of(m_records.begin(), m_records.end(), [](const auto& kv) { return !inFlight(*kv.second); }));
}

void LaunchPanel::showLog() {
    m_log->clear();
    const LaunchRecord* r = record(currentId());
    if (!r) {
        m_command->clear();
        return;
    }
    m_command->setText(r->outDir);
    QStringList lines(r->tail.begin(), r->tail.end());
    m_log->setPlainText(lines.join(QLatin1Char('\n')));
    m_log->moveCursor(QTextCursor::End);
}

}  // namespace strobe::app
