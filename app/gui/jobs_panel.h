#pragma once
// Background jobs (run loads, plot preparations, exports) with their stage, progress and a Cancel button.

#include <functional>
#include <map>

#include <QObject>
#include <QString>
#include <QWidget>

class QTreeWidget;
class QTreeWidgetItem;
class QLabel;

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

    // GUI thread only.
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
