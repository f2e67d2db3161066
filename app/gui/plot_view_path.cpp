// PlotView's critical path (issue 26): the path of a step, annotation or the whole trace shown on the timeline. Its
// segments are outlined on their lanes (CPU operators, runtime calls, kernels, communication) and everything else
// is dimmed; where the path changes lane or rank an arrow is drawn with the flows' own drawing (paintLinks); a
// banner at the top of the lanes names the window, the length, what could not be placed and the clock alignment the
// path was computed on. Nothing is drawn outside the plot area.
#include <algorithm>
#include <cstdint>
#include <set>
#include <tuple>

#include <QFontMetrics>
#include <QPainter>
#include <QRegion>

#include "app/gui/plot_view.h"
#include "plots/timeline_view.h"

namespace strobe::app {

namespace {

const QColor kPathColor(255, 120, 0);  // orange: apart from the flows' pink, the search's gold and the categories

}  // namespace

ShownCriticalPath shownCriticalPath(const core::CriticalPathResult& r, size_t run, const std::string& boundBy) {
    ShownCriticalPath s;
    s.run = run;
    s.boundBy = boundBy;
    s.path.reserve(r.path.size());
    for (const auto& seg : r.path)
        // A gap (idle, launch latency, a sync's residue) runs through no event: no name to place it by.
        s.path.push_back({seg.rank, core::cpIsGap(seg.kind) ? std::string() : std::string(seg.name),
                          std::string(seg.boundBy), seg.start, seg.end});
    s.title = QObject::tr("Critical path of %1: %2 ms")
                  .arg(QString::fromStdString(r.window))
                  .arg(static_cast<double>(r.lengthNs) / 1e6, 0, 'f', 3);
    if (!boundBy.empty()) s.title += QObject::tr(" — its %1 segments").arg(QString::fromStdString(boundBy));
    s.clock = QString::fromStdString(r.clock);
    return s;
}

void PlotView::showCriticalPath(ShownCriticalPath shown) {
    if (!m_nav) return;
    m_path = std::move(shown);
    m_pathPrepared = nullptr;  // found again at the next paint
    // The view spans the path (with a margin).
    const auto g = geometry();
    if (g && !m_path->path.empty()) {
        int64_t a = INT64_MAX, b = INT64_MIN;
        for (const auto& seg : m_path->path) {
            a = std::min(a, seg.start);
            b = std::max(b, seg.end);
        }
        a -= g->originNs;
        b = std::max(b - g->originNs, a + 1);
        const int64_t margin = std::max<int64_t>((b - a) / 20, 1000);
        applyView(plots::setView(m_values, a - margin, b + margin), true);
    }
    update();
}

void PlotView::clearCriticalPath() {
    m_path.reset();
    m_pathMarks = {};
    m_pathPrepared = nullptr;
    update();
}

const plots::PathMarks& PlotView::criticalPathMarks() {
    if (!m_path || !m_prepared || !m_nav) {
        m_pathMarks = {};
        m_pathPrepared = nullptr;
    } else if (m_pathPrepared != m_prepared.get()) {
        m_pathMarks = plots::pathMarks(*m_prepared, m_path->run, m_path->path, m_path->boundBy);
        m_pathPrepared = m_prepared.get();
    }
    return m_pathMarks;
}

void PlotView::paintCriticalPath(QPainter& p, const plots::Theme& theme) {
    if (!m_path) return;
    const auto g = geometry();
    if (!g || !m_prepared) return;
    const plots::PathMarks& marks = criticalPathMarks();
    const auto rects = m_nav->itemRects(*m_prepared, m_values, plotRect(), marks.items);
    // The path's rectangles, one per pixel rectangle (many segments of one item, or of one pixel column, coincide).
    std::set<std::tuple<int, int, int, int>> seen;
    std::vector<QRect> onPath;
    for (const auto& r : rects) {
        if (!r) continue;
        const QRect q = r->toAlignedRect();
        if (seen.insert({q.top(), q.left(), q.width(), q.height()}).second) onPath.push_back(q);
    }
    const QRect area = g->plotArea.toAlignedRect();
    p.save();
    p.setClipRect(g->plotArea);
    // Everything off the path dimmed: the plot area less the path's rectangles, under a veil of the background.
    QRegion lit;
    for (const QRect& q : onPath) lit += q.intersected(area);
    QColor veil = theme.background;
    veil.setAlpha(170);
    p.setClipRegion(QRegion(area).subtracted(lit));
    p.fillRect(area, veil);
    p.setClipRect(g->plotArea);
    p.setPen(QPen(kPathColor, 1.6));
    p.setBrush(Qt::NoBrush);
    for (const QRect& q : onPath) p.drawRect(QRectF(q).adjusted(0.5, 1, -0.5, -1));
    p.restore();
    paintLinks(p, marks.edges, kPathColor);

    // The banner: what is shown (first line) and on which clocks (second line).
    QString text = m_path->title;
    text += tr(" · %n segment(s) on the timeline", nullptr, static_cast<int>(marks.items.size()));
    if (m_path->boundBy.empty())
        text += tr(", %n cross-rank edge(s)", nullptr, static_cast<int>(marks.crossRank));
    if (marks.unplaced) text += tr(" (%n not in these lanes)", nullptr, static_cast<int>(marks.unplaced));
    text += tr(" · Esc clears");
    p.save();
    p.setClipRect(g->plotArea);
    const QFontMetrics fm(font());
    const int room = int(g->plotArea.width()) - 16;
    const QString line1 = fm.elidedText(text, Qt::ElideRight, room);
    const QString line2 = fm.elidedText(m_path->clock, Qt::ElideRight, room);
    const int lines = line2.isEmpty() ? 1 : 2;
    const int width = std::max(fm.horizontalAdvance(line1), fm.horizontalAdvance(line2));
    QRectF box(g->plotArea.left() + 4, g->plotArea.top() + 4, width + 12, lines * fm.height() + 6);
    QColor bg = theme.background;
    bg.setAlpha(235);
    p.setPen(QPen(kPathColor, 1));
    p.setBrush(bg);
    p.drawRect(box);
    p.setPen(theme.foreground);
    p.drawText(QRectF(box.left() + 6, box.top() + 3, width, fm.height()), Qt::AlignVCenter | Qt::AlignLeft, line1);
    if (lines == 2) {
        p.setPen(theme.muted);
        p.drawText(QRectF(box.left() + 6, box.top() + 3 + fm.height(), width, fm.height()),
                   Qt::AlignVCenter | Qt::AlignLeft, line2);
    }
    p.restore();
}

}  // namespace strobe::app
