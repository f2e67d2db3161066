#pragma once
// The Query dock: SQL over the loaded runs (core/query/sql_query.h), as `strobe-cli query` runs it. The query runs
// on a worker (Cancel interrupts SQLite); results come a page at a time ("More" fetches the next page); an error
// puts the cursor where SQLite points; a row that names a time range (ts_ns with end_ns or dur_ns, and its run
// and rank) is a double-click from the timeline: the range is measured and listed there. Queries run are kept
// (the history list, saved with the session).

#include <memory>
#include <optional>

#include <QStringList>
#include <QWidget>

#include "app/gui/background_job.h"
#include "core/query/sql_query.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QStandardItemModel;
class QTableView;

namespace strobe::app {

class RunManager;

class QueryDock final : public QWidget {
    Q_OBJECT
public:
    static constexpr int kPageRows = 10000;

    QueryDock(RunManager& runs, QWidget* parent = nullptr);
    ~QueryDock() override;

    void setQuery(const QString& sql);
    QString query() const;
    void run();  // the query in the editor, first page
    void cancel();
    bool isRunning() const { return m_running; }
    QStringList history() const { return m_history; }
    void setHistory(const QStringList& queries);

    QTableView* table() const { return m_table; }
    QLabel* status() const { return m_status; }
    QPlainTextEdit* editor() const { return m_sql; }
    int rowCount() const;
    // The time range row `row` names, when it does: the run's id, rank, absolute start and end (ns).
    struct RowRange {
        int runId = -1;
        int rank = -1;
        int64_t start = 0, end = 0;
    };
    std::optional<RowRange> rowRange(int row) const;
    void activateRow(int row);

Q_SIGNALS:
    void rangeRequested(int runId, int rank, qint64 start, qint64 end);
    void finished();  // a query ended (rows, error or cancel)

private:
    void start(size_t maxRows);
    void show(const core::QueryResult& result, double seconds);
    void showError(const core::Error& error);

    RunManager& m_runs;
    QPlainTextEdit* m_sql = nullptr;
    QComboBox* m_historyBox = nullptr;
    QPushButton* m_runButton = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QPushButton* m_moreButton = nullptr;
    QLabel* m_status = nullptr;
    QTableView* m_table = nullptr;
    QStandardItemModel* m_model = nullptr;
    QStringList m_history;
    std::vector<std::pair<QString, int>> m_runLabels;  // label → run id, of the last query
    std::shared_ptr<core::QueryEngine> m_engine;       // of the query in flight (Cancel interrupts it)
    BackgroundJob m_job;
    size_t m_shownLimit = 0;
    bool m_running = false;
};

}  // namespace strobe::app
