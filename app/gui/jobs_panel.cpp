#include "app/gui/jobs_panel.h"

#include <QCoreApplication>
#include <QPointer>
#include <QThread>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "core/engine/job_runner.h"

namespace strobe::app {

QString JobList::keyOf(const std::string& slot, uint64_t generation) {
    return QStringLiteral("%1#%2").arg(QString::fromStdString(slot)).arg(generation);
}

void JobList::observe(core::JobRunner& runner) {
    QPointer<JobList> self(this);
    core::JobRunner* r = &runner;
    // Runs `fn` on this list's thread: now when already there (the runner calls onQueued under its lock, so the
    // row exists before any later event of the job), else queued behind the job's earlier events.
    QThread* home = thread();
    auto dispatch = [self, home](std::function<void(JobList&)> fn) {
        if (QThread::currentThread() == home) {
            if (self) fn(*self);
            return;
        }
        QMetaObject::invokeMethod(
            QCoreApplication::instance(), [self, fn = std::move(fn)] { if (self) fn(*self); }, Qt::QueuedConnection);
    };
    auto add = [r](JobList& list, const std::string& slot, uint64_t gen, const std::string& name, bool running) {
        const QString key = keyOf(slot, gen);
        list.begin(key, QString::fromStdString(name), [r, slot, gen] { r->cancel(slot, gen); });
        if (running) list.update(key, tr("running"), -1.0);
    };
    core::JobObserver obs;
    obs.onQueued = [dispatch, add](const std::string& slot, uint64_t gen, const std::string& name) {
        dispatch([=](JobList& list) { add(list, slot, gen, name, false); });
    };
    obs.onStarted = [dispatch](const std::string& slot, uint64_t gen, const std::string&) {
        // Only a row still listed: a job may have ended (and its row gone) before this arrives.
        dispatch([=](JobList& list) { list.update(keyOf(slot, gen), tr("running"), -1.0); });
    };
    obs.onProgress = [dispatch](const std::string& slot, uint64_t gen, const core::ProgressInfo& p) {
        dispatch([slot, gen, stage = QString::fromStdString(p.stage), fraction = p.fraction](JobList& list) {
            list.update(keyOf(slot, gen), stage, fraction);
        });
    };
    obs.onFinished = [dispatch](const std::string& slot, uint64_t gen, core::JobEnd) {
        dispatch([=](JobList& list) { list.end(keyOf(slot, gen)); });
    };
    runner.setObserver(std::move(obs));
    for (const auto& j : runner.jobs()) add(*this, j.slot, j.generation, j.name, j.running);
}

void JobList::begin(const QString& key, const QString& title, std::function<void()> cancel) {
    const bool existed = m_jobs.count(key) != 0;
    m_jobs[key] = Job{title, tr("queued"), -1.0, std::move(cancel)};
    if (existed) Q_EMIT jobUpdated(key);
    else Q_EMIT jobAdded(key);
}

void JobList::update(const QString& key, const QString& stage, double fraction) {
    auto it = m_jobs.find(key);
    if (it == m_jobs.end()) return;
    it->second.stage = stage;
    it->second.fraction = fraction;
    Q_EMIT jobUpdated(key);
}

void JobList::end(const QString& key) {
    if (m_jobs.erase(key)) Q_EMIT jobRemoved(key);
}

void JobList::cancel(const QString& key) {
    auto it = m_jobs.find(key);
    if (it != m_jobs.end() && it->second.cancel) it->second.cancel();
}

JobsPanel::JobsPanel(JobList& jobs, QWidget* parent) : QWidget(parent), m_jobs(jobs) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    m_tree = new QTreeWidget(this);
    m_tree->setColumnCount(4);
    m_tree->setHeaderLabels({tr("Job"), tr("Stage"), tr("Progress"), QString()});
    m_tree->setRootIsDecorated(false);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_tree->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(2, QHeaderView::Fixed);
    m_tree->header()->resizeSection(2, 160);
    m_tree->header()->setSectionResizeMode(3, QHeaderView::ResizeToContents);
    m_empty = new QLabel(tr("No background jobs."), this);
    m_empty->setEnabled(false);
    layout->addWidget(m_empty);
    layout->addWidget(m_tree);
    m_tree->hide();
    connect(&jobs, &JobList::jobAdded, this, &JobsPanel::add);
    connect(&jobs, &JobList::jobUpdated, this, &JobsPanel::refresh);
    connect(&jobs, &JobList::jobRemoved, this, &JobsPanel::remove);
    for (const auto& [key, job] : jobs.jobs()) add(key);
}

void JobsPanel::add(const QString& key) {
    if (m_items.count(key)) return refresh(key);
    auto* item = new QTreeWidgetItem(m_tree);
    m_items[key] = item;
    auto* bar = new QProgressBar(m_tree);
    bar->setRange(0, 1000);
    bar->setTextVisible(true);
    m_tree->setItemWidget(item, 2, bar);
    auto* cancel = new QPushButton(tr("Cancel"), m_tree);
    cancel->setToolTip(tr("Stop this job"));
    connect(cancel, &QPushButton::clicked, this, [this, key] { m_jobs.cancel(key); });
    m_tree->setItemWidget(item, 3, cancel);
    m_tree->show();
    m_empty->hide();
    refresh(key);
}

void JobsPanel::refresh(const QString& key) {
    auto it = m_items.find(key);
    auto job = m_jobs.jobs().find(key);
    if (it == m_items.end() || job == m_jobs.jobs().end()) return;
    it->second->setText(0, job->second.title);
    it->second->setToolTip(0, job->second.title);
    it->second->setText(1, job->second.stage);
    if (auto* bar = qobject_cast<QProgressBar*>(m_tree->itemWidget(it->second, 2))) {
        if (job->second.fraction < 0) {
            bar->setRange(0, 0);
        } else {
            bar->setRange(0, 1000);
            bar->setValue(static_cast<int>(job->second.fraction * 1000));
        }
    }
    if (auto* cancel = m_tree->itemWidget(it->second, 3)) cancel->setEnabled(static_cast<bool>(job->second.cancel));
}

void JobsPanel::remove(const QString& key) {
    auto it = m_items.find(key);
    if (it == m_items.end()) return;
    delete it->second;
    m_items.erase(it);
    if (m_items.empty()) {
        m_tree->hide();
        m_empty->show();
    }
}

}  // namespace strobe::app
