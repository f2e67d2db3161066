#include "app/gui/plot_view.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <set>

#include <QApplication>
#include <QClipboard>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>

#include "app/gui/format.h"
#include "app/gui/param_values.h"
#include "app/gui/run_manager.h"
#include "app/gui/table_view.h"
#include "app/gui/timeline_search_bar.h"
#include "plots/builtin/timeline_find.h"
#include "plots/chart.h"
#include "plots/render.h"

namespace strobe::app {

namespace {

std::atomic<int> g_viewSerial{1};
constexpr double kWheelZoomIn = 0.8;  // per wheel notch
constexpr int kDefaultDebounceMs = 120;

}  // namespace

PlotView::PlotView(const plots::Plot& plot, plots::PlotEngine& engine, RunManager& runs, std::vector<int> runIds,
                   const plots::ParamValues& values, QWidget* parent)
    : QWidget(parent),
      m_plot(plot),
      m_nav(plot.timeline()),
      m_engine(engine),
      m_runs(runs),
      m_runIds(std::move(runIds)) {
    const int serial = g_viewSerial++;
    m_slot = "plot-view-" + std::to_string(serial);
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumSize(200, 150);
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(kDefaultDebounceMs);
    connect(&m_debounce, &QTimer::timeout, this, &PlotView::requestPrepare);
    recomputeSpecs();
    m_values = sanitizeValues(m_specs, values);
    if (isTimeline()) {
        // Right-clicks come as mouse events (a right-drag box-zooms, a right-click opens the item's menu).
        setContextMenuPolicy(Qt::PreventContextMenu);
        m_laneBar = new QScrollBar(Qt::Vertical, this);
        m_laneBar->setObjectName(QStringLiteral("laneScrollBar"));
        m_laneBar->setToolTip(tr("Scroll the lanes (also Shift+wheel, ↑ ↓)"));
        m_laneBar->hide();
        connect(m_laneBar, &QScrollBar::valueChanged, this, [this](int v) {
            plots::ParamValues next = m_values;
            plots::kLaneScroll.set(next, v);
            applyView(next, false);
        });
    }
    if (m_plot.isTable()) {
        // A table plot is shown as a table widget over the canvas (the canvas still paints progress and errors
        // while there is no data).
        m_table = new PlotTableView(this);
        auto* layout = new QVBoxLayout(this);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->addWidget(m_table);
        m_table->hide();
        connect(m_table, &PlotTableView::rowSelected, this, &PlotView::itemSelected);
        connect(m_table, &PlotTableView::instancesRequested, this, &PlotView::instancesRequested);
        connect(m_table, &PlotTableView::instanceRequested, this, &PlotView::instanceRequested);
        connect(m_table, &PlotTableView::sortRequested, this, [this](const std::string& column) {
            const plots::ParamSpec* sortBy = plots::findSpec(m_specs, plots::kSortBy.key());
            if (!sortBy || std::find(sortBy->choices.begin(), sortBy->choices.end(), column) == sortBy->choices.end())
                return;
            plots::ParamValues next = m_values;
            // A second click on the sorted column turns the order round; a new column sorts largest first.
            if (plots::findSpec(m_specs, plots::kDescending.key()))
                plots::kDescending.set(next,
                                       plots::kSortBy(next) == column ? !plots::kDescending(next) : column != "name");
            plots::kSortBy.set(next, column);
            setValues(next);
        });
    }
    if (dataReady()) requestPrepare();
}

PlotView::~PlotView() { m_engine.cancel(m_slot); }

plots::RunSet PlotView::runSet() const {
    plots::RunSet set;
    for (int id : m_runIds) {
        auto e = m_runs.runEntry(id);
        if (e.dataset) set.push_back(std::move(e));
    }
    return set;
}

bool PlotView::dataReady() const {
    if (m_runIds.empty()) return false;
    for (int id : m_runIds) {
        const RunRecord* r = m_runs.run(id);
        if (!r || !r->dataset) return false;
    }
    return true;
}

std::vector<int> PlotView::ranks() const {
    std::set<int> ranks;
    for (int id : m_runIds)
        if (const RunRecord* r = m_runs.run(id); r && r->dataset)
            for (const auto& rank : r->dataset->ranks) ranks.insert(rank->rank);
    return {ranks.begin(), ranks.end()};
}

QString PlotView::title() const {
    QStringList labels;
    for (int id : m_runIds)
        if (const RunRecord* r = m_runs.run(id)) labels << r->label();
    const QString t = QString::fromStdString(m_plot.title());
    if (labels.isEmpty()) return t;
    if (labels.size() > 2) return tr("%1 — %n runs", nullptr, static_cast<int>(labels.size())).arg(t);
    return tr("%1 — %2").arg(t, labels.join(tr(" vs ")));
}

void PlotView::recomputeSpecs() { m_specs = m_plot.parameters(runSet()); }

void PlotView::setValue(const std::string& key, const plots::ParamValue& value) {
    const plots::ParamSpec* spec = plots::findSpec(m_specs, key);
    if (!spec) return;
    plots::ParamValues candidate = m_values;
    candidate[key] = value;
    candidate = sanitizeValues(m_specs, candidate);  // an invalid value keeps the old one
    if (candidate == m_values) return;
    m_values = std::move(candidate);
    syncTable();
    runSearch();
    syncLaneBar();
    if (spec->affectsPrepare) {
        m_updating = true;
        m_progressText.clear();
        m_debounce.start();  // five quick edits → one request
        Q_EMIT stateChanged();
    }
    update();
}

void PlotView::setValues(const plots::ParamValues& values) {
    plots::ParamValues next = sanitizeValues(m_specs, values);
    if (next == m_values) return;
    const bool prepareChanged = core::prepareKey(m_specs, next) != core::prepareKey(m_specs, m_values);
    m_values = std::move(next);
    syncTable();
    runSearch();
    syncLaneBar();
    if (prepareChanged) {
        m_updating = true;
        m_debounce.start();
        Q_EMIT stateChanged();
    }
    Q_EMIT valuesChanged();
    update();
}

void PlotView::resetAll() {
    plots::ParamValues defaults;
    for (const auto& s : m_specs) defaults[s.key] = s.defaultValue;
    setValues(defaults);
}

void PlotView::refreshData() {
    const auto before = m_specs;
    recomputeSpecs();
    m_values = sanitizeValues(m_specs, followDataDefaults(before, m_specs, m_values));
    m_preparedKey.clear();  // new data: whatever we hold is from the old generation
    if (dataReady()) {
        m_updating = true;
        m_debounce.stop();
        requestPrepare();
    }
    Q_EMIT valuesChanged();
    update();
}

bool PlotView::removeRun(int runId) {
    const auto it = std::find(m_runIds.begin(), m_runIds.end(), runId);
    if (it == m_runIds.end()) return !m_runIds.empty();
    if (m_runIds.size() == 1) return false;
    m_runIds.erase(it);
    m_selection.reset();  // the selected item may belong to the closed run
    m_prepared.reset();   // its lanes point into the closed run's data: never drawn again
    m_flowsPrepared = nullptr;
    m_flows.clear();
    m_flowsOf.reset();
    m_matches.clear();
    m_current = -1;
    syncTable();
    refreshData();
    Q_EMIT stateChanged();  // the title lost the run's label
    return true;
}

void PlotView::requestPrepare() {
    if (!dataReady()) return;
    const std::string key = core::prepareKey(m_specs, m_values);
    if (m_prepared && key == m_preparedKey) {
        if (m_pendingRequest != 0) m_engine.cancel(m_slot);  // the edits came back to what we already have
        m_pendingRequest = 0;
        m_updating = false;
        Q_EMIT stateChanged();
        update();
        return;
    }
    QPointer<PlotView> self(this);
    plots::PrepareCallbacks cb;
    cb.onReady = [self](plots::PreparedPtr p, uint64_t id) {
        QMetaObject::invokeMethod(qApp, [self, p, id] { if (self) self->onReady(p, id); }, Qt::QueuedConnection);
    };
    cb.onError = [self](const core::Error& e, uint64_t id) {
        QMetaObject::invokeMethod(qApp, [self, e, id] { if (self) self->onError(e, id); }, Qt::QueuedConnection);
    };
    cb.onProgress = [self](const core::ProgressInfo& p, uint64_t id) {
        QMetaObject::invokeMethod(qApp, [self, p, id] { if (self) self->onProgress(p, id); }, Qt::QueuedConnection);
    };
    cb.onCancelled = [self](uint64_t id) {  // e.g. the jobs panel's Cancel
        QMetaObject::invokeMethod(qApp, [self, id] { if (self) self->onCancelled(id); }, Qt::QueuedConnection);
    };
    cb.jobName = tr("Prepare %1").arg(title()).toStdString();
    m_requestedKey = key;
    auto res = m_engine.request(m_slot, m_plot, runSet(), m_values, std::move(cb));
    if (res.error) {
        m_pendingRequest = 0;
        m_updating = false;
        m_error = QString::fromStdString(res.error->toString());
    } else if (res.prepared) {
        m_pendingRequest = 0;
        m_prepared = res.prepared;
        m_preparedKey = key;
        m_updating = false;
        m_error.clear();
        syncTable();
    } else {
        // The job shows in the jobs panel by itself (the panel observes the runner); its Cancel comes back here
        // through onCancelled.
        m_pendingRequest = res.requestId;
        m_updating = true;
        m_progressText.clear();
    }
    Q_EMIT stateChanged();
    update();
}

void PlotView::onReady(plots::PreparedPtr prepared, uint64_t requestId) {
    if (requestId != m_pendingRequest) return;  // superseded
    m_pendingRequest = 0;
    m_prepared = std::move(prepared);
    m_preparedKey = m_requestedKey;
    m_selection.reset();  // new data: the item may not exist any more
    m_error.clear();
    m_updating = m_debounce.isActive();  // another edit is already waiting
    syncTable();
    runSearch();  // the lanes changed: their matches too
    syncLaneBar();
    Q_EMIT stateChanged();
    Q_EMIT valuesChanged();  // a timeline's geometry (and so its view) is known now
    update();
}

void PlotView::onError(const core::Error& error, uint64_t requestId) {
    if (requestId != m_pendingRequest) return;
    m_pendingRequest = 0;
    m_updating = false;
    m_error = QString::fromStdString(error.toString());
    Q_EMIT stateChanged();
    update();
}

void PlotView::onCancelled(uint64_t requestId) {
    if (requestId != m_pendingRequest) return;  // a request this view had already given up
    m_pendingRequest = 0;
    m_updating = false;
    m_error = tr("Preparation cancelled — change a parameter or press F5 to try again.");
    Q_EMIT stateChanged();
    update();
}

void PlotView::onProgress(const core::ProgressInfo& p, uint64_t requestId) {
    if (requestId != m_pendingRequest) return;
    m_progressText = QString::fromStdString(p.stage);
    if (p.fraction > 0) m_progressText += QStringLiteral(" %1%").arg(static_cast<int>(p.fraction * 100));
    update();
}

void PlotView::syncTable() {
    if (!m_table) return;
    m_table->setVisible(m_prepared != nullptr);
    if (!m_prepared) return;
    // A table plot without these parameters shows its rows as they come, largest first when sorted by the header.
    const std::string sortBy =
        plots::findSpec(m_specs, plots::kSortBy.key()) ? plots::kSortBy(m_values) : std::string();
    const bool descending = plots::findSpec(m_specs, plots::kDescending.key()) ? plots::kDescending(m_values) : true;
    m_table->showTable(m_plot.table(*m_prepared, m_values), sortBy, descending);
}

bool PlotView::isDark() const { return palette().color(QPalette::Window).lightness() < 128; }

QRectF PlotView::plotRect() const {
    QRectF r(rect());
    if (m_search && m_search->isVisible()) r.setTop(m_search->geometry().bottom() + 1);
    if (m_laneBar && m_laneBar->isVisible()) r.setRight(m_laneBar->geometry().left() - 1);
    return r;
}

std::optional<plots::TimelineGeometry> PlotView::geometry() const {
    if (!m_prepared || !isTimeline()) return std::nullopt;
    return m_nav->geometry(*m_prepared, m_values, plotRect());
}

std::optional<plots::ViewRange> PlotView::viewRange() const {
    auto g = geometry();
    if (!g) return std::nullopt;
    return plots::effectiveView(m_values, g->fullStart, g->fullEnd);
}

void PlotView::applyView(plots::ParamValues values, bool emitRange) {
    values = sanitizeValues(m_specs, values);
    if (values == m_values) return;
    m_values = std::move(values);
    syncLaneBar();
    update();
    Q_EMIT valuesChanged();
    if (emitRange)
        if (auto r = viewRange()) Q_EMIT viewRangeChanged(r->start, r->end);
}

void PlotView::setViewRange(int64_t start, int64_t end) {
    if (!isTimeline()) return;
    applyView(plots::setView(m_values, start, end), false);
}

void PlotView::zoomBy(double factor) {
    if (auto g = geometry()) applyView(plots::zoomAt(*g, m_values, g->plotArea.center().x(), factor), true);
}

void PlotView::resetZoom() {
    if (isTimeline()) applyView(plots::resetView(m_values), true);
}

std::optional<QRectF> PlotView::selectionRect() const {
    if (!m_selection || !m_prepared) return std::nullopt;
    const Selection& sel = *m_selection;
    if (sel.item && m_nav) return m_nav->itemRects(*m_prepared, m_values, plotRect(), {*sel.item}).front();
    QPointF point = sel.point;
    const QRectF now = plotRect();
    if (isTimeline()) {
        // Same time and lane as when clicked, in the current view.
        const auto thenGeometry = m_nav->geometry(*m_prepared, sel.values, sel.plotRect);
        const auto g = geometry();
        if (!g || !thenGeometry) return std::nullopt;
        const plots::TimelineGeometry& then = *thenGeometry;
        // The first lane shown: the scroll value as the timeline clamps it.
        auto firstLane = [](const plots::TimelineGeometry& geo, const plots::ParamValues& v) {
            return static_cast<double>(std::clamp<long long>(plots::kLaneScroll(v), 0,
                                                             std::max(0, geo.laneCount - geo.visibleLanes)));
        };
        // The drawn lane height (lanes grow to fill the view when there are few).
        auto laneHeight = [](const plots::TimelineGeometry& geo, const plots::ParamValues& v) {
            return geo.laneHeight > 0 ? geo.laneHeight : static_cast<double>(std::max(1LL, plots::kLaneHeight(v)));
        };
        const double lane =
            firstLane(then, sel.values) + (point.y() - then.plotArea.top()) / laneHeight(then, sel.values);
        // The item's time span now, clipped to the view: hit-test in the middle of what is visible of it.
        const double x0 = std::max(g->xForTime(then.timeForX(sel.itemRect.left())), g->plotArea.left());
        const double x1 = std::min(g->xForTime(then.timeForX(sel.itemRect.right())), g->plotArea.right());
        if (x1 < x0) return std::nullopt;  // panned or zoomed out of sight
        point = QPointF((x0 + x1) / 2, g->plotArea.top() + (lane - firstLane(*g, m_values)) * laneHeight(*g, m_values));
        if (!g->plotArea.contains(point)) return std::nullopt;  // its lane is scrolled out of sight
    } else if (sel.values != m_values || sel.plotRect != now) {
        return std::nullopt;  // another layout: the click point no longer means the same item
    }
    auto hit = m_plot.hitTest(*m_prepared, m_values, now, point);
    if (!hit || !hit->itemRect) return std::nullopt;
    if (auto g = geometry()) return hit->itemRect->intersected(g->plotArea);  // an item running off the view
    return hit->itemRect;
}

QImage PlotView::renderImage(QSize size) const {
    if (!m_prepared) return {};
    return plots::renderToImage(m_plot, *m_prepared, m_values, size, isDark());
}

// ---------------------------------------------------------------- painting

void PlotView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const bool dark = isDark();
    const plots::Theme theme = dark ? plots::Theme::dark() : plots::Theme::light();
    if (m_prepared) {
        plots::paintPlot(p, plotRect(), m_plot, *m_prepared, m_values, dark);
    } else {
        p.fillRect(rect(), theme.background);
        p.setPen(theme.muted);
        QString text;
        if (!m_error.isEmpty()) text = QString();
        else if (!dataReady()) text = tr("Waiting for the run to load…");
        else text = tr("Preparing %1…").arg(QString::fromStdString(m_plot.title()));
        if (!m_progressText.isEmpty() && m_error.isEmpty()) text += QStringLiteral("\n") + m_progressText;
        p.drawText(rect(), Qt::AlignCenter, text);
    }

    paintNavigation(p, theme);
    if (auto selected = selectionRect()) {
        p.setPen(QPen(theme.highlight, 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(selected->adjusted(-1, -1, 1, 1));
    }
    paintCriticalPath(p, theme);
    paintFlows(p);

    if (m_drag == Drag::Box) {
        QRectF band(QPointF(std::min(m_pressPos.x(), m_lastPos.x()), 0),
                    QPointF(std::max(m_pressPos.x(), m_lastPos.x()), height()));
        QColor fill = theme.highlight;
        fill.setAlpha(50);
        p.fillRect(band, fill);
        p.setPen(QPen(theme.highlight, 1, Qt::DashLine));
        p.drawRect(band);
    }

    // "updating…" badge: the last picture stays while a new one is prepared.
    if (m_updating && m_prepared) {
        QString text = tr("updating…");
        if (!m_progressText.isEmpty()) text += QStringLiteral(" ") + m_progressText;
        QFont f = font();
        f.setBold(true);
        p.setFont(f);
        QFontMetrics fm(f);
        QRectF badge(width() - fm.horizontalAdvance(text) - 24, 6, fm.horizontalAdvance(text) + 16, fm.height() + 8);
        QColor bg = dark ? QColor(60, 60, 70, 220) : QColor(255, 248, 220, 230);
        p.setPen(Qt::NoPen);
        p.setBrush(bg);
        p.drawRoundedRect(badge, 4, 4);
        p.setPen(dark ? QColor(240, 220, 140) : QColor(120, 80, 0));
        p.drawText(badge, Qt::AlignCenter, text);
    }

    // Errors stay inline, over the last good picture if there is one.
    if (!m_error.isEmpty()) {
        QFont f = font();
        p.setFont(f);
        QFontMetrics fm(f);
        const QString text = tr("Cannot prepare this plot: %1").arg(m_error);
        QRectF box(8, height() - 8 - 3 * fm.height() - 12, width() - 16, 3 * fm.height() + 12);
        if (!m_prepared) box = QRectF(20, height() / 2.0 - 40, width() - 40, 80);
        p.setPen(QColor(200, 40, 40));
        p.setBrush(dark ? QColor(70, 20, 20, 235) : QColor(255, 235, 235, 235));
        p.drawRoundedRect(box, 4, 4);
        p.setPen(dark ? QColor(255, 190, 190) : QColor(150, 0, 0));
        p.drawText(box.adjusted(8, 4, -8, -4), Qt::AlignVCenter | Qt::TextWordWrap, text);
    }
}

// ---------------------------------------------------------------- mouse and keyboard

void PlotView::mousePressEvent(QMouseEvent* e) {
    m_pressPos = m_lastPos = e->position();
    m_moved = false;
    setFocus(Qt::MouseFocusReason);
    const auto g = geometry();
    const bool timeline = g.has_value();
    const QPointF pos = e->position();
    if (timeline && m_nav && e->button() == Qt::LeftButton && m_prepared && pos.x() < g->plotArea.left())
        if (auto next = m_nav->gutterClick(*m_prepared, m_values, plotRect(), pos)) {  // a CPU thread's label
            setValues(*next);
            m_drag = Drag::None;
            e->accept();
            return;
        }
    if (!timeline && e->button() == Qt::RightButton) {
        if (QMenu* menu = ranksMenu(pos)) {  // a summary-first run's cell: load its ranks
            menu->exec(e->globalPosition().toPoint());
            delete menu;
            e->accept();
            return;
        }
    }
    if (timeline && e->button() == Qt::RightButton) {
        m_drag = Drag::Box;  // a right-click without a drag opens the item's menu on release
    } else if (timeline && e->button() == Qt::LeftButton && g->overviewRect.contains(pos)) {
        m_drag = Drag::Overview;
        moveViewToOverview(pos.x());
    } else if (timeline && e->button() == Qt::LeftButton &&
               (((e->modifiers() & Qt::ShiftModifier) && g->plotArea.contains(pos)) ||
                (g->axisRect.contains(pos)))) {
        m_drag = Drag::Measure;
    } else if (e->button() == Qt::LeftButton) {
        m_drag = timeline ? Drag::Pan : Drag::None;
    }
    if (m_drag == Drag::Pan) setCursor(Qt::ClosedHandCursor);
    e->accept();
}

void PlotView::mouseMoveEvent(QMouseEvent* e) {
    const QPointF pos = e->position();
    if (e->buttons() != Qt::NoButton) {
        if ((pos - m_pressPos).manhattanLength() > 3) m_moved = true;
        if (m_drag == Drag::Pan && m_moved) {
            if (auto g = geometry()) applyView(plots::panBy(*g, m_values, pos.x() - m_lastPos.x()), true);
        } else if (m_drag == Drag::Overview) {
            moveViewToOverview(pos.x());
        } else if (m_drag == Drag::Box || m_drag == Drag::Measure) {
            update();
        }
        m_lastPos = pos;
        return;
    }
    if (!m_prepared) return;
    if (auto g = geometry(); g && (g->axisRect.contains(pos) || g->overviewRect.contains(pos))) {
        setCursor(g->axisRect.contains(pos) ? Qt::IBeamCursor : Qt::PointingHandCursor);
        QToolTip::hideText();
        return;
    }
    unsetCursor();
    if (auto tip = m_plot.tooltipAt(*m_prepared, m_values, plotRect(), pos))
        QToolTip::showText(e->globalPosition().toPoint(), tooltipHtml(QString::fromStdString(*tip)), this);
    else
        QToolTip::hideText();
}

void PlotView::mouseReleaseEvent(QMouseEvent* e) {
    const Drag drag = m_drag;
    m_drag = Drag::None;
    unsetCursor();
    if (drag == Drag::Box && !m_moved && e->button() == Qt::RightButton) {
        update();
        if (QMenu* menu = itemMenu(e->position())) {
            menu->exec(e->globalPosition().toPoint());
            delete menu;
        }
        return;
    }
    if (drag == Drag::Box) {
        update();
        if (std::abs(e->position().x() - m_pressPos.x()) > 4)
            if (auto g = geometry())
                applyView(plots::zoomToPixels(*g, m_values, m_pressPos.x(), e->position().x()), true);
        return;
    }
    if (drag == Drag::Overview) return;
    if (drag == Drag::Measure) {
        auto g = geometry();
        if (g && std::abs(e->position().x() - m_pressPos.x()) > 4) {
            const int64_t t0 = g->timeForX(std::min(m_pressPos.x(), e->position().x()));
            const int64_t t1 = g->timeForX(std::max(m_pressPos.x(), e->position().x()));
            setMeasure(t0, t1);
        } else {
            clearMeasure();  // a click on the axis clears the range
        }
        return;
    }
    if (e->button() != Qt::LeftButton || m_moved || !m_prepared) return;
    // The legend's "+N more": a click on a compact legend shows the whole legend.
    if (auto g = geometry(); g && g->legendRect.contains(e->position())) {
        if (plots::findSpec(m_specs, plots::kLegend.key()) &&
            plots::legendMode(m_values) == plots::LegendMode::Compact) {
            setValue(plots::kLegend.key(), std::string("full"));
            Q_EMIT valuesChanged();
            return;
        }
    }
    // A click: select what is under the cursor and show its details.
    auto hit = m_plot.hitTest(*m_prepared, m_values, plotRect(), e->position());
    if (!hit) {
        m_selection.reset();
        update();
        Q_EMIT itemSelected(QString(), QString());
        return;
    }
    m_selection =
        Selection{e->position(), hit->itemRect.value_or(QRectF(e->position(), QSizeF(1, 1))), m_values, plotRect(),
                  m_nav ? m_nav->itemAt(*m_prepared, m_values, plotRect(), e->position()) : std::nullopt};
    QString html = selectionHtml(*hit);
    if (m_selection->item) html += flowsHtml(*m_selection->item);
    update();
    Q_EMIT itemSelected(QString::fromStdString(hit->title), html);
}

void PlotView::mouseDoubleClickEvent(QMouseEvent* e) {
    if (e->button() != Qt::LeftButton) return;
    // The critical-path plot: a bar's class highlighted on the timeline (MainWindow shows it there).
    if (!m_nav && m_prepared && m_plot.id() == "critical-path") {
        if (auto hit = m_plot.hitTest(*m_prepared, m_values, plotRect(), e->position())) {
            std::string cls = hit->title;  // a bar's label; on a bar, its "bar" field (the title is the run)
            for (const auto& [key, value] : hit->fields)
                if (key == "bar") cls = value;
            Q_EMIT pathClassRequested(cls);
        }
        return;
    }
    // A summary-first run's cell (the rank × step heatmap): its rank's events loaded and shown.
    if (!m_nav)
        if (auto picked = ranksAt(e->position())) {
            Q_EMIT ranksRequested(picked->first, {picked->second.front()}, false);
            return;
        }
    resetZoom();
}

std::optional<std::pair<int, std::vector<int>>> PlotView::ranksAt(QPointF pos) const {
    if (!m_prepared || m_nav) return std::nullopt;
    auto hit = m_plot.hitTest(*m_prepared, m_values, plotRect(), pos);
    if (!hit || hit->ranks.empty()) return std::nullopt;
    for (int id : m_runIds)
        if (m_runs.isSummaryFirst(id) && (m_runIds.size() == 1 || m_runs.runEntry(id).label == hit->run))
            return std::pair(id, hit->ranks);
    return std::nullopt;
}

QMenu* PlotView::ranksMenu(QPointF pos) {
    const auto picked = ranksAt(pos);
    if (!picked) return nullptr;
    const int id = picked->first;
    const std::vector<int>& ranks = picked->second;
    auto* menu = new QMenu(this);
    menu->setObjectName(QStringLiteral("ranksMenu"));
    auto add = [&](const QString& text, const char* name, std::vector<int> which, bool only) {
        QAction* a = menu->addAction(text);
        a->setObjectName(QString::fromLatin1(name));
        connect(a, &QAction::triggered, this, [this, id, which, only] { Q_EMIT ranksRequested(id, which, only); });
    };
    add(tr("Load rank %1's events and show its timeline").arg(ranks.front()), "loadRank", {ranks.front()}, false);
    add(tr("Load only rank %1 (unload the others)").arg(ranks.front()), "loadOnlyRank", {ranks.front()}, true);
    if (ranks.size() > 1) {
        const auto [lo, hi] = std::minmax_element(ranks.begin(), ranks.end());
        add(tr("Load the row's %1 ranks (%2–%3)").arg(ranks.size()).arg(*lo).arg(*hi), "loadRow", ranks, false);
    }
    return menu;
}

void PlotView::wheelEvent(QWheelEvent* e) {
    auto g = geometry();
    if (!g) {
        e->ignore();
        return;
    }
    const QPoint delta = e->angleDelta();
    if ((e->modifiers() & Qt::ShiftModifier) || std::abs(delta.x()) > std::abs(delta.y())) {
        const int d = (std::abs(delta.x()) > std::abs(delta.y()) ? delta.x() : delta.y());
        const int lanes = d > 0 ? -1 : 1;
        applyView(plots::scrollLanes(*g, m_values, lanes), false);
    } else if (delta.y() != 0) {
        const double notches = delta.y() / 120.0;
        applyView(plots::zoomAt(*g, m_values, e->position().x(), std::pow(kWheelZoomIn, notches)), true);
    }
    e->accept();
}

void PlotView::keyPressEvent(QKeyEvent* e) {
    if (isTimeline()) {
        if (e->matches(QKeySequence::Find)) return openSearch();
        if (e->key() == Qt::Key_F3) return (e->modifiers() & Qt::ShiftModifier) ? findPrevious() : findNext();
        if (e->key() == Qt::Key_Escape) {
            if (m_search && m_search->isVisible()) closeSearch();
            else if (!m_measure && m_path) clearCriticalPath();
            else clearMeasure();
            return;
        }
    }
    switch (e->key()) {
        case Qt::Key_Plus:
        case Qt::Key_Equal: zoomBy(kWheelZoomIn); return;
        case Qt::Key_Minus: zoomBy(1.0 / kWheelZoomIn); return;
        case Qt::Key_0: resetZoom(); return;
        case Qt::Key_Left:
            if (auto g = geometry()) applyView(plots::panBy(*g, m_values, g->plotArea.width() / 10), true);
            return;
        case Qt::Key_Right:
            if (auto g = geometry()) applyView(plots::panBy(*g, m_values, -g->plotArea.width() / 10), true);
            return;
        case Qt::Key_Up:
            if (auto g = geometry()) applyView(plots::scrollLanes(*g, m_values, -1), false);
            return;
        case Qt::Key_Down:
            if (auto g = geometry()) applyView(plots::scrollLanes(*g, m_values, 1), false);
            return;
        default: QWidget::keyPressEvent(e);
    }
}

bool PlotView::event(QEvent* e) {
    // Ctrl+F, F3 and Esc belong to a focused timeline (the window's Ctrl+F finds plots elsewhere).
    if (e->type() == QEvent::ShortcutOverride && isTimeline()) {
        auto* k = static_cast<QKeyEvent*>(e);
        if (k->matches(QKeySequence::Find) || k->key() == Qt::Key_F3 || k->key() == Qt::Key_Escape) {
            e->accept();
            return true;
        }
    }
    return QWidget::event(e);
}

void PlotView::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    placeChildren();
    syncLaneBar();
}

void PlotView::leaveEvent(QEvent*) { QToolTip::hideText(); }

void PlotView::changeEvent(QEvent* e) {
    if (e->type() == QEvent::PaletteChange) update();  // follow the light/dark palette
    QWidget::changeEvent(e);
}

}  // namespace strobe::app
