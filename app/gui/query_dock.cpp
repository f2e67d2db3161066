#include "app/gui/query_dock.h"

#include <QComboBox>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QStandardItemModel>
#include <QTableView>
#include <QTextBlock>
#include <QVBoxLayout>

#include "app/gui/run_manager.h"

namespace strobe::app {

namespace {

constexpr int kMaxHistory = 30;

QString cellText(const core::QueryValue& v) {
    if (std::holds_alternative<std::monostate>(v)) return QStringLiteral("NULL");
    if (const auto* i = std::get_if<int64_t>(&v)) return QString::number(*i);
    if (const auto* d = std::get_if<double>(&v)) return QString::number(*d, 'g', 10);
    return QString::fromStdString(std::get<std::string>(v));
}

}  // namespace

QueryDock::QueryDock(RunManager& runs, QWidget* parent)
    : QWidget(parent), m_runs(runs), m_job(runs.runner(), "query-dock") {
    m_sql = new QPlainTextEdit(this);
    m_sql->setObjectName(QStringLiteral("querySql"));
    m_sql->setPlaceholderText(tr("SELECT name, count(*), sum(dur_ns) FROM kernels GROUP BY name ORDER BY 3 DESC"));
    QFont mono(QStringLiteral("monospace"));
    mono.setStyleHint(QFont::TypeWriter);
    m_sql->setFont(mono);
    m_sql->setMaximumHeight(80);
    m_sql->setToolTip(tr("One read-only SQL statement over the loaded runs. Tables: kernels, slices, flows, counters, "
                         "samples, steps, ranks, runs; views: kernel_time_per_step, launch_latency, "
                         "collective_arrival, collective_skew (README, Querying). Ctrl+Enter runs it."));
    m_historyBox = new QComboBox(this);
    m_historyBox->setObjectName(QStringLiteral("queryHistory"));
    m_historyBox->setPlaceholderText(tr("Queries run"));
    m_historyBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_historyBox->setMinimumContentsLength(24);
    m_runButton = new QPushButton(tr("Run"), this);
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_moreButton = new QPushButton(tr("More rows"), this);
    m_cancelButton->setEnabled(false);
    m_moreButton->setEnabled(false);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("queryStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_model = new QStandardItemModel(this);
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("queryTable"));
    m_table->setModel(m_model);
    m_table->setSortingEnabled(false);  // the SQL says the order
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->setVisible(false);
    m_table->setWordWrap(false);  // one line per row: long kernel names are elided, the tooltip holds them
    m_table->horizontalHeader()->setStretchLastSection(true);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_runButton);
    buttons->addWidget(m_cancelButton);
    buttons->addWidget(m_moreButton);
    buttons->addWidget(m_historyBox, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_sql);
    layout->addLayout(buttons);
    layout->addWidget(m_status);
    layout->addWidget(m_table, 1);

    connect(m_runButton, &QPushButton::clicked, this, &QueryDock::run);
    connect(m_cancelButton, &QPushButton::clicked, this, &QueryDock::cancel);
    connect(m_moreButton, &QPushButton::clicked, this, [this] { start(m_shownLimit + kPageRows); });
    auto* runKey = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), m_sql);
    connect(runKey, &QShortcut::activated, this, &QueryDock::run);
    connect(m_historyBox, &QComboBox::activated, this, [this](int i) {
        if (i >= 0 && i < m_history.size()) m_sql->setPlainText(m_history[i]);
    });
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) { activateRow(index.row()); });
}

QueryDock::~QueryDock() { cancel(); }

void QueryDock::setQuery(const QString& sql) { m_sql->setPlainText(sql); }
QString QueryDock::query() const { return m_sql->toPlainText(); }
int QueryDock::rowCount() const { return m_model->rowCount(); }

void QueryDock::setHistory(const QStringList& queries) {
    m_history = queries.mid(0, kMaxHistory);
    m_historyBox->clear();
    for (const QString& q : m_history) m_historyBox->addItem(q.simplified().left(120));
    m_historyBox->setCurrentIndex(-1);
}

void QueryDock::run() {
    const QString sql = query().trimmed();
    if (sql.isEmpty()) return;
    QStringList h = m_history;
    h.removeAll(sql);
    h.prepend(sql);
    setHistory(h);
    start(kPageRows);
}

void QueryDock::cancel() {
    if (m_engine) m_engine->interrupt();
    m_job.cancel();
}

void QueryDock::start(size_t maxRows) {
    std::vector<core::QueryRun> runs;
    m_runLabels.clear();
    for (int id : m_runs.runIds()) {
        const RunRecord* r = m_runs.run(id);
        if (!r || !r->dataset) continue;
        QString label = r->label();
        for (const auto& [l, other] : m_runLabels)
            if (l == label) label = QStringLiteral("%1 (%2)").arg(label).arg(id);
        m_runLabels.emplace_back(label, id);
        runs.push_back({label.toStdString(), r->dataset});
    }
    if (runs.empty()) {
        m_status->setText(tr("Open a run first: the tables read the loaded runs."));
        return;
    }
    auto engine = core::QueryEngine::open(std::move(runs));
    if (!engine) {
        showError(engine.error());
        return;
    }
    m_engine = std::shared_ptr<core::QueryEngine>(std::move(engine.value()));
    m_running = true;
    m_runButton->setEnabled(false);
    m_cancelButton->setEnabled(true);
    m_moreButton->setEnabled(false);
    m_status->setText(tr("Running…"));
    const std::string sql = query().toStdString();
    auto engineRef = m_engine;
    struct Outcome {
        std::optional<core::QueryResult> result;
        core::Error error;
        double seconds = 0;
    };
    m_job.start<Outcome>(
        tr("Query"),
        [engineRef, sql, maxRows](const core::JobContext&) {
            QElapsedTimer t;
            t.start();
            Outcome o;
            auto r = engineRef->run(sql, maxRows);
            o.seconds = static_cast<double>(t.nsecsElapsed()) / 1e9;
            if (r) o.result = std::move(r.value());
            else o.error = r.error();
            return o;
        },
        [this, maxRows](Outcome o) {
            m_running = false;
            m_runButton->setEnabled(true);
            m_cancelButton->setEnabled(false);
            m_shownLimit = maxRows;
            if (o.result) show(*o.result, o.seconds);
            else showError(o.error);
            m_engine.reset();
            Q_EMIT finished();
        },
        [this](const QString& why) {
            m_running = false;
            m_runButton->setEnabled(true);
            m_cancelButton->setEnabled(false);
            m_status->setText(tr("Query stopped: %1").arg(why));
            m_engine.reset();
            Q_EMIT finished();
        });
}

void QueryDock::show(const core::QueryResult& result, double seconds) {
    m_model->clear();
    QStringList headers;
    for (const auto& c : result.columns) headers << QString::fromStdString(c);
    m_model->setColumnCount(headers.size());
    m_model->setHorizontalHeaderLabels(headers);
    for (const auto& row : result.rows) {
        QList<QStandardItem*> items;
        for (const auto& v : row) {
            auto* item = new QStandardItem(cellText(v));
            if (std::holds_alternative<std::string>(v)) item->setToolTip(item->text());
            if (std::holds_alternative<int64_t>(v) || std::holds_alternative<double>(v))
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            items << item;
        }
        m_model->appendRow(items);
    }
    m_table->resizeColumnsToContents();
    for (int c = 0; c < m_model->columnCount(); ++c)
        m_table->setColumnWidth(c, std::min(m_table->columnWidth(c), 420));
    const QLocale locale;
    QString text = tr("%1 rows in %2 s").arg(locale.toString(qlonglong(result.rows.size()))).arg(seconds, 0, 'f', 3);
    if (result.truncated) text += tr(" — the first %1; More rows fetches the next page").arg(locale.toString(qlonglong(result.rows.size())));
    if (rowRange(0)) text += tr(" · double-click a row to see its time range on the timeline");
    m_status->setText(text);
    m_moreButton->setEnabled(result.truncated);
}

void QueryDock::showError(const core::Error& error) {
    m_model->clear();
    m_moreButton->setEnabled(false);
    const int64_t at = error.where.byteOffset;
    if (at >= 0) {
        // Put the cursor where SQLite points (offsets are bytes of the UTF-8 text).
        const QByteArray utf8 = query().toUtf8();
        const int chars = QString::fromUtf8(utf8.left(static_cast<int>(std::min<int64_t>(at, utf8.size())))).size();
        QTextCursor c = m_sql->textCursor();
        c.setPosition(std::min(chars, static_cast<int>(query().size())));
        c.movePosition(QTextCursor::NextCharacter, QTextCursor::KeepAnchor);
        m_sql->setTextCursor(c);
        m_sql->setFocus();
        m_status->setText(tr("SQL error at character %1: %2").arg(chars + 1).arg(QString::fromStdString(error.message)));
    } else {
        m_status->setText(tr("SQL error: %1").arg(QString::fromStdString(error.message)));
    }
}

std::optional<QueryDock::RowRange> QueryDock::rowRange(int row) const {
    if (row < 0 || row >= m_model->rowCount()) return std::nullopt;
    int runCol = -1, rankCol = -1, tsCol = -1, endCol = -1, durCol = -1;
    for (int c = 0; c < m_model->columnCount(); ++c) {
        const QString h = m_model->horizontalHeaderItem(c)->text();
        if (h == QLatin1String("run")) runCol = c;
        else if (h == QLatin1String("rank")) rankCol = c;
        else if (h == QLatin1String("ts_ns")) tsCol = c;
        else if (h == QLatin1String("end_ns")) endCol = c;
        else if (h == QLatin1String("dur_ns")) durCol = c;
    }
    if (tsCol < 0 || (endCol < 0 && durCol < 0)) return std::nullopt;
    bool ok = false;
    RowRange r;
    r.start = m_model->item(row, tsCol)->text().toLongLong(&ok);
    if (!ok) return std::nullopt;
    if (endCol >= 0) r.end = m_model->item(row, endCol)->text().toLongLong(&ok);
    else r.end = r.start + m_model->item(row, durCol)->text().toLongLong(&ok);
    if (!ok) return std::nullopt;
    if (rankCol >= 0) r.rank = m_model->item(row, rankCol)->text().toInt(&ok);
    const QString run = runCol >= 0 ? m_model->item(row, runCol)->text() : QString();
    for (const auto& [label, id] : m_runLabels)
        if (runCol < 0 ? m_runLabels.size() == 1 : label == run) r.runId = id;
    if (r.runId < 0) return std::nullopt;
    return r;
}

void QueryDock::activateRow(int row) {
    if (auto r = rowRange(row)) Q_EMIT rangeRequested(r->runId, r->rank, r->start, std::max(r->end, r->start + 1));
}

}  // namespace strobe::app
