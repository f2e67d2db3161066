#pragma once
// Background jobs (run loads, plot preparations, exports, sweep discovery/comparison/report, tool probes, sample
// counts: app/gui/background_job.h) with their stage, progress and a Cancel button. The list observes the one
// core::JobRunner: every job submitted to it shows, from queued to finished, without anyone feeding the list by
// hand; Cancel cancels the job in the runner.

#include <functional>
#include <map>

#include <QObject>
#include <QString>
#include <QWidget>

class QTreeWidget;
class QTreeWidgetItem;
class QLabel;

namespace strobe::core {
class JobRunner;
}

namespace strobe::app {

class JobList : public QObject {
    Q_OBJECT
public:
    struct Job {
        QString title;
        QString stage;
        double fraction = -1.0;  // < 0: unknown (busy indicator)
        std::function<void()> cancel;
    };
    using QObject::QObject;

    // Shows the jobs of `runner` (which must outlive this list): those already there, then every job it queues.
    // Replaces the runner's observer. Events reach this list on its thread: at once when they happen there (a
    // job submitted from the GUI thread is listed when submit() returns), else through queued calls.
    void observe(core::JobRunner& runner);
    // The key of a runner job's row.
    static QString keyOf(const std::string& slot, uint64_t generation);

    // GUI thread only. (observe() feeds these.)
    void begin(const QString& key, const QString& title, std::function<void()> cancel);
    void update(const QString& key, const QString& stage, double fraction);
    void end(const QString& key);
    void cancel(const QString& key);
    const std::map<QString, Job>& jobs() const { return m_jobs; }

Q_SIGNALS:
    void jobAdded(const QString& key);
    void jobUpdated(const QString& key);
    void jobRemoved(const QString& key);

private:
    std::map<QString, Job> m_jobs;
};

class JobsPanel : public QWidget {
    Q_OBJECT
public:
    explicit JobsPanel(JobList& jobs, QWidget* parent = nullptr);

private:
    void add(const QString& key);
    void refresh(const QString& key);
    void remove(const QString& key);

    JobList& m_jobs;
    QTreeWidget* m_tree = nullptr;
    QLabel* m_empty = nullptr;
    std::map<QString, QTreeWidgetItem*> m_items;
};

}  // namespace strobe::app
