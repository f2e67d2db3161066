#include "app/gui/sweep_panel.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <QCheckBox>
#include <QComboBox>
#include <QDesktopServices>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSaveFile>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QUrl>
#include <QDir>
#include <QVBoxLayout>

#include "app/gui/file_dialogs.h"
#include "app/gui/format.h"
#include "app/gui/run_manager.h"
#include "core/sweep/sweep_discovery.h"
#include "plots/report/sweep_report.h"
#include "plots/step_times.h"
#include "plots/sweep_axes.h"

namespace strobe::app {

namespace {

QString qsSweepPanel(const std::string& s) { return QString::fromStdString(s); }

QString paramsText(const std::map<std::string, std::string>& p) {
    const std::string text = core::parametersText(p);
    return text.empty() ? QStringLiteral("-") : qsSweepPanel(text);
}

QString paramsText(const core::RunParameters& p) { return paramsText(core::parameterTexts(p)); }

}  // namespace

SweepPanel::SweepPanel(RunManager& runs, QWidget* parent)
    : QWidget(parent),
      m_runManager(runs),
      m_discover(runs.runner(), backgroundSlot("sweep-discover", this)),
      m_compare(runs.runner(), backgroundSlot("sweep-compare", this)),
      m_report(runs.runner(), backgroundSlot("sweep-report", this)) {
    setObjectName(QStringLiteral("sweepPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_title = new QLabel(tr("No sweep open: File ▸ Open sweep… finds the runs of a sweep directory."), this);
    m_title->setWordWrap(true);
    layout->addWidget(m_title);
    m_filter = new QLineEdit(this);
    m_filter->setObjectName(QStringLiteral("sweepFilter"));
    m_filter->setPlaceholderText(tr("Filter runs (text in the run or a parameter)"));
    m_filter->setClearButtonEnabled(true);
    layout->addWidget(m_filter);

    auto* split = new QSplitter(Qt::Vertical, this);
    m_table = new QTableWidget(split);
    m_table->setObjectName(QStringLiteral("sweepRuns"));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->setSortingEnabled(false);
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    m_table->setToolTip(tr("Runs load side by side within the memory limit; right-click a run to cancel or reload it"));

    auto* bottom = new QWidget(split);
    auto* bl = new QVBoxLayout(bottom);
    bl->setContentsMargins(0, 0, 0, 0);
    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Baseline"), bottom));
    m_baseline = new QComboBox(bottom);
    m_baseline->setObjectName(QStringLiteral("sweepBaseline"));
    row->addWidget(m_baseline, 1);
    row->addWidget(new QLabel(tr("Group by"), bottom));
    m_groupBy = new QComboBox(bottom);
    m_groupBy->setObjectName(QStringLiteral("sweepGroupBy"));
    for (const auto& by : plots::kSweepGroupByChoices) m_groupBy->addItem(QString::fromStdString(by));
    row->addWidget(m_groupBy);
    row->addWidget(new QLabel(tr("Skip steps"), bottom));
    m_skipSteps = new QSpinBox(bottom);
    m_skipSteps->setObjectName(QStringLiteral("sweepSkipSteps"));
    m_skipSteps->setRange(0, 1000000);
    m_skipSteps->setToolTip(tr("First ProfilerSteps of every run to leave out (warm-up)"));
    row->addWidget(m_skipSteps);
    bl->addLayout(row);
    auto* buttons = new QHBoxLayout;
    m_compareButton = new QPushButton(tr("Compare checked runs"), bottom);
    m_compareButton->setObjectName(QStringLiteral("sweepCompare"));
    m_reportButton = new QPushButton(tr("Report…"), bottom);
    m_reportButton->setObjectName(QStringLiteral("sweepReport"));
    m_plotButton = new QPushButton(tr("Open plot comparing them"), bottom);
    m_plotButton->setObjectName(QStringLiteral("sweepPlot"));
    buttons->addWidget(m_compareButton);
    buttons->addWidget(m_reportButton);
    buttons->addWidget(m_plotButton);
    bl->addLayout(buttons);
    m_status = new QLabel(bottom);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    bl->addWidget(m_status);
    m_results = new QTableWidget(bottom);
    m_results->setObjectName(QStringLiteral("sweepResults"));
    m_results->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_results->verticalHeader()->hide();
    bl->addWidget(m_results, 1);
    split->addWidget(m_table);
    split->addWidget(bottom);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    m_results->setWordWrap(false);
    // Elided in the middle: a configuration's value and a kernel template's last parameters are at the end, and
    // cut there two rows read the same ("resnet50_num_workers..." twice).
    m_results->setTextElideMode(Qt::ElideMiddle);
    layout->addWidget(split, 1);

    connect(m_filter, &QLineEdit::textChanged, this, [this] { rebuildRuns(); });
    connect(m_compareButton, &QPushButton::clicked, this, [this] { compare(); });
    connect(m_plotButton, &QPushButton::clicked, this, [this] {
        if (const auto ids = checkedRuns(); !ids.empty()) Q_EMIT openPlotRequested(ids);
    });
    connect(m_reportButton, &QPushButton::clicked, this, [this] {
        // Proposed in the last report's directory or the user's documents, never the working directory.
        const QString path = QFileDialog::getSaveFileName(this, tr("Write the sweep report"),
                                                          proposedSavePath(QStringLiteral("report"),
                                                                           QStringLiteral("report.html")),
                                                          tr("HTML (*.html)"));
        if (path.isEmpty()) return;
        rememberDialogDirectory(QStringLiteral("report"), path);
        startReport(path, true);
    });
    connect(m_table, &QTableWidget::customContextMenuRequested, this, &SweepPanel::rowMenu);
    connect(m_table, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
        if (m_filling || item->column() != 0) return;
        setChecked(item->data(Qt::UserRole).toInt(), item->checkState() == Qt::Checked);
    });
    connect(&m_runManager, &RunManager::runChanged, this, [this] { refreshStates(); });
    connect(&m_runManager, &RunManager::runLoaded, this, [this] { refreshStates(); });
    connect(&m_runManager, &RunManager::runRemoved, this, [this](int id) {
        std::erase_if(m_runs, [id](const Run& r) { return r.id == id; });
        rebuildRuns();
    });
}

void SweepPanel::openSweep(const QString& dir, const QString& pattern) {
    m_title->setText(tr("Finding the runs under %1…").arg(dir.toHtmlEscaped()));
    // Reads every manifest, sweep.yaml and directory name under `dir`: on a worker of the runner.
    m_discover.start<core::sweep::SweepDiscovery>(
        tr("Find the runs of %1").arg(QFileInfo(dir).fileName()),
        [paths = std::vector<std::string>{dir.toStdString()}, pattern = pattern.toStdString()](const core::JobContext& ctx) {
            return core::sweep::discoverSweep(paths, pattern, ctx.cancel);
        },
        [this, dir](core::sweep::SweepDiscovery found) { Q_EMIT sweepOpened(showDiscovered(dir, found)); },
        [this, dir](const QString& why) {
            m_title->setText(tr("Finding the runs under %1: %2").arg(dir.toHtmlEscaped(), why.toHtmlEscaped()));
            Q_EMIT sweepOpened(false);
        });
}

bool SweepPanel::showDiscovered(const QString& dir, const core::sweep::SweepDiscovery& found) {
    m_discover.drop();  // this result is newer than a discovery still running
    if (found.runs.empty()) {
        m_title->setText(tr("No runs found under %1").arg(dir));
        return false;
    }
    m_runs.clear();
    // A new sweep: the previous one's comparison is not shown under its header (issue 21).
    m_compare.drop();
    m_result = {};
    m_resultSweep.clear();
    m_results->clear();
    m_results->setRowCount(0);
    m_results->setColumnCount(0);
    m_status->clear();
    m_sweep = QFileInfo(dir).fileName();
    std::set<std::string> axes, configs;
    for (const auto& run : found.runs) {
        Run r;
        r.info = run;
        // Shown (and named in the Runs dock) by its path under the sweep directory.
        const QString relative = QDir(QFileInfo(dir).absoluteFilePath())
                                     .relativeFilePath(QFileInfo(qsSweepPanel(run.path())).absoluteFilePath());
        if (!relative.isEmpty() && relative != QLatin1String(".") && !relative.startsWith(QLatin1String("..")))
            r.info.label = relative.toStdString();
        r.id = m_runManager.openRun(r.info);
        for (const auto& [k, v] : r.info.parameters) axes.insert(k);
        configs.insert(r.info.key());
        m_runs.push_back(std::move(r));
    }
    m_axes.assign(axes.begin(), axes.end());
    QStringList notes;
    for (const auto& m : found.messages) notes << qsSweepPanel(m);
    m_title->setText(tr("<b>%1</b>: %2 runs, %3 configurations, axes: %4")
                         .arg(QFileInfo(dir).fileName().toHtmlEscaped())
                         .arg(m_runs.size())
                         .arg(configs.size())
                         .arg(m_axes.empty() ? tr("none")
                                             : qsSweepPanel([&] {
                                                   std::string s;
                                                   for (const auto& a : m_axes) s += (s.empty() ? "" : ", ") + a;
                                                   return s;
                                               }())
                                                   .toHtmlEscaped()) +
                     (notes.isEmpty()
                          ? QString()
                          : QStringLiteral("<br><small>%1</small>").arg(notes.join("<br>").toHtmlEscaped())));
    m_baseline->clear();
    // In axis order: the first item is the documented default baseline (core::defaultSweepBaseline, as strobe-cli
    // sweep compare and report take it).
    core::RunSet infos;
    for (const auto& r : m_runs) infos.push_back(r.info);
    for (const auto& key : core::sweepConfigurationOrder(infos))
        for (const auto& r : m_runs)
            if (r.info.key() == key) {
                m_baseline->addItem(paramsText(r.info.parameters), qsSweepPanel(key));
                break;
            }
    rebuildRuns();
    return true;
}

void SweepPanel::rebuildRuns() {
    m_filling = true;
    const QString filter = m_filter->text().trimmed();
    QStringList headers{tr("✓"), tr("run")};
    for (const auto& a : m_axes) headers << qsSweepPanel(a);
    headers << tr("repeat") << tr("state");
    m_table->clear();
    m_table->setColumnCount(static_cast<int>(headers.size()));
    m_table->setHorizontalHeaderLabels(headers);
    m_table->setRowCount(0);
    for (const auto& r : m_runs) {
        const QString params = paramsText(r.info.parameters);
        if (!filter.isEmpty() && !qsSweepPanel(r.info.label).contains(filter, Qt::CaseInsensitive) &&
            !params.contains(filter, Qt::CaseInsensitive))
            continue;
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        auto* check = new QTableWidgetItem;
        check->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled | Qt::ItemIsSelectable);
        check->setCheckState(r.checked ? Qt::Checked : Qt::Unchecked);
        check->setData(Qt::UserRole, r.id);
        m_table->setItem(row, 0, check);
        m_table->setItem(row, 1, new QTableWidgetItem(qsSweepPanel(r.info.label)));
        int col = 2;
        for (const auto& a : m_axes) {
            auto it = r.info.parameters.find(a);
            m_table->setItem(
                row, col++, new QTableWidgetItem(it != r.info.parameters.end() ? qsSweepPanel(core::runValueText(it->second)) : QString()));
        }
        m_table->setItem(row, col++, new QTableWidgetItem(QString::number(r.info.repeat)));
        m_table->setItem(row, col, new QTableWidgetItem(runProgressText(m_runManager.run(r.id))));
    }
    m_table->resizeColumnsToContents();
    m_filling = false;
}

// A run's row: cancel its load (the other runs go on loading) or reload it.
void SweepPanel::rowMenu(const QPoint& pos) {
    auto* item = m_table->itemAt(pos);
    auto* check = item ? m_table->item(item->row(), 0) : nullptr;
    const RunRecord* run = check ? m_runManager.run(check->data(Qt::UserRole).toInt()) : nullptr;
    if (!run) return;
    const int id = run->id;
    QMenu menu(this);
    menu.addAction(tr("Cancel loading"), this, [this, id] { m_runManager.cancel(id); })
        ->setEnabled(run->state == RunState::Loading);
    menu.addAction(tr("Reload"), this, [this, id] { m_runManager.reload(id); });
    menu.exec(m_table->viewport()->mapToGlobal(pos));
}

void SweepPanel::refreshStates() {
    m_filling = true;
    const int stateCol = m_table->columnCount() - 1;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const int id = m_table->item(row, 0)->data(Qt::UserRole).toInt();
        if (auto* item = m_table->item(row, stateCol)) item->setText(runProgressText(m_runManager.run(id)));
    }
    m_filling = false;
}

bool SweepPanel::allLoaded() const {
    return std::all_of(m_runs.begin(), m_runs.end(), [this](const Run& r) {
        const RunRecord* rec = m_runManager.run(r.id);
        return rec && rec->state != RunState::Loading;
    });
}

std::vector<int> SweepPanel::checkedRuns() const {
    std::vector<int> out;
    for (const auto& r : m_runs)
        if (r.checked) out.push_back(r.id);
    return out;
}

void SweepPanel::setChecked(int runId, bool checked) {
    for (auto& r : m_runs)
        if (r.id == runId) r.checked = checked;
    rebuildRuns();
}

void SweepPanel::setBaseline(const QString& configuration) {
    const int i = m_baseline->findData(configuration);
    if (i >= 0) m_baseline->setCurrentIndex(i);
}

void SweepPanel::setFilter(const QString& text) { m_filter->setText(text); }

core::RunSet SweepPanel::checkedData() const {
    core::RunSet out;
    for (const auto& r : m_runs) {
        const RunRecord* rec = m_runManager.run(r.id);
        if (r.checked && rec && rec->state == RunState::Loaded && rec->dataset) {
            out.push_back(r.info);
            out.back().dataset = rec->dataset;
        }
    }
    return out;
}

void SweepPanel::compare() {
    auto data = checkedData();
    if (data.empty()) {
        m_status->setText(tr("No loaded run is checked."));
        return;
    }
    core::SweepCompareOptions o;
    std::string error;
    core::parseSweepGroupBy(m_groupBy->currentText().toStdString(), o.groupBy, o.groupRegex, error);
    o.skipSteps = m_skipSteps->value();
    o.top = 20;  // shown; every comparison is Holm-corrected whatever is kept (core::compareSweep)
    // The baseline configuration: the first checked run of it, by path (labels such as rep0 repeat).
    const std::string key = m_baseline->currentData().toString().toStdString();
    for (const auto& d : data)
        if (d.key() == key) {
            o.baseline = d.path().empty() ? d.label : d.path();
            break;
        }
    const int n = static_cast<int>(data.size());
    m_status->setText(tr("Comparing %n run(s)…", nullptr, n));
    // A comparison still running is superseded: only the newest one's result is shown.
    m_compare.start<core::SweepComparison>(
        tr("Compare %n sweep run(s)", nullptr, n),
        [data = std::move(data), o](const core::JobContext&) { return core::compareSweep(data, o); },
        [this, sweep = m_sweep](core::SweepComparison result) {
            m_result = std::move(result);
            m_resultSweep = sweep;
            showComparison();
            Q_EMIT compared();
        },
        [this](const QString& why) { m_status->setText(tr("Comparison: %1").arg(why)); });
}

void SweepPanel::showComparison() {
    const auto& c = m_result;
    QStringList notes;
    notes << tr("Comparison of %1 (%n configuration row(s) of step time)", nullptr, static_cast<int>(c.stepRows.size()))
                 .arg(m_resultSweep.isEmpty() ? tr("the checked runs") : m_resultSweep);
    if (c.method) notes << qsSweepPanel(*c.method);
    for (const auto& m : c.messages) notes << qsSweepPanel(m);
    m_status->setText(notes.join(QStringLiteral("\n")));
    // Step time first, then the GPU rows, then the groups; the change (Δ ms/step, its interval, Δ %) right after
    // the names so that it shows at the dock's default width; significance last.
    const QStringList headers{tr("group"),    tr("configuration"), tr("Δ ms/step"), tr("CI ms/step"), tr("Δ %"),
                              tr("median ms/step"), tr("runs"),    tr("steps"),     tr("count"),      tr("significant")};
    std::vector<std::pair<QString, const core::SweepCompareRow*>> rows;
    for (const auto& r : c.stepRows) rows.emplace_back(tr("step time"), &r);
    for (const auto& r : c.gpuRows) rows.emplace_back(tr("GPU %1").arg(qsSweepPanel(r.group)), &r);
    for (const auto& r : c.rows) rows.emplace_back(qsSweepPanel(r.group), &r);
    m_results->setSortingEnabled(false);
    m_results->clear();
    m_results->setColumnCount(static_cast<int>(headers.size()));
    m_results->setHorizontalHeaderLabels(headers);
    m_results->setRowCount(static_cast<int>(rows.size()));
    const QColor flagged(255, 224, 192);
    auto number = [](double v, int decimals) {
        auto* item = new QTableWidgetItem;
        item->setData(Qt::DisplayRole, std::round(v * std::pow(10.0, decimals)) / std::pow(10.0, decimals));
        return item;
    };
    for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
        const auto& r = *rows[static_cast<size_t>(i)].second;
        const bool na = r.reason.starts_with("n/a");
        std::vector<QTableWidgetItem*> items{
            new QTableWidgetItem(rows[static_cast<size_t>(i)].first),
            new QTableWidgetItem(paramsText(r.parameters)),
            r.deltaNs ? number(*r.deltaNs / 1e6, 3)
                      : new QTableWidgetItem(r.reason == "baseline" ? tr("baseline") : QString()),
            new QTableWidgetItem(r.ciLowNs ? QString::asprintf("[%+.3f, %+.3f]", *r.ciLowNs / 1e6, *r.ciHighNs / 1e6)
                                 : na      ? tr("n/a")
                                           : QString()),
            r.deltaPct ? number(*r.deltaPct, 2) : new QTableWidgetItem(QString()),
            number(r.medianNs / 1e6, 3),
            number(static_cast<double>(r.runs), 0),
            number(static_cast<double>(r.steps), 0),
            number(static_cast<double>(r.count), 0),
            new QTableWidgetItem(r.significant ? tr("yes") : (r.ciLowNs ? tr("no") : QString()))};
        for (int col = 0; col < static_cast<int>(items.size()); ++col) {
            auto* item = items[static_cast<size_t>(col)];
            if (col == 0) item->setToolTip(item->text());
            if (!r.reason.empty() && r.reason != "baseline") item->setToolTip(qsSweepPanel(r.reason));
            if (r.significant) item->setBackground(flagged);
            m_results->setItem(i, col, item);
        }
    }
    m_results->resizeColumnsToContents();
    m_results->setColumnWidth(0, std::min(m_results->columnWidth(0), 220));
    m_results->setColumnWidth(1, std::min(m_results->columnWidth(1), 160));
    m_results->resizeRowsToContents();
    m_results->setSortingEnabled(true);  // sortable headers; numbers sort as numbers
}

plots::ParamValues SweepPanel::plotValues() const {
    plots::ParamValues v;
    v["group_by"] = m_groupBy->currentText().toStdString();
    v["skip_steps"] = static_cast<long long>(m_skipSteps->value());
    const std::string key = m_baseline->currentData().toString().toStdString();
    for (const auto& r : m_runs)
        if (r.checked && r.info.key() == key) {
            v["baseline"] = plots::configurationLabel(r.info);
            break;
        }
    return v;
}

plots::SweepReportOptions SweepPanel::reportOptions(const QString& path) const {
    plots::SweepReportOptions o;
    const std::string key = m_baseline->currentData().toString().toStdString();
    for (const auto& r : m_runs)
        if (r.checked && r.info.key() == key) {
            o.baseline = r.info.path().empty() ? r.info.label : r.info.path();
            break;
        }
    o.skipSteps = m_skipSteps->value();
    std::string error;
    core::parseSweepGroupBy(m_groupBy->currentText().toStdString(), o.groupBy, o.groupRegex, error);
    o.csvPrefix = QFileInfo(path).completeBaseName().toStdString();
    return o;
}

// Builds the page and writes it with its CSV tables beside it (any thread).
bool SweepPanel::writeReportFiles(const core::RunSet& data, const plots::SweepReportOptions& o,
                                  const QString& path) {
    const auto report = plots::buildSweepReport(data, o);
    auto write = [](const QString& file, const std::string& text) {
        QSaveFile f(file);
        return f.open(QIODevice::WriteOnly) && f.write(text.data(), static_cast<qint64>(text.size())) >= 0 && f.commit();
    };
    if (!write(path, report.html)) return false;
    for (const auto& [name, text] : report.csv)
        if (!write(QFileInfo(path).dir().filePath(qsSweepPanel(name)), text)) return false;
    return true;
}

bool SweepPanel::writeReport(const QString& path) { return startReport(path, false); }

bool SweepPanel::startReport(const QString& path, bool openWhenWritten) {
    auto data = checkedData();
    if (data.empty()) {
        m_status->setText(tr("No loaded run is checked."));
        return false;
    }
    // The page is built and written on a worker of the runner (about a second for a large sweep).
    m_status->setText(tr("Writing the report…"));
    m_reportButton->setEnabled(false);
    m_report.start<bool>(
        tr("Write the sweep report %1").arg(QFileInfo(path).fileName()),
        [data = std::move(data), options = reportOptions(path), path](const core::JobContext&) {
            return writeReportFiles(data, options, path);
        },
        [this, path, openWhenWritten](bool ok) {
            m_reportButton->setEnabled(true);
            m_status->setText(ok ? tr("Wrote %1 and its CSV tables beside it.").arg(path)
                                 : tr("Cannot write %1 or a CSV table beside it.").arg(path));
            if (ok && openWhenWritten) QDesktopServices::openUrl(QUrl::fromLocalFile(path));
            Q_EMIT reportWritten(path, ok);
        },
        [this, path](const QString& why) {
            m_reportButton->setEnabled(true);
            m_status->setText(tr("The report %1 was not written: %2").arg(path, why));
            Q_EMIT reportWritten(path, false);
        });
    return true;
}

}  // namespace strobe::app
