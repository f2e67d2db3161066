// PlotView's flows: when a timeline item is selected, arrows from the CPU operator to the runtime call it made and
// on to the kernel that call launched (plots::TimelineNavigation::flows finds them); "Go to" entries in the item menu for the ends
// that are off screen or in a collapsed lane; a summary in the Selection dock.
#include <algorithm>
#include <cmath>
#include <set>

#include <QMenu>
#include <QPainter>
#include <QPainterPath>

#include "app/gui/plot_view.h"

namespace strobe::app {

namespace {

constexpr size_t kMaxFlows = 256;             // arrows drawn for one selection (an operator may launch thousands)
const QColor kFlowColor(236, 64, 122);        // pink: apart from the category colours and the search's gold

QString esc(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

// A curved arrow from the start of `from` to the start of `to` (launch order runs left to right).
void drawArrow(QPainter& p, const QRectF& from, const QRectF& to) {
    const QPointF a(from.left() + std::min(3.0, from.width() / 2), from.center().y());
    const QPointF b(to.left(), to.center().y());
    const double bow = std::max(18.0, std::abs(b.x() - a.x()) / 2);
    QPainterPath path(a);
    path.cubicTo(QPointF(a.x() + bow, a.y()), QPointF(b.x() - bow, b.y()), b);
    p.setBrush(Qt::NoBrush);
    p.drawPath(path);
    // The head points along the curve's last tangent (horizontal, to the right).
    const QPointF tip = b;
    QPolygonF head{tip, tip + QPointF(-7, -4), tip + QPointF(-7, 4)};
    p.setBrush(p.pen().color());
    p.drawPolygon(head);
}

}  // namespace

const std::vector<plots::FlowLink>& PlotView::selectedFlows() {
    const auto item = selectedItem();
    if (!item || !m_prepared || !m_nav) {
        m_flows.clear();
        m_flowsOf.reset();
        return m_flows;
    }
    if (m_flowsOf != item || m_flowsPrepared != m_prepared.get()) {
        m_flows = m_nav->flows(*m_prepared, m_values, *item, kMaxFlows);
        m_flowsOf = item;
        m_flowsPrepared = m_prepared.get();
    }
    return m_flows;
}

void PlotView::paintFlows(QPainter& p) { paintLinks(p, selectedFlows(), kFlowColor); }

void PlotView::paintLinks(QPainter& p, const std::vector<plots::FlowLink>& links, const QColor& color) {
    const auto g = geometry();
    if (links.empty() || !g || !m_prepared || !m_nav) return;
    std::vector<plots::ItemRef> ends;
    ends.reserve(links.size() * 2);
    for (const auto& f : links) {
        ends.push_back(f.from);
        ends.push_back(f.to);
    }
    const auto rects = m_nav->itemRects(*m_prepared, m_values, plotRect(), ends);
    p.save();
    p.setClipRect(g->plotArea);
    p.setRenderHint(QPainter::Antialiasing, true);
    for (size_t i = 0; i < links.size(); ++i) {
        const auto& from = rects[2 * i];
        const auto& to = rects[2 * i + 1];
        if (!from || !to) continue;  // an end out of view: the item menu's "Go to" reaches it
        p.setPen(QPen(color, 1.2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(to->adjusted(0, 1, 0, -1));
        p.drawRect(from->adjusted(0, 1, 0, -1));
        p.setPen(QPen(color, 1.8));
        drawArrow(p, *from, *to);
    }
    p.restore();
}

void PlotView::addFlowActions(QMenu* menu, const plots::ItemRef& item) {
    if (!m_prepared || !m_nav) return;
    const auto flows = m_nav->flows(*m_prepared, m_values, item, kMaxFlows);
    if (flows.empty()) return;
    menu->addSeparator();
    // The other end of each flow touching the item, then what the first kernel reached leads to.
    std::set<std::pair<size_t, size_t>> seen;
    int kernels = 0;
    for (const auto& f : flows) {
        const plots::ItemRef& target = f.from == item ? f.to : f.from;
        if (!seen.insert({target.lane, target.index}).second) continue;
        const bool kernel = f.to == target && f.what == "kernel";
        if (kernel && ++kernels > 1) continue;  // one entry for the first kernel; the count says how many
        const std::string name = m_nav->itemName(*m_prepared, target);
        const QString shortName = QFontMetrics(font()).elidedText(QString::fromStdString(name), Qt::ElideMiddle, 260);
        QString text;
        if (f.to == target)
            text = kernel ? tr("Go to the first launched kernel “%1”").arg(shortName)
                          : tr("Go to the runtime call “%1”").arg(shortName);
        else
            text = f.what == "kernel" ? tr("Go to the launching call “%1”").arg(shortName)
                                      : tr("Go to the launching operator “%1”").arg(shortName);
        QAction* a = menu->addAction(text);
        a->setObjectName(kernel ? QStringLiteral("flowKernel")
                                : f.to == target ? QStringLiteral("flowCall") : QStringLiteral("flowSource"));
        connect(a, &QAction::triggered, this, [this, target] { selectItem(target, true); });
    }
}

QString PlotView::flowsHtml(const plots::ItemRef& item) {
    if (!m_prepared || !m_nav) return {};
    const auto flows = m_nav->flows(*m_prepared, m_values, item, kMaxFlows);
    if (flows.empty()) return {};
    std::set<std::pair<size_t, size_t>> kernels, calls;
    std::vector<std::string> sources;
    for (const auto& f : flows) {
        if (f.what == "kernel") kernels.insert({f.to.lane, f.to.index});
        if (f.what == "runtime call") calls.insert({f.to.lane, f.to.index});
        if (f.to == item || (f.from != item && f.what == "runtime call"))
            sources.push_back(m_nav->itemName(*m_prepared, f.from));
    }
    QString html = tr("<p><b>Flows</b> (arrows; right-click for “Go to”)<br>");
    if (!sources.empty()) {
        std::reverse(sources.begin(), sources.end());  // operator first, then the runtime call
        QStringList chain;
        for (const auto& s : sources) chain << esc(s.size() > 60 ? s.substr(0, 57) + "…" : s);
        html += tr("launched by %1<br>").arg(chain.join(QStringLiteral(" → ")));
    }
    calls.erase({item.lane, item.index});
    if (!kernels.empty() && !kernels.count({item.lane, item.index})) {
        html += tr("launched %n kernel(s)", nullptr, static_cast<int>(kernels.size()));
        if (!calls.empty()) html += tr(" through %n runtime call(s)", nullptr, static_cast<int>(calls.size()));
        if (flows.size() >= kMaxFlows) html += tr(" (the first %1 links)").arg(kMaxFlows);
    }
    return html + QStringLiteral("</p>");
}

}  // namespace strobe::app
