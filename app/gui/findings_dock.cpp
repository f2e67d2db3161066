#include "app/gui/findings_dock.h"

#include <algorithm>

#include <QApplication>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "app/gui/run_manager.h"
#include "core/analysis/context.h"

namespace strobe::app {

namespace {

// Item data roles of a range row (and of a finding's row: its first range).
constexpr int kRankRole = Qt::UserRole + 1;
constexpr int kStartRole = Qt::UserRole + 2;
constexpr int kEndRole = Qt::UserRole + 3;

void setRange(QTreeWidgetItem* item, const core::FindingRange& r) {
    item->setData(0, kRankRole, r.rank);
    item->setData(0, kStartRole, QVariant::fromValue<qint64>(r.start));
    item->setData(0, kEndRole, QVariant::fromValue<qint64>(r.end));
}

QTreeWidgetItem* findingItem(const core::Finding& f, int index) {
    QStringList ranks;
    for (int r : f.ranks) ranks << QString::number(r);
    const QString cp = f.onCriticalPath ? (*f.onCriticalPath ? QObject::tr("on") : QObject::tr("off"))
                                        : QStringLiteral("-");
    auto* item = new QTreeWidgetItem(
        {QStringLiteral("%1. %2").arg(index + 1).arg(QString::fromStdString(f.rule)),
         QString::fromStdString(f.severity), QString::number(f.msPerStep, 'f', 3),
         QStringLiteral("%1 %").arg(100.0 * f.share, 0, 'f', 1), ranks.join(QLatin1Char(',')), cp,
         QString::fromStdString(f.title)});
    for (int c : {2, 3}) item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
    item->setToolTip(0, QString::fromStdString(f.definition));
    if (!f.ranges.empty())  // the finding's own row shows its longest range
        setRange(item, *std::max_element(f.ranges.begin(), f.ranges.end(), [](const auto& a, const auto& b) {
            return a.end - a.start < b.end - b.start;
        }));
    auto child = [item](const QString& key, const QString& text) {
        auto* c = new QTreeWidgetItem(item, {key});
        c->setText(6, text);
        c->setToolTip(6, text);
        c->setFirstColumnSpanned(false);
        return c;
    };
    child(QObject::tr("definition"), QString::fromStdString(f.definition));
    for (const auto& [k, v] : f.evidence) child(QString::fromStdString(k), QString::number(v, 'g', 6));
    child(QObject::tr("what to try"), QString::fromStdString(f.whatToTry));
    if (!f.criticalPathReason.empty()) child(QObject::tr("critical path"), QString::fromStdString(f.criticalPathReason));
    for (const auto& r : f.ranges) {
        auto* c = child(QObject::tr("range"), QObject::tr("rank %1: %2 ns .. %3 ns (%4 ms): click to show")
                                                  .arg(r.rank)
                                                  .arg(r.start)
                                                  .arg(r.end)
                                                  .arg(static_cast<double>(r.end - r.start) / 1e6, 0, 'f', 3));
        setRange(c, r);
    }
    return item;
}

}  // namespace

FindingsDock::FindingsDock(RunManager& runs, QWidget* parent)
    : QWidget(parent), m_runs(runs), m_job(runs.runner(), "findings-dock") {
    m_runBox = new QComboBox(this);
    m_runBox->setObjectName(QStringLiteral("findingsRun"));
    m_runBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_runBox->setMinimumContentsLength(20);
    m_analyseButton = new QPushButton(tr("Analyse"), this);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("findingsStatus"));
    m_status->setWordWrap(true);
    m_tree = new QTreeWidget(this);
    m_tree->setObjectName(QStringLiteral("findingsTree"));
    m_tree->setColumnCount(7);
    m_tree->setHeaderLabels({tr("rule"), tr("severity"), tr("ms/step"), tr("share"), tr("ranks"), tr("critical path"),
                             tr("finding")});
    m_tree->header()->setStretchLastSection(true);
    m_tree->setToolTip(tr("Findings ranked by the time they cost per step. Click a finding or a range to see it on "
                          "the timeline and its events (of the finding's rank) in the events list."));
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Run:"), this));
    top->addWidget(m_runBox, 1);
    top->addWidget(m_analyseButton);
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(2, 2, 2, 2);
    lay->addLayout(top);
    lay->addWidget(m_status);
    lay->addWidget(m_tree, 1);
    connect(m_analyseButton, &QPushButton::clicked, this, [this] { analyse(); });
    // A click on a finding (its longest range) or on one of its ranges shows it; Enter does the same. The
    // activation of a double-click (or Enter right after the click) on the item just shown is not repeated.
    connect(m_tree, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item, int) { activate(item); });
    connect(m_tree, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item, int) {
        if (item != m_lastActivated || !m_sinceActivated.isValid() ||
            m_sinceActivated.elapsed() > QApplication::doubleClickInterval())
            activate(item);
    });
    connect(&m_runs, &RunManager::runLoaded, this, [this](int id) {
        refreshRuns();
        if (isVisible()) analyse(id);
    });
    connect(&m_runs, &RunManager::runRemoved, this, [this](int) { refreshRuns(); });
    refreshRuns();
    m_status->setText(tr("Findings: where the step time goes, ranked (strobe-cli advise)."));
}

FindingsDock::~FindingsDock() = default;

void FindingsDock::refreshRuns() {
    const int current = m_runBox->currentData().isValid() ? m_runBox->currentData().toInt() : -1;
    m_runBox->clear();
    for (int id : m_runs.runIds())
        if (const RunRecord* r = m_runs.run(id); r && r->dataset) m_runBox->addItem(r->label(), id);
    const int at = m_runBox->findData(current);
    if (at >= 0) m_runBox->setCurrentIndex(at);
    else if (m_runBox->count() > 0) m_runBox->setCurrentIndex(m_runBox->count() - 1);  // the newest run
}

void FindingsDock::analyse(int runId) {
    if (runId < 0 && m_runBox->currentData().isValid()) runId = m_runBox->currentData().toInt();
    const RunRecord* run = runId >= 0 ? m_runs.run(runId) : nullptr;
    if (!run || !run->dataset) {
        m_status->setText(tr("Open a run first: findings are computed on a loaded run."));
        return;
    }
    if (const int at = m_runBox->findData(runId); at >= 0) m_runBox->setCurrentIndex(at);
    core::DatasetPtr dataset = run->dataset;
    m_running = true;
    m_analyseButton->setEnabled(false);
    m_status->setText(tr("Analysing %1…").arg(run->label()));
    struct Outcome {
        std::optional<core::FindingsResult> result;
        std::string error;
    };
    m_job.start<Outcome>(
        tr("Findings"),
        [dataset](const core::JobContext&) {
            Outcome o;
            auto ctx = core::AnalysisContext::of(dataset);
            auto r = core::computeFindings(*ctx);
            if (r) o.result = std::move(r.value());
            else o.error = r.error().message;
            return o;
        },
        [this, runId](Outcome o) {
            m_running = false;
            m_analyseButton->setEnabled(true);
            m_shownRun = runId;
            if (o.result) show(*o.result);
            else m_status->setText(tr("Findings failed: %1").arg(QString::fromStdString(o.error)));
            Q_EMIT finished();
        },
        [this](const QString& why) {
            m_running = false;
            m_analyseButton->setEnabled(true);
            m_status->setText(tr("Findings stopped: %1").arg(why));
            Q_EMIT finished();
        });
}

void FindingsDock::show(const core::FindingsResult& r) {
    m_result = r;
    m_lastActivated = nullptr;
    m_tree->clear();
    for (size_t i = 0; i < r.findings.size(); ++i) m_tree->addTopLevelItem(findingItem(r.findings[i], static_cast<int>(i)));
    QString text = r.findings.empty()
                       ? tr("No rule fired: nothing costs 1 % of the step or more (window %1, step %2 ms).")
                             .arg(QString::fromStdString(r.window))
                             .arg(r.stepMs, 0, 'f', 3)
                       : tr("%n finding(s), window %1, step %2 ms; click one to see it on the timeline and its events.", "",
                            static_cast<int>(r.findings.size()))
                             .arg(QString::fromStdString(r.window))
                             .arg(r.stepMs, 0, 'f', 3);
    for (const auto& m : r.messages) text += QStringLiteral("\n") + QString::fromStdString(m);
    m_status->setText(text);
    for (int c = 0; c < 6; ++c) m_tree->resizeColumnToContents(c);
    m_tree->setColumnWidth(0, std::max(m_tree->columnWidth(0), 260));  // evidence names in the children
}

void FindingsDock::activate(QTreeWidgetItem* item) {
    if (!item || !item->data(0, kStartRole).isValid() || m_shownRun < 0) return;
    m_lastActivated = item;
    m_sinceActivated.start();
    Q_EMIT rangeRequested(m_shownRun, item->data(0, kRankRole).toInt(), item->data(0, kStartRole).toLongLong(),
                          item->data(0, kEndRole).toLongLong());
}

}  // namespace strobe::app
