#include "app/gui/runs_panel.h"

#include <algorithm>
#include <optional>

#include <QFileInfo>
#include <QHeaderView>
#include <QLocale>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QSplitter>
#include <QStyle>
#include <QTextBrowser>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "app/gui/clock_offset_dialog.h"
#include "app/gui/format.h"
#include "app/gui/run_manager.h"
#include "core/engine/converted_run.h"
#include "plots/plot_registry.h"

namespace strobe::app {

namespace {

constexpr int kRunRole = Qt::UserRole;
constexpr int kRankRole = Qt::UserRole + 1;  // index into dataset ranks, -1 for the run row, -2 other rows,
                                              // kSummaryOnly - k: rank k of a summary-first run's summaries
constexpr int kSummaryOnly = -100;

QString qsRunsPanel(const std::string& s) { return QString::fromStdString(s); }
QString qsRunsPanel(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

QString platformText(core::Platform p) {
    switch (p) {
        case core::Platform::Amd: return RunsPanel::tr("AMD");
        case core::Platform::Nvidia: return RunsPanel::tr("NVIDIA");
        default: return RunsPanel::tr("unknown platform");
    }
}

QString rankTitle(const core::RankSummary& s) {
    if (s.rank < 0) return RunsPanel::tr("Rank ?");
    if (s.worldSize > 0) return RunsPanel::tr("Rank %1 / %2").arg(s.rank).arg(s.worldSize);
    return RunsPanel::tr("Rank %1").arg(s.rank);
}

// The process a rank is, when its source names exactly one (an nsys export makes one rank per process): "name
// (pid N)". Kineto traces name several processes (the host process and each GPU's), and say the rank themselves.
QString processText(const RunRecord& run, size_t rankIndex) {
    if (!run.dataset || rankIndex >= run.dataset->ranks.size() || !run.dataset->ranks[rankIndex]) return {};
    const core::RankData& r = *run.dataset->ranks[rankIndex];
    const core::ProcessMeta* named = nullptr;
    for (const auto& p : r.processes) {
        if (r.strings.view(p.name).empty()) continue;
        if (named) return {};
        named = &p;
    }
    if (!named) return {};
    return RunsPanel::tr("%1 (pid %2)").arg(qsRunsPanel(r.strings.view(named->name))).arg(named->pid);
}

QString stepsText(const std::vector<int64_t>& steps) {
    if (steps.empty()) return RunsPanel::tr("none");
    if (steps.size() == 1) return QString::number(steps.front());
    return RunsPanel::tr("%1 (%2 – %3)").arg(steps.size()).arg(steps.front()).arg(steps.back());
}

QString diagnosticText(const core::Diagnostic& d) {
    const core::Location& w = d.where;
    const bool nowhere = w.file.empty() && w.table.empty() && w.row < 0 && w.line < 0 && w.byteOffset < 0 && w.eventIndex < 0;
    QString where = nowhere ? QString() : qsRunsPanel(w.toString());  // a run-level warning is about no one file
    return where.isEmpty() ? qsRunsPanel(d.message) : QStringLiteral("%1: %2").arg(where, qsRunsPanel(d.message));
}

// "3, 17, 100-103" → the rank numbers in that order (each once); nullopt when the text is not such a list.
std::optional<std::vector<int>> parseRankList(const QString& text) {
    std::vector<int> out;
    for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QStringList ends = part.trimmed().split(QLatin1Char('-'));
        bool okA = false, okB = true;
        const int a = ends.value(0).trimmed().toInt(&okA);
        const int b = ends.size() == 2 ? ends[1].trimmed().toInt(&okB) : a;
        if (!okA || !okB || ends.size() > 2 || a < 0 || b < a || b - a > 100000) return std::nullopt;
        for (int r = a; r <= b; ++r)
            if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
    }
    if (out.empty()) return std::nullopt;
    return out;
}

QTreeWidgetItem* child(QTreeWidgetItem* parent, const QString& a, const QString& b, int rankIndex = -2) {
    auto* item = new QTreeWidgetItem(parent, {a, b});
    item->setData(0, kRunRole, parent->data(0, kRunRole));
    item->setData(0, kRankRole, rankIndex);
    item->setToolTip(1, b);
    return item;
}

// The run tree's tooltip of a run: what was opened, then what the run is (its sweep point and, from its manifest,
// tools, host, clocks: core::runFacts).
QString runToolTip(const RunRecord& run) {
    QStringList lines = run.sources();
    for (const auto& [name, text] : core::runFacts(run.entry))
        lines << QStringLiteral("%1: %2").arg(qsRunsPanel(name), qsRunsPanel(text));
    return lines.join(QLatin1Char('\n'));
}

}  // namespace

RunsPanel::RunsPanel(RunManager& runs, QWidget* parent) : QWidget(parent), m_runs(runs) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_compare = new QToolButton(this);
    m_compare->setObjectName(QStringLiteral("compareRunsButton"));
    m_compare->setText(tr("Compare selected runs"));
    m_compare->setToolTip(tr("Open the current plot over the runs selected in the tree (Ctrl/Shift+click selects "
                             "several); the arrow picks another plot"));
    m_compare->setPopupMode(QToolButton::MenuButtonPopup);
    m_compare->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_compare->setMenu(comparePlotsMenu(m_compare));
    m_compare->setEnabled(false);
    connect(m_compare, &QToolButton::clicked, this, [this] {
        if (const auto ids = selectedRuns(); ids.size() >= 2) Q_EMIT compareRequested(ids, {});
    });
    layout->addWidget(m_compare, 0, Qt::AlignLeft);
    auto* split = new QSplitter(Qt::Vertical, this);
    m_tree = new QTreeWidget(split);
    m_tree->setObjectName(QStringLiteral("runTree"));
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({tr("Run / rank"), tr("Summary")});
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tree->header()->setStretchLastSection(true);
    m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
    m_tree->setUniformRowHeights(true);
    m_tree->setSelectionMode(QAbstractItemView::ExtendedSelection);  // Ctrl/Shift+click: runs to compare
    m_details = new QTextBrowser(split);
    m_details->setObjectName(QStringLiteral("runDetails"));
    m_details->setOpenLinks(false);
    m_details->setPlaceholderText(tr("Select a run or a rank to see its summary."));
    split->addWidget(m_tree);
    split->addWidget(m_details);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split);

    connect(&runs, &RunManager::runAdded, this, &RunsPanel::addRun);
    connect(&runs, &RunManager::runChanged, this, &RunsPanel::refreshRun);
    connect(&runs, &RunManager::runRemoved, this, &RunsPanel::removeRun);
    connect(m_tree, &QTreeWidget::currentItemChanged, this, [this] {
        showDetails();
        Q_EMIT currentRunChanged(currentRun());
    });
    connect(m_tree, &QTreeWidget::customContextMenuRequested, this, &RunsPanel::contextMenu);
    connect(m_tree, &QTreeWidget::itemSelectionChanged, this, &RunsPanel::updateCompare);
    for (int id : runs.runIds()) addRun(id);
}

int RunsPanel::currentRun() const {
    if (auto* item = m_tree->currentItem()) {
        const int id = item->data(0, kRunRole).toInt();
        if (m_runs.run(id)) return id;
    }
    auto ids = m_runs.runIds();
    return ids.empty() ? 0 : ids.back();
}

std::vector<int> RunsPanel::selectedRuns() const {
    std::vector<int> out;
    for (int id : m_runs.runIds()) {
        auto it = m_items.find(id);
        if (it == m_items.end()) continue;
        bool selected = it->second->isSelected();
        for (int i = 0; i < it->second->childCount() && !selected; ++i) selected = it->second->child(i)->isSelected();
        if (selected) out.push_back(id);
    }
    return out;
}

void RunsPanel::setSelectedRuns(const std::vector<int>& ids) {
    m_tree->clearSelection();
    for (int id : ids)
        if (auto it = m_items.find(id); it != m_items.end()) it->second->setSelected(true);
}

void RunsPanel::updateCompare() {
    const size_t n = selectedRuns().size();
    m_compare->setEnabled(n >= 2);
    m_compare->setText(n >= 2 ? tr("Compare %n selected runs", nullptr, static_cast<int>(n)) : tr("Compare selected runs"));
}

QMenu* RunsPanel::comparePlotsMenu(QWidget* parent) {
    auto* menu = new QMenu(tr("Compare selected runs in"), parent);
    for (const plots::Plot* plot : plots::PlotRegistry::instance().plots()) {
        const std::string id = plot->id();
        menu->addAction(QString::fromStdString(plot->title()), this, [this, id] {
            if (const auto ids = selectedRuns(); ids.size() >= 2) Q_EMIT compareRequested(ids, id);
        });
    }
    return menu;
}

void RunsPanel::selectRun(int id) {
    auto it = m_items.find(id);
    if (it != m_items.end()) m_tree->setCurrentItem(it->second);
}

void RunsPanel::addRun(int id) {
    auto* item = new QTreeWidgetItem(m_tree);
    item->setData(0, kRunRole, id);
    item->setData(0, kRankRole, -1);
    QFont f = item->font(0);
    f.setBold(true);
    item->setFont(0, f);
    m_items[id] = item;
    refreshRun(id);
    item->setExpanded(true);
    if (!m_tree->currentItem()) m_tree->setCurrentItem(item);
}

void RunsPanel::removeRun(int id) {
    auto it = m_items.find(id);
    if (it == m_items.end()) return;
    delete it->second;
    m_items.erase(it);
    updateCompare();
    showDetails();
    Q_EMIT currentRunChanged(currentRun());
}

void RunsPanel::refreshRun(int id) {
    auto it = m_items.find(id);
    const RunRecord* run = m_runs.run(id);
    if (it == m_items.end() || !run) return;
    QTreeWidgetItem* item = it->second;

    // Remember which rank rows were expanded and what was selected, then rebuild the children.
    std::vector<int> expanded;
    for (int i = 0; i < item->childCount(); ++i)
        if (item->child(i)->isExpanded()) expanded.push_back(item->child(i)->data(0, kRankRole).toInt());
    int selectedRank = -3;
    if (auto* cur = m_tree->currentItem(); cur && cur != item && cur->data(0, kRunRole).toInt() == id)
        selectedRank = cur->data(0, kRankRole).toInt();
    const bool blocked = m_tree->blockSignals(true);
    qDeleteAll(item->takeChildren());

    item->setText(0, run->label());
    item->setToolTip(0, runToolTip(*run));
    const QStyle* st = style();
    QString state;
    switch (run->state) {
        case RunState::Loading:
            state = tr("%1… %2%").arg(run->stage).arg(static_cast<int>(run->fraction * 100));
            item->setIcon(0, st->standardIcon(QStyle::SP_BrowserReload));
            break;
        case RunState::Loaded:
            if (const core::RunSummaries* sf = run->dataset ? run->dataset->summaryFirst.get() : nullptr)
                state = tr("%n rank(s) (%1 loaded), opened from summaries in %2 s", nullptr,
                           static_cast<int>(sf->ranks.size()))
                            .arg(sf->loaded.size())
                            .arg(run->loadSeconds, 0, 'f', 2);
            else
                state = tr("%n rank(s), loaded in %1 s", nullptr,
                           run->dataset ? static_cast<int>(run->dataset->ranks.size()) : 0)
                            .arg(run->loadSeconds, 0, 'f', 2);
            item->setIcon(0, st->standardIcon(run->warnings.empty() ? QStyle::SP_DialogApplyButton
                                                                     : QStyle::SP_MessageBoxWarning));
            break;
        case RunState::Failed:
            state = tr("failed to load");
            item->setIcon(0, st->standardIcon(QStyle::SP_MessageBoxCritical));
            break;
        case RunState::Cancelled:
            state = tr("cancelled (F5 reloads)");
            item->setIcon(0, st->standardIcon(QStyle::SP_DialogCancelButton));
            break;
    }
    if (run->reloading) state = tr("reloading… %1%").arg(static_cast<int>(run->fraction * 100));
    item->setText(1, state);

    // Inline error with the file it concerns.
    if (run->error) {
        auto* err = child(item, tr("Error"), qsRunsPanel(run->error->toString()));
        err->setIcon(0, st->standardIcon(QStyle::SP_MessageBoxCritical));
        err->setForeground(1, QColor(200, 30, 30));
        err->setToolTip(1, qsRunsPanel(run->error->toString()));
    }
    // Run-level warnings: duplicate or missing ranks, truncated files...
    const size_t maxWarnings = 20;
    for (size_t i = 0; i < run->warnings.size() && i < maxWarnings; ++i) {
        auto* w = child(item, tr("Warning"), diagnosticText(run->warnings[i]));
        w->setIcon(0, st->standardIcon(QStyle::SP_MessageBoxWarning));
        w->setForeground(1, QColor(190, 120, 0));
    }
    if (run->warnings.size() > maxWarnings)
        child(item, tr("Warning"), tr("… and %1 more").arg(run->warnings.size() - maxWarnings));

    if (run->state == RunState::Loading && !run->dataset) {
        // Metadata first: each file's rank, GPU, platform and event estimate as soon as the loader has them.
        for (int i = 0; i < run->files.size(); ++i) {
            auto m = run->metadata.find(static_cast<size_t>(i));
            const QString name = QFileInfo(run->files[i]).fileName();
            if (m == run->metadata.end()) {
                child(item, name, tr("waiting…"));
                continue;
            }
            const core::TraceInfo& info = m->second;
            QString rank = info.distributed.rank >= 0
                               ? tr("rank %1/%2").arg(info.distributed.rank).arg(info.distributed.worldSize)
                               : tr("rank ?");
            QString gpu = info.gpuName().empty() ? tr("no GPU listed") : qsRunsPanel(info.gpuName());
            auto* r = child(item, name,
                            tr("%1 · %2 · %3 · ~%4 events")
                                .arg(rank, platformText(info.platform), gpu, formatCount(info.eventEstimate)));
            r->setToolTip(0, run->files[i]);
        }
    }

    const core::RunSummaries* sf = run->dataset ? run->dataset->summaryFirst.get() : nullptr;
    if (sf) {
        // What is loaded and what is summary only.
        QString why = sf->limit > 0 ? tr("the events of every rank would take ~%1, over the memory budget of %2")
                                          .arg(formatBytes(sf->runEstimate), formatBytes(sf->limit))
                                    : tr("ranks picked");
        auto* info = child(item, tr("Summary-first"), QString::fromStdString(sf->loadedText()));
        info->setToolTip(1, tr("Opened from the summaries of strobe-cli convert (%1). Views across ranks (the rank × "
                               "step heatmap) use every rank's summary; the timeline and the analyses that need "
                               "events cover the loaded ranks. Double-click a heatmap cell, or use this run's menu, to "
                               "load ranks.")
                                .arg(why));
        info->setIcon(0, st->standardIcon(QStyle::SP_FileDialogInfoView));
    }
    if (run->dataset) {
        for (size_t i = 0; i < run->summaries.size(); ++i) {
            const core::RankSummary& s = run->summaries[i];
            // The GPU name says the platform already; the platform is in the rank's own rows.
            const QString process = processText(*run, i);
            auto* r = child(item, process.isEmpty() ? rankTitle(s) : tr("%1 · %2").arg(rankTitle(s), process),
                            tr("%1 kernels · %2 · %3")
                                .arg(formatCount(s.kernelCount), durationText(s.kernelTimeNs),
                                     s.gpuName.empty() ? platformText(s.platform) : qsRunsPanel(s.gpuName)),
                            static_cast<int>(i));
            r->setToolTip(0, qsRunsPanel(s.path));
            for (const auto& w : s.warnings) {
                auto* wi = child(r, tr("Warning"), qsRunsPanel(w), static_cast<int>(i));
                wi->setIcon(0, st->standardIcon(QStyle::SP_MessageBoxWarning));
            }
            child(r, tr("Platform"), platformText(s.platform), static_cast<int>(i));
            child(r, tr("GPU"), s.gpuName.empty() ? tr("none listed") : qsRunsPanel(s.gpuName), static_cast<int>(i));
            child(r, tr("Rank / world"),
                  QStringLiteral("%1 / %2").arg(s.rank).arg(s.worldSize > 0 ? QString::number(s.worldSize) : tr("?")),
                  static_cast<int>(i));
            child(r, tr("Events"), formatCount(s.events), static_cast<int>(i));
            child(r, tr("Kernels"), tr("%1 (%2)").arg(formatCount(s.kernelCount), durationText(s.kernelTimeNs)),
                  static_cast<int>(i));
            child(r, tr("Memcpy / memset"),
                  tr("%1 (%2) / %3 (%4)")
                      .arg(formatCount(s.memcpyCount), durationText(s.memcpyTimeNs), formatCount(s.memsetCount),
                           durationText(s.memsetTimeNs)),
                  static_cast<int>(i));
            child(r, tr("Span"), durationText(s.spanEnd - s.spanStart), static_cast<int>(i));
            child(r, tr("Steps"), stepsText(s.steps), static_cast<int>(i));
            if (!s.topKernels.empty())
                child(r, tr("Top kernel"),
                      tr("%1 (%2)").arg(qsRunsPanel(s.topKernels.front().name),
                                        durationText(s.topKernels.front().totalNs)),
                      static_cast<int>(i));
            if (std::find(expanded.begin(), expanded.end(), static_cast<int>(i)) != expanded.end())
                r->setExpanded(true);
        }
        // A summary-first run's other ranks: summary only (details from the summary; the menu loads them).
        if (sf)
            for (size_t k = 0; k < sf->ranks.size(); ++k) {
                const core::RankSummary& s = sf->ranks[k].rank;
                if (sf->isLoaded(s.rank)) continue;
                auto* r = child(item, tr("%1 · summary only").arg(rankTitle(s)),
                                tr("%1 kernels · %2 · %3")
                                    .arg(formatCount(s.kernelCount), durationText(s.kernelTimeNs),
                                         s.gpuName.empty() ? platformText(s.platform) : qsRunsPanel(s.gpuName)),
                                kSummaryOnly - static_cast<int>(k));
                r->setToolTip(0, qsRunsPanel(s.path));
                r->setForeground(0, palette().color(QPalette::Disabled, QPalette::Text));
            }
        // Host telemetry (samplers): the host's, never a rank (core::Dataset::hosts).
        for (const core::HostTelemetry& h : run->dataset->hosts) {
            qint64 samples = 0;
            for (const auto& s : h.sources) samples += static_cast<qint64>(s->samples.size());
            auto* hi = child(item, h.host.empty() ? tr("Host telemetry") : tr("Host %1").arg(qsRunsPanel(h.host)),
                             tr("%n source(s) · %1 samples", nullptr, static_cast<int>(h.sources.size()))
                                 .arg(formatCount(static_cast<uint64_t>(samples))));
            for (const auto& s : h.sources) {
                const std::string& path = s->path.empty() ? s->info.path : s->path;
                auto* si = child(hi, QFileInfo(QString::fromStdString(path)).fileName(),
                                 tr("%1 · %2 samples").arg(qsRunsPanel(s->info.format), formatCount(s->samples.size())));
                si->setToolTip(0, qsRunsPanel(path));
            }
        }
    }
    // Restore the selection inside this run.
    if (selectedRank != -3) {
        for (int i = 0; i < item->childCount(); ++i)
            if (item->child(i)->data(0, kRankRole).toInt() == selectedRank) {
                m_tree->setCurrentItem(item->child(i));
                break;
            }
    }
    m_tree->blockSignals(blocked);
    if (currentRun() == id) showDetails();
}

void RunsPanel::showDetails() {
    auto* item = m_tree->currentItem();
    const int id = item ? item->data(0, kRunRole).toInt() : 0;
    const RunRecord* run = m_runs.run(id);
    if (!run) {
        m_details->clear();
        return;
    }
    const int rankIndex = item->data(0, kRankRole).toInt();
    const core::RunSummaries* sf = run->dataset ? run->dataset->summaryFirst.get() : nullptr;
    const core::RankSummary* summaryOnly = nullptr;
    if (rankIndex <= kSummaryOnly && sf && static_cast<size_t>(kSummaryOnly - rankIndex) < sf->ranks.size())
        summaryOnly = &sf->ranks[static_cast<size_t>(kSummaryOnly - rankIndex)].rank;
    QString html;
    auto row = [](const QString& k, const QString& v) {
        return QStringLiteral("<tr><td style='padding-right:10px'><b>%1</b></td><td>%2</td></tr>").arg(k, v);
    };
    if (summaryOnly || (rankIndex >= 0 && static_cast<size_t>(rankIndex) < run->summaries.size())) {
        const core::RankSummary& s = summaryOnly ? *summaryOnly : run->summaries[static_cast<size_t>(rankIndex)];
        html += QStringLiteral("<h3>%1 — %2</h3><table>").arg(rankTitle(s), run->label().toHtmlEscaped());
        if (summaryOnly)
            html += row(tr("Events"), tr("summary only (strobe-cli convert): the run's menu loads them"));
        html += row(tr("File"), qsRunsPanel(s.path).toHtmlEscaped());
        if (const QString process = processText(*run, static_cast<size_t>(rankIndex)); !process.isEmpty())
            html += row(tr("Process"), process.toHtmlEscaped());
        html += row(tr("Platform"), platformText(s.platform));
        html += row(tr("GPU"), qsRunsPanel(s.gpuName).toHtmlEscaped());
        html += row(tr("Events"), formatCount(s.events));
        html += row(tr("Kernels"), tr("%1, %2").arg(formatCount(s.kernelCount), durationText(s.kernelTimeNs)));
        html += row(tr("Memcpy"), tr("%1, %2").arg(formatCount(s.memcpyCount), durationText(s.memcpyTimeNs)));
        html += row(tr("Memset"), tr("%1, %2").arg(formatCount(s.memsetCount), durationText(s.memsetTimeNs)));
        html += row(tr("Span"), durationText(s.spanEnd - s.spanStart));
        html += row(tr("Steps"), stepsText(s.steps));
        if (run->dataset && static_cast<size_t>(rankIndex) < run->dataset->ranks.size() &&
            run->dataset->ranks[static_cast<size_t>(rankIndex)]) {
            const core::ClockInfo& c = run->dataset->ranks[static_cast<size_t>(rankIndex)]->info.clock;
            html += row(tr("Clock"),
                        c.anchored ? tr("%1, anchored to realtime (%2)")
                                         .arg(QString::fromLatin1(core::clockDomainName(c.domain)),
                                              qsRunsPanel(c.anchor).toHtmlEscaped())
                                   : tr("%1, not anchored to realtime (the run's menu ▸ Clock offset…)")
                                         .arg(QString::fromLatin1(core::clockDomainName(c.domain))));
        }
        html += QStringLiteral("</table>");
        if (!s.timeByCategory.empty()) {
            int64_t total = 0;
            for (const auto& [c, t] : s.timeByCategory) total += t;
            html += QStringLiteral("<h4>%1</h4><table>").arg(tr("GPU time by category"));
            for (const auto& [c, t] : s.timeByCategory)
                html +=
                    QStringLiteral(
                        "<tr><td style='padding-right:10px'>%1</td><td align=right>%2</td>"
                        "<td align=right style='padding-left:10px'>%3%</td></tr>")
                        .arg(qsRunsPanel(core::toString(c)), durationText(t))
                        .arg(total > 0 ? 100.0 * static_cast<double>(t) / static_cast<double>(total) : 0.0, 0, 'f', 1);
            html += QStringLiteral("</table>");
        }
        if (!s.topKernels.empty()) {
            html += QStringLiteral("<h4>%1</h4><table><tr><th align=left>%2</th><th>%3</th><th>%4</th><th>%5</th></tr>")
                        .arg(tr("Top kernels"), tr("Kernel"), tr("Category"), tr("Count"), tr("Total"));
            for (const auto& k : s.topKernels) {
                QString name = qsRunsPanel(k.name);
                if (name.size() > 90) name = name.left(87) + QStringLiteral("…");
                html += QStringLiteral("<tr><td>%1</td><td>%2</td><td align=right>%3</td><td align=right>%4</td></tr>")
                            .arg(name.toHtmlEscaped(), qsRunsPanel(core::toString(k.category)), formatCount(k.count),
                                 durationText(k.totalNs));
            }
            html += QStringLiteral("</table>");
        }
        if (!s.eventsByCategory.empty()) {
            html += QStringLiteral("<h4>%1</h4><table>").arg(tr("Events by category"));
            for (const auto& [cat, n] : s.eventsByCategory)
                html += row(cat.empty() ? tr("(none)") : qsRunsPanel(cat).toHtmlEscaped(), formatCount(n));
            html += QStringLiteral("</table>");
        }
    } else {
        html += QStringLiteral("<h3>%1</h3><table>").arg(run->label().toHtmlEscaped());
        html += row(tr("State"), runStateText(run->state));
        QStringList sources;
        for (const auto& src : run->sources()) sources << src.toHtmlEscaped();
        html += row(tr("Opened"), sources.join(QStringLiteral("<br>")));
        if (run->dataset) html += row(tr("Memory"), formatBytes(run->dataset->bytes()));
        for (const auto& [k, v] : run->entry.parameters)
            html += row(qsRunsPanel(k).toHtmlEscaped(), qsRunsPanel(core::runValueText(v)).toHtmlEscaped());
        for (const auto& [name, text] : core::runFacts(run->entry))
            if (name != "parameters")
                html += row(qsRunsPanel(name).toHtmlEscaped(), qsRunsPanel(text).toHtmlEscaped());
        if (run->clockOffsetNs)
            html += row(tr("Clock offset"), tr("%1 ns, added to the times of sources not on the realtime clock")
                                                .arg(QLocale::c().toString(static_cast<qlonglong>(*run->clockOffsetNs))));
        html += QStringLiteral("</table>");
        if (run->error)
            html += QStringLiteral("<p style='color:#c02020'><b>%1</b> %2</p>")
                        .arg(tr("Error:"), qsRunsPanel(run->error->toString()).toHtmlEscaped());
        if (!run->warnings.empty()) {
            html += QStringLiteral("<h4>%1</h4><ul>").arg(tr("Warnings"));
            for (const auto& w : run->warnings)
                html += QStringLiteral("<li>%1</li>").arg(diagnosticText(w).toHtmlEscaped());
            html += QStringLiteral("</ul>");
        }
        if (!run->summaries.empty()) {
            html += QStringLiteral("<h4>%1</h4><table><tr><th>%2</th><th>%3</th><th>%4</th><th>%5</th><th>%6</th></tr>")
                        .arg(tr("Ranks"), tr("Rank"), tr("GPU"), tr("Events"), tr("Kernel time"), tr("Span"));
            for (const auto& s : run->summaries)
                html += QStringLiteral(
                            "<tr><td>%1</td><td>%2</td><td align=right>%3</td><td align=right>%4</td>"
                            "<td align=right>%5</td></tr>")
                            .arg(s.rank)
                            .arg(qsRunsPanel(s.gpuName).toHtmlEscaped(), formatCount(s.events),
                                 durationText(s.kernelTimeNs), durationText(s.spanEnd - s.spanStart));
            html += QStringLiteral("</table>");
        }
    }
    m_details->setHtml(html);
}

void RunsPanel::editClockOffset(int id) {
    const RunRecord* run = m_runs.run(id);
    if (!run) return;
    ClockOffsetDialog dialog(*run, this);
    if (dialog.exec() != QDialog::Accepted) return;
    if (run->clockOffsetNs == dialog.offset()) return;
    m_runs.setClockOffset(id, dialog.offset());
    Q_EMIT clockOffsetChanged(id);
}

void RunsPanel::pickRanks(int id) {
    const RunRecord* run = m_runs.run(id);
    if (!run || !run->dataset || !run->dataset->summaryFirst) return;
    const core::RunSummaries& sf = *run->dataset->summaryFirst;
    bool ok = false;
    const QString text = QInputDialog::getText(
        this, tr("Load events of ranks"),
        tr("%1\nRanks to load (e.g. 3, 17, 100-103), most wanted first; those loaded stay while the memory budget "
           "allows:")
            .arg(QString::fromStdString(sf.loadedText())),
        QLineEdit::Normal, QString(), &ok);
    if (!ok) return;
    const auto ranks = parseRankList(text);
    if (!ranks) {
        QMessageBox::warning(this, tr("Load events of ranks"),
                             tr("“%1” is not a list of ranks (e.g. 3, 17, 100-103).").arg(text));
        return;
    }
    Q_EMIT ranksRequested(id, *ranks, false);
}

void RunsPanel::contextMenu(const QPoint& pos) {
    auto* item = m_tree->itemAt(pos);
    if (!item) return;
    const int id = item->data(0, kRunRole).toInt();
    const RunRecord* run = m_runs.run(id);
    if (!run) return;
    QMenu menu(this);
    menu.addAction(tr("Open plots for this run"), this, [this, id] { Q_EMIT openPlotsRequested(id); })
        ->setEnabled(run->dataset != nullptr);
    if (const auto ids = selectedRuns(); ids.size() >= 2 && std::find(ids.begin(), ids.end(), id) != ids.end()) {
        menu.addAction(tr("Compare selected runs (%n)", nullptr, static_cast<int>(ids.size())), this,
                       [this, ids] { Q_EMIT compareRequested(ids, {}); });
        menu.addMenu(comparePlotsMenu(&menu));
    }
    if (const core::RunSummaries* sf = run->dataset ? run->dataset->summaryFirst.get() : nullptr) {
        // A summary-first run: load ranks' events (picked here, or the summary-only rank clicked), or drop them all.
        const int rankIndex = item->data(0, kRankRole).toInt();
        if (rankIndex <= kSummaryOnly && static_cast<size_t>(kSummaryOnly - rankIndex) < sf->ranks.size()) {
            const int rank = sf->ranks[static_cast<size_t>(kSummaryOnly - rankIndex)].rank.rank;
            menu.addAction(tr("Load rank %1's events").arg(rank), this,
                           [this, id, rank] { Q_EMIT ranksRequested(id, {rank}, false); });
        }
        menu.addAction(tr("Load events of ranks…"), this, [this, id] { pickRanks(id); });
        menu.addAction(tr("Unload events (summaries only)"), this, [this, id] { m_runs.loadRanks(id, {}, true); })
            ->setEnabled(!sf->loaded.empty());
        menu.addSeparator();
    }
    menu.addAction(tr("Reload"), this, [this, id] { Q_EMIT reloadRequested(id); });
    menu.addAction(tr("Clock offset…"), this, [this, id] { editClockOffset(id); })->setEnabled(!run->entry.paths.empty());
    if (run->state == RunState::Loading) menu.addAction(tr("Cancel loading"), this, [this, id] { m_runs.cancel(id); });
    menu.addSeparator();
    menu.addAction(tr("Close run"), this, [this, id] { Q_EMIT closeRequested(id); });
    menu.exec(m_tree->viewport()->mapToGlobal(pos));
}

}  // namespace strobe::app
