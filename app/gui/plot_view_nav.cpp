// PlotView's timeline navigation: search (Ctrl+F) with highlighted matches, the item context menu, the measured
// range, the overview strip and the lane scrollbar. The matching, statistics and range summaries are the plot's
// (plots::TimelineNavigation: findItems, nameStats, summarizeRange); this file only drives them and paints the
// overlays.
#include <algorithm>

#include <QApplication>
#include <QClipboard>
#include <QFontMetricsF>
#include <QMenu>
#include <QPainter>
#include <QScrollBar>

#include "app/gui/format.h"
#include "app/gui/plot_view.h"
#include "app/gui/timeline_search_bar.h"
#include "plots/builtin/timeline_find.h"

namespace strobe::app {

namespace {

constexpr size_t kMeasureTopKernels = 10;

QString escPlotViewNav(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

}  // namespace

// ---------------------------------------------------------------- search

void PlotView::openSearch() {
    if (!isTimeline()) return;
    if (!m_search) {
        m_search = new TimelineSearchBar(this);
        connect(m_search, &TimelineSearchBar::queryChanged, this, [this] { runSearch(); });
        connect(m_search, &TimelineSearchBar::nextRequested, this, &PlotView::findNext);
        connect(m_search, &TimelineSearchBar::listRequested, this, &PlotView::listMatches);
        connect(m_search, &TimelineSearchBar::previousRequested, this, &PlotView::findPrevious);
        connect(m_search, &TimelineSearchBar::closeRequested, this, &PlotView::closeSearch);
    }
    m_search->show();
    placeChildren();
    syncLaneBar();
    m_search->focusText();
    runSearch();
    update();
}

void PlotView::closeSearch() {
    if (!m_search) return;
    m_search->hide();
    m_matches.clear();
    m_current = -1;
    placeChildren();
    syncLaneBar();
    setFocus(Qt::OtherFocusReason);
    update();
}

void PlotView::setSearch(const QString& text, bool regex) {
    openSearch();
    if (m_search) m_search->setQuery(text, regex);  // runs the search
}

void PlotView::runSearch() {
    if (!m_search || !m_search->isVisible()) return;
    // Any value change runs the search again (shown lanes, new data); the step position stays when the matches do.
    const std::vector<plots::ItemRef> before = std::move(m_matches);
    const int current = m_current;
    m_matches.clear();
    m_current = -1;
    m_longestMatch = 0;
    m_searchError.clear();
    if (m_prepared && m_nav && !m_search->text().isEmpty()) {
        plots::FindQuery q;
        q.text = m_search->text().toStdString();
        q.mode = m_search->isRegex() ? plots::FindQuery::Mode::Regex : plots::FindQuery::Mode::Substring;
        auto found = m_nav->findItems(*m_prepared, m_values, q);
        if (found) m_matches = std::move(found.value());
        else m_searchError = QString::fromStdString(found.error().message);
    }
    for (const auto& m : m_matches) m_longestMatch = std::max(m_longestMatch, m.end - m.start);
    if (m_matches == before) m_current = current;
    m_search->setStatus(m_current, static_cast<int>(m_matches.size()), m_searchError);
    update();
}

void PlotView::findNext() { stepMatch(1); }
void PlotView::findPrevious() { stepMatch(-1); }

void PlotView::stepMatch(int direction) {
    if (m_matches.empty()) return;
    const int n = static_cast<int>(m_matches.size());
    if (m_current < 0) {
        // The first step goes to the first match at or after the view's start (the last before it, backwards).
        const int64_t from = viewRange() ? viewRange()->start : 0;
        auto it = std::lower_bound(m_matches.begin(), m_matches.end(), from,
                                   [](const plots::ItemRef& m, int64_t t) { return m.start < t; });
        int first = static_cast<int>(it - m_matches.begin());
        m_current = direction > 0 ? (first < n ? first : 0) : (first > 0 ? first - 1 : n - 1);
    } else {
        m_current = ((m_current + direction) % n + n) % n;
    }
    const int current = m_current;
    selectItem(m_matches[static_cast<size_t>(current)], true);
    m_current = current;
    if (m_search) m_search->setStatus(m_current, n, m_searchError);
}

void PlotView::selectItem(const plots::ItemRef& item, bool reveal) {
    if (!m_prepared || !isTimeline()) return;
    if (reveal) applyView(m_nav->revealItem(*m_prepared, m_values, plotRect(), item), true);
    const auto rect = m_nav->itemRects(*m_prepared, m_values, plotRect(), {item}).front();
    const QRectF r = rect.value_or(QRectF());
    m_selection = Selection{r.center(), r, m_values, plotRect(), item};
    std::optional<plots::HitInfo> hit;
    if (rect) hit = m_plot.hitTest(*m_prepared, m_values, plotRect(), r.center());
    update();
    if (hit) Q_EMIT itemSelected(QString::fromStdString(hit->title), selectionHtml(*hit) + flowsHtml(item));
}

std::optional<plots::ItemRef> PlotView::selectedItem() const {
    if (!m_selection) return std::nullopt;
    return m_selection->item;
}

// ---------------------------------------------------------------- context menu

QMenu* PlotView::itemMenu(QPointF pos) {
    if (!m_prepared || !isTimeline()) return nullptr;
    const auto item = m_nav->itemAt(*m_prepared, m_values, plotRect(), pos);
    if (!item && m_measure) {  // on empty ground inside a measured range: list what it holds
        auto* menu = new QMenu(this);
        menu->setObjectName(QStringLiteral("timelineItemMenu"));
        QAction* a = menu->addAction(tr("List the events of the measured range"));
        a->setObjectName(QStringLiteral("listMeasure"));
        connect(a, &QAction::triggered, this, [this] { listMeasure(); });
        return menu;
    }
    if (!item) return nullptr;
    const std::string name = m_nav->itemName(*m_prepared, *item);
    const QString shortName = QFontMetrics(font()).elidedText(QString::fromStdString(name), Qt::ElideMiddle, 300);
    auto* menu = new QMenu(this);
    menu->setObjectName(QStringLiteral("timelineItemMenu"));
    auto add = [&](const QString& text, const char* id, auto fn) {
        QAction* a = menu->addAction(text);
        a->setObjectName(QString::fromLatin1(id));
        connect(a, &QAction::triggered, this, fn);
        return a;
    };
    add(tr("Copy name"), "copyName",
        [name] { QApplication::clipboard()->setText(QString::fromStdString(name)); });
    add(tr("Select all named “%1”").arg(shortName), "selectAllOfName", [this, name] {
        setSearch(QString::fromStdString(plots::timeline::exactNameRegex(name)), true);
        findNext();
    });
    add(tr("Statistics of “%1”").arg(shortName), "nameStatistics", [this, item] { showNameStatistics(*item); });
    add(tr("List every “%1”").arg(shortName), "listInstances", [this, item] { listInstances(*item); });
    if (m_measure) add(tr("List the events of the measured range"), "listMeasure", [this] { listMeasure(); });
    QAction* filter = add(tr("Filter the plot to “%1”").arg(shortName), "filterToName",
                          [this, item] { filterToItem(*item); });
    filter->setEnabled(plots::findSpec(m_specs, plots::kNameFilter.key()) != nullptr);
    addFlowActions(menu, *item);
    return menu;
}

void PlotView::showNameStatistics(const plots::ItemRef& item) {
    if (!m_prepared || !m_nav) return;
    const auto s = m_nav->nameStats(*m_prepared, m_values, item);
    if (!s) return;
    auto dur = [](double ns) { return durationText(static_cast<int64_t>(ns + 0.5)); };
    QString html = tr("<p><b>Statistics</b> of every instance in %1</p>").arg(escPlotViewNav(s->run));
    html += QStringLiteral("<table cellspacing=2>");
    auto row = [&html](const QString& k, const QString& v) {
        html += QStringLiteral("<tr><td>%1</td><td align=right>%2</td></tr>").arg(k, v);
    };
    row(tr("count"), formatCount(s->count));
    row(tr("total"), dur(double(s->total)));
    row(tr("mean"), dur(s->mean));
    row(tr("median"), dur(s->median));
    row(tr("p95"), dur(s->p95));
    row(tr("min"), dur(double(s->min)));
    row(tr("max"), dur(double(s->max)));
    html += QStringLiteral("</table><p style='white-space:pre-wrap'>%1</p>").arg(escPlotViewNav(s->name));
    Q_EMIT itemSelected(QString::fromStdString(s->name), html);
}

// ---------------------------------------------------------------- events list

namespace {
QString runsOfListing(const std::vector<plots::EventRow>& rows) {
    QStringList runs;
    for (const auto& r : rows)
        if (const QString run = QString::fromStdString(r.run); !runs.contains(run)) runs << run;
    return runs.join(QStringLiteral(", "));
}
}  // namespace

void PlotView::listInstances(const plots::ItemRef& item) {
    if (!m_prepared || !m_nav) return;
    listName(m_nav->itemName(*m_prepared, item));
}

bool PlotView::listName(const std::string& name) {
    if (!m_prepared || !m_nav || name.empty()) return false;
    auto found = m_nav->findItems(*m_prepared, m_values, plots::FindQuery{name, plots::FindQuery::Mode::Exact});
    if (!found || found->empty()) return false;
    EventListing l;
    l.items = std::move(*found);
    l.rows = m_nav->eventRows(*m_prepared, l.items);
    l.title = tr("<b>%1</b>: %2 instances in %3")
                  .arg(escPlotViewNav(name), formatCount(l.items.size()), escPlotViewNav(runsOfListing(l.rows).toStdString()));
    Q_EMIT eventsListed(l);
    return true;
}

void PlotView::listMatches() {
    if (!m_prepared || !m_nav || !m_search) return;
    EventListing l;
    l.items = m_matches;
    l.rows = m_nav->eventRows(*m_prepared, l.items);
    l.title = tr("Search “%1”: %2 matches").arg(m_search->text().toHtmlEscaped(), formatCount(l.items.size()));
    Q_EMIT eventsListed(l);
}

void PlotView::listMeasure(int rank) {
    if (!m_prepared || !m_nav || !m_measure) return;
    const auto [start, end] = *m_measure;
    EventListing l;
    auto items = m_nav->itemsInRange(*m_prepared, m_values, start, end);
    auto rows = m_nav->eventRows(*m_prepared, items);
    for (size_t i = 0; i < items.size() && i < rows.size(); ++i) {
        if (rank >= 0 && rows[i].rank != rank) continue;
        l.items.push_back(items[i]);
        l.rows.push_back(std::move(rows[i]));
    }
    const QString where = rank >= 0 ? tr(" on rank %1").arg(rank) : QString();
    l.title = tr("Measured range from %1 to %2 (%3)%4: %5 events")
                  .arg(durationText(double(start)), durationText(double(end)), durationText(double(end - start)), where,
                       formatCount(l.items.size()));
    Q_EMIT eventsListed(l);
}

void PlotView::filterToItem(const plots::ItemRef& item) {
    if (!m_prepared || !m_nav || !plots::findSpec(m_specs, plots::kNameFilter.key())) return;
    const std::string name = m_nav->itemName(*m_prepared, item);
    if (name.empty()) return;
    setValue(plots::kNameFilter.key(), plots::timeline::exactNameRegex(name));
    Q_EMIT valuesChanged();
}

// ---------------------------------------------------------------- measure

void PlotView::setMeasure(int64_t start, int64_t end) {
    if (end < start) std::swap(start, end);
    m_measure = std::pair{start, end};
    emitMeasure();
    update();
}

bool PlotView::showAbsoluteRange(int64_t start, int64_t end) {
    const auto g = geometry();
    if (!g) return false;
    const int64_t a = start - g->originNs, b = std::max(end, start + 1) - g->originNs;
    const int64_t margin = std::max<int64_t>((b - a) / 4, 1000);
    applyView(plots::setView(m_values, a - margin, b + margin), true);
    setMeasure(a, b);
    return true;
}

bool PlotView::selectInstance(int rank, int64_t ts, const std::string& name) {
    const auto g = geometry();
    if (!g || !m_prepared || !m_nav || name.empty()) return false;
    const int64_t t = ts - g->originNs;
    // Every item of that name in every lane — nested operators of collapsed threads too (selectItem's reveal expands
    // the thread) — those that hold t.
    const auto* tp = plots::preparedAs<plots::timeline::TimelinePrepared>(*m_prepared);
    if (!tp) return false;
    std::vector<int> lanes(tp->lanes.size());
    for (size_t i = 0; i < lanes.size(); ++i) lanes[i] = int(i);
    auto found = plots::timeline::findInLanes(*tp, lanes, plots::FindQuery{name, plots::FindQuery::Mode::Exact});
    if (!found) return false;
    std::vector<plots::ItemRef> items;
    for (const auto& it : *found)
        if (it.start == t || (it.start <= t && t < it.end)) items.push_back(it);
    const auto rows = m_nav->eventRows(*m_prepared, items);
    // The rank must match where the timeline knows it (a trace without distributedInfo has rank -1 there while the
    // analyses number it 0): a match on the rank first, else on the name and time alone; the innermost (latest
    // start) of those.
    std::optional<size_t> best;
    for (const bool byRank : {true, false}) {
        for (size_t i = 0; i < items.size() && i < rows.size(); ++i) {
            if (byRank && rank >= 0 && rows[i].rank != rank) continue;
            if (!best || items[i].start > items[*best].start) best = i;
        }
        if (best) break;
    }
    if (!best) return false;
    selectItem(items[*best], true);
    return true;
}

void PlotView::clearMeasure() {
    if (!m_measure) return;
    m_measure.reset();
    update();
}

void PlotView::emitMeasure() {
    if (!m_measure || !m_prepared || !m_nav) return;
    const auto [start, end] = *m_measure;
    const auto s = m_nav->summarizeRange(*m_prepared, m_values, start, end, kMeasureTopKernels);
    QString html = tr("<p><b>Range %1</b><br>from +%2 to +%3</p>")
                       .arg(durationText(end - start), durationText(start), durationText(end));
    if (s) {
        html += tr("<p>GPU time in the range: <b>%1</b> (%2 activities, clipped to the range)</p>")
                    .arg(durationText(s->busy), formatCount(s->items));
        html += tr("<p><b>Per category</b></p><table cellspacing=2>");
        for (const auto& [cat, ns] : s->categories)
            html += QStringLiteral("<tr><td>%1</td><td align=right>%2</td><td align=right>%3%</td></tr>")
                        .arg(escPlotViewNav(cat), durationText(ns))
                        .arg(s->busy > 0 ? 100.0 * double(ns) / double(s->busy) : 0.0, 0, 'f', 1);
        html += tr("</table><p><b>Top kernels</b> by time in the range</p><table cellspacing=2>");
        for (const auto& t : s->top)
            html += QStringLiteral("<tr><td align=right>%1</td><td align=right>×%2</td><td>%3</td></tr>")
                        .arg(durationText(t.clipped), formatCount(t.count),
                             escPlotViewNav(t.name.size() > 60 ? t.name.substr(0, 57) + "…" : t.name));
        html += QStringLiteral("</table>");
    }
    Q_EMIT itemSelected(tr("Measured range"), html);
}

// ---------------------------------------------------------------- overview, scrollbar, children

void PlotView::moveViewToOverview(double x) {
    const auto g = geometry();
    if (!g || g->overviewRect.width() <= 0) return;
    const double frac = std::clamp((x - g->overviewRect.left()) / g->overviewRect.width(), 0.0, 1.0);
    const auto full = static_cast<double>(g->fullEnd - g->fullStart);
    const int64_t span = g->viewEnd - g->viewStart;
    if (span >= g->fullEnd - g->fullStart) return;  // the whole run is in view already
    int64_t mid = g->fullStart + static_cast<int64_t>(frac * full);
    int64_t s = std::clamp<int64_t>(mid - span / 2, g->fullStart, g->fullEnd - span);
    applyView(plots::setView(m_values, s, s + span), true);
}

void PlotView::placeChildren() {
    int top = 0;
    if (m_search && m_search->isVisible()) {
        const int h = m_search->sizeHint().height();
        m_search->setGeometry(0, 0, width(), h);
        top = h;
    }
    if (m_laneBar) {
        const int w = m_laneBar->sizeHint().width();
        m_laneBar->setGeometry(width() - w, top, w, height() - top);
    }
}

void PlotView::syncLaneBar() {
    if (!m_laneBar) return;
    const auto g = geometry();
    const bool need = g && g->laneCount > g->visibleLanes;
    if (m_laneBar->isVisible() != need) {
        m_laneBar->setVisible(need);
        placeChildren();
        update();
    }
    if (!need) return;
    const QSignalBlocker block(m_laneBar);
    const int maxFirst = std::max(0, g->laneCount - g->visibleLanes);
    m_laneBar->setRange(0, maxFirst);
    m_laneBar->setPageStep(std::max(1, g->visibleLanes));
    m_laneBar->setValue(static_cast<int>(std::clamp<long long>(plots::kLaneScroll(m_values), 0, maxFirst)));
}

// ---------------------------------------------------------------- painting

void PlotView::paintNavigation(QPainter& p, const plots::Theme& theme) {
    if (!m_prepared || !isTimeline()) return;
    const auto g = geometry();
    if (!g) return;
    if (!m_matches.empty()) {
        // Only the matches that can be in view: sorted by start, none longer than m_longestMatch.
        auto lo = std::lower_bound(m_matches.begin(), m_matches.end(), g->viewStart - m_longestMatch,
                                   [](const plots::ItemRef& m, int64_t t) { return m.start < t; });
        auto hi = std::upper_bound(lo, m_matches.end(), g->viewEnd,
                                   [](int64_t t, const plots::ItemRef& m) { return t < m.start; });
        const std::vector<plots::ItemRef> inView(lo, hi);
        const auto rects = m_nav->itemRects(*m_prepared, m_values, plotRect(), inView);
        p.save();
        p.setClipRect(g->plotArea);
        // The other items fade behind a veil of the background; the matches are drawn over it in gold (with a dark
        // edge when wide enough), so they stand out from every category colour, memset's olive included.
        QColor veil = theme.background;
        veil.setAlpha(165);
        p.fillRect(g->plotArea, veil);
        // A match wide enough for text gets its name again, dark on the opaque gold: the label drawn beneath would
        // be lost under the veil and the highlight.
        const QFontMetricsF fm(p.font());
        const QColor ink(40, 33, 0);
        for (size_t i = 0; i < rects.size(); ++i) {
            const auto& r = rects[i];
            if (!r) continue;
            const QRectF box = r->adjusted(0, 1, 0, -1);
            if (box.width() < 4) {
                p.fillRect(box, QColor(255, 221, 0));  // an edge would hide it
                continue;
            }
            p.setPen(QPen(QColor(60, 50, 0), 1));
            p.setBrush(QColor(255, 221, 0));
            p.drawRect(box);
            if (box.width() >= 24 && box.height() >= fm.height()) {
                const QRectF text = box.adjusted(3, 0, -3, 0).intersected(g->plotArea);
                const QString name = QString::fromStdString(m_nav->itemName(*m_prepared, inView[i]));
                p.setPen(ink);
                p.drawText(text, Qt::AlignLeft | Qt::AlignVCenter, fm.elidedText(name, Qt::ElideMiddle, text.width()));
            }
        }
        p.restore();
    }
    if (m_drag == Drag::Measure && m_moved)
        paintMeasure(p, theme, g->timeForX(std::min(m_pressPos.x(), m_lastPos.x())),
                     g->timeForX(std::max(m_pressPos.x(), m_lastPos.x())));
    else if (m_measure)
        paintMeasure(p, theme, m_measure->first, m_measure->second);
}

void PlotView::paintMeasure(QPainter& p, const plots::Theme& theme, int64_t start, int64_t end) {
    const auto g = geometry();
    if (!g) return;
    const QRectF area = g->plotArea.united(g->axisRect);
    const double x0 = std::clamp(g->xForTime(start), area.left(), area.right());
    const double x1 = std::clamp(g->xForTime(end), area.left(), area.right());
    QColor fill = theme.highlight;
    fill.setAlpha(40);
    p.save();
    p.fillRect(QRectF(x0, area.top(), x1 - x0, area.height()), fill);
    p.setPen(QPen(theme.highlight, 1.5));
    p.drawLine(QPointF(x0, area.top()), QPointF(x0, area.bottom()));
    p.drawLine(QPointF(x1, area.top()), QPointF(x1, area.bottom()));
    // The duration in a label over the axis, centred on the range (kept inside the area).
    QFont f = font();
    f.setBold(true);
    p.setFont(f);
    const QString text = durationText(end - start);
    const QFontMetricsF fm(f);
    const double w = fm.horizontalAdvance(text) + 12;
    const double cx = std::clamp((x0 + x1) / 2, area.left() + w / 2, area.right() - w / 2);
    const QRectF label(cx - w / 2, g->axisRect.top() + 1, w, g->axisRect.height() - 2);
    p.setPen(Qt::NoPen);
    p.setBrush(theme.highlight);
    p.drawRoundedRect(label, 3, 3);
    p.setPen(Qt::white);
    p.drawText(label, Qt::AlignCenter, text);
    p.restore();
}

}  // namespace strobe::app
