#include "plots/sweep_marks.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <span>

#include <QPolygonF>

#include "core/analysis/context.h"
#include "plots/sweep_axes.h"

namespace strobe::plots {

namespace {

size_t indexIn(const std::vector<std::string>& v, const std::string& s) {
    return size_t(std::find(v.begin(), v.end(), s) - v.begin());
}

std::vector<std::string> sortedValues(const std::vector<MarkKey>& keys, std::string MarkKey::*field) {
    std::vector<std::string> out;
    for (const auto& k : keys) out.push_back(k.*field);
    sortAxisValues(out);
    return out;
}

QColor mix(const QColor& a, const QColor& b, double t) {
    t = std::clamp(t, 0.0, 1.0);
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t), float(a.greenF() + (b.greenF() - a.greenF()) * t),
                            float(a.blueF() + (b.blueF() - a.blueF()) * t));
}

}  // namespace

std::vector<LegendEntry> colorLegend(const std::string& colorAxis, const MarkPlan& plan) {
    std::vector<LegendEntry> out;
    for (size_t i = 0; i < plan.colors.size(); ++i) out.push_back({colorAxis + "=" + plan.colors[i], seriesColor(int(i))});
    return out;
}

MarkPlan planMarks(const std::vector<MarkKey>& keys, bool colorRole) {
    MarkPlan plan;
    plan.facets = sortedValues(keys, &MarkKey::facet);
    if (plan.facets.empty()) plan.facets.push_back("");
    plan.bands = sortedValues(keys, &MarkKey::x);
    if (colorRole) plan.colors = sortedValues(keys, &MarkKey::color);
    plan.place.resize(keys.size());
    std::map<std::pair<size_t, size_t>, std::vector<size_t>> cells;  // (facet, band) -> keys
    for (size_t i = 0; i < keys.size(); ++i) {
        auto& pl = plan.place[i];
        pl.facet = indexIn(plan.facets, keys[i].facet);
        pl.band = indexIn(plan.bands, keys[i].x);
        pl.color = colorRole ? int(indexIn(plan.colors, keys[i].color)) : int(pl.band);
        cells[{pl.facet, pl.band}].push_back(i);
    }
    for (auto& [cell, members] : cells) {
        std::sort(members.begin(), members.end(), [&](size_t a, size_t b) {
            if (plan.place[a].color != plan.place[b].color) return plan.place[a].color < plan.place[b].color;
            return keys[a].label < keys[b].label;
        });
        for (size_t s = 0; s < members.size(); ++s) {
            plan.place[members[s]].slot = s;
            plan.place[members[s]].slots = members.size();
        }
        plan.maxSlots = std::max(plan.maxSlots, members.size());
    }
    return plan;
}

std::vector<QRectF> facetPanels(const QRectF& area, size_t facets) {
    const size_t n = std::max<size_t>(1, facets);
    const auto cols = size_t(std::ceil(std::sqrt(double(n))));
    const size_t rows = (n + cols - 1) / cols;
    const double w = area.width() / double(cols), h = area.height() / double(rows);
    std::vector<QRectF> out;
    for (size_t i = 0; i < n; ++i)
        out.emplace_back(area.left() + w * double(i % cols), area.top() + h * double(i / cols), w, h);
    return out;
}

std::pair<double, double> slotSpan(const ChartLayout& layout, const MarkPlace& place, size_t maxSlots) {
    const double band = layout.bandSize(true);
    const double centre = layout.bandStart(true, place.band) + band / 2;
    const double slot = std::min(band * 0.8 / double(std::max<size_t>(1, maxSlots)), 90.0);
    const double left = centre - slot * double(place.slots) / 2 + slot * double(place.slot);
    const double gap = std::min(4.0, slot * 0.1);
    return {left + gap, left + slot - gap};
}

Spread spreadOf(const std::vector<double>& v) {
    Spread s;
    if (v.empty()) return s;
    auto q = [&](double p) { return core::stats::quantile(std::span<const double>(v), p); };
    s.min = v.front(), s.max = v.back();
    s.p5 = q(0.05), s.p25 = q(0.25), s.median = q(0.5), s.p75 = q(0.75), s.p95 = q(0.95);
    for (double x : v) s.mean += x / double(v.size());
    double ss = 0;
    for (double x : v) ss += (x - s.mean) * (x - s.mean);
    const double sd = v.size() > 1 ? std::sqrt(ss / double(v.size() - 1)) : 0.0;
    s.cv = s.mean > 0 ? sd / s.mean : 0.0;
    return s;
}

void drawBoxMark(QPainter& p, const Theme& t, const ChartLayout& L, double cx, double half,
                 const std::vector<double>& v, const QColor& fill) {
    if (v.empty()) return;
    const Spread s = spreadOf(v);
    p.setPen(QPen(t.foreground, 1));
    p.drawLine(QPointF(cx, L.yAt(s.min)), QPointF(cx, L.yAt(s.max)));
    p.drawLine(QPointF(cx - half / 2, L.yAt(s.min)), QPointF(cx + half / 2, L.yAt(s.min)));
    p.drawLine(QPointF(cx - half / 2, L.yAt(s.max)), QPointF(cx + half / 2, L.yAt(s.max)));
    const QRectF box(QPointF(cx - half, L.yAt(s.p75)), QPointF(cx + half, L.yAt(s.p25)));
    p.fillRect(box, fill);
    p.drawRect(box);
    p.setPen(QPen(t.foreground, 2));
    p.drawLine(QPointF(cx - half, L.yAt(s.median)), QPointF(cx + half, L.yAt(s.median)));
    p.setBrush(t.foreground);
    p.drawEllipse(QPointF(cx, L.yAt(s.mean)), 2.5, 2.5);
    p.setBrush(Qt::NoBrush);
}

void drawViolinMark(QPainter& p, const Theme& t, const ChartLayout& L, double cx, double half,
                    const std::vector<double>& v, const QColor& fill) {
    if (v.empty()) return;
    const double h = silvermanBandwidth(v);
    const double median = spreadOf(v).median;
    p.setPen(QPen(t.foreground, 1));
    if (!(h > 0)) {  // one value (or all equal): a flat bar at it
        const double y = L.yAt(v.front());
        p.fillRect(QRectF(cx - half, y - 1.5, 2 * half, 3), fill);
        return;
    }
    constexpr int kPoints = 64;
    std::vector<double> at(kPoints + 1), dens(kPoints + 1);
    double top = 0;
    for (int i = 0; i <= kPoints; ++i) {
        at[size_t(i)] = v.front() + (v.back() - v.front()) * double(i) / kPoints;
        dens[size_t(i)] = kernelDensity(v, h, at[size_t(i)]);
        top = std::max(top, dens[size_t(i)]);
    }
    QPolygonF shape;
    for (int i = 0; i <= kPoints; ++i) shape << QPointF(cx - half * dens[size_t(i)] / top, L.yAt(at[size_t(i)]));
    for (int i = kPoints; i >= 0; --i) shape << QPointF(cx + half * dens[size_t(i)] / top, L.yAt(at[size_t(i)]));
    QColor c = fill;
    c.setAlpha(170);
    p.setBrush(c);
    p.drawPolygon(shape);
    p.setBrush(Qt::NoBrush);
    const double w = std::max(4.0, half * kernelDensity(v, h, median) / top);
    p.setPen(QPen(t.foreground, 2));
    p.drawLine(QPointF(cx - w, L.yAt(median)), QPointF(cx + w, L.yAt(median)));
}

QColor sequentialColor(double t) {
    const QColor a(0xef, 0xf3, 0xff), m(0x6b, 0xae, 0xd6), b(0x08, 0x30, 0x6b);
    t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0);
    return t < 0.5 ? mix(a, m, t * 2) : mix(m, b, (t - 0.5) * 2);
}

QColor divergingColor(double t) {
    const QColor lo(0x21, 0x66, 0xac), mid(0xf7, 0xf7, 0xf7), hi(0xb2, 0x18, 0x2b);
    t = std::clamp(std::isfinite(t) ? t : 0.0, -1.0, 1.0);
    return t < 0 ? mix(mid, lo, -t) : mix(mid, hi, t);
}

QColor textColorOn(const QColor& bg) {
    const double lum = 0.2126 * bg.redF() + 0.7152 * bg.greenF() + 0.0722 * bg.blueF();
    return lum > 0.5 ? QColor(Qt::black) : QColor(Qt::white);
}

QRectF drawNotes(Canvas& c, const QRectF& area, const std::vector<std::string>& lines) {
    auto& p = c.painter;
    const QFontMetricsF fm(p.font());
    double used = 0;
    p.setPen(c.theme().muted);
    for (const auto& line : lines) {
        if (line.empty()) continue;
        const QRectF r(area.left() + 8, area.top() + used, area.width() - 16, fm.height());
        p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter, elided(p, line, r.width()));
        used += fm.height() + 1;
    }
    if (used > 0) used += 3;
    return QRectF(area.left(), area.top() + used, area.width(), std::max(0.0, area.height() - used));
}

}  // namespace strobe::plots
