#include "plots/chart.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <QFontMetricsF>

#include <fmt/format.h>

namespace strobe::plots {

QColor categoryColor(core::KernelCategory c) {
    using K = core::KernelCategory;
    switch (c) {
    case K::Gemm: return QColor(0x1f, 0x77, 0xb4);
    case K::Attention: return QColor(0x94, 0x67, 0xbd);
    case K::Communication: return QColor(0xd6, 0x27, 0x28);
    case K::Memcpy: return QColor(0xff, 0x7f, 0x0e);
    case K::Memset: return QColor(0xbc, 0xbd, 0x22);
    case K::Convolution: return QColor(0x17, 0xbe, 0xcf);
    case K::Normalization: return QColor(0xe3, 0x77, 0xc2);
    case K::Elementwise: return QColor(0x2c, 0xa0, 0x2c);
    case K::Reduction: return QColor(0x8c, 0x56, 0x4b);
    case K::Other:
    case K::Count: break;
    }
    return QColor(0x7f, 0x7f, 0x7f);
}

QColor seriesColor(int index) {
    static const QColor palette[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c),
                                     QColor(0xd6, 0x27, 0x28), QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b),
                                     QColor(0xe3, 0x77, 0xc2), QColor(0x7f, 0x7f, 0x7f), QColor(0xbc, 0xbd, 0x22),
                                     QColor(0x17, 0xbe, 0xcf)};
    int n = static_cast<int>(std::size(palette));
    return palette[((index % n) + n) % n];
}

std::string formatDuration(double ns) {
    double a = std::fabs(ns);
    if (a < 1e3) return fmt::format("{:.0f} ns", ns);
    if (a < 1e6) return fmt::format("{:.3g} µs", ns / 1e3);
    if (a < 1e9) return fmt::format("{:.3g} ms", ns / 1e6);
    return fmt::format("{:.3g} s", ns / 1e9);
}

std::string formatNumber(double v) {
    double a = std::fabs(v);
    if (a >= 1e9) return fmt::format("{:.3g}G", v / 1e9);
    if (a >= 1e6) return fmt::format("{:.3g}M", v / 1e6);
    if (a >= 1e4) return fmt::format("{:.3g}k", v / 1e3);
    return fmt::format("{:.4g}", v);
}

std::string formatPercent(double pct) { return fmt::format("{:.1f}%", pct); }

std::vector<double> niceTicks(double lo, double hi, int count) {
    std::vector<double> out;
    if (!std::isfinite(lo) || !std::isfinite(hi)) return out;
    if (hi < lo) std::swap(lo, hi);
    if (hi == lo) return {lo};
    double raw = (hi - lo) / std::max(1, count);
    double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double norm = raw / mag;
    double step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
    double first = std::ceil(lo / step - 1e-9) * step;
    for (double v = first; v <= hi + step * 1e-9 && out.size() < 100; v += step) out.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
    return out;
}

QRectF drawTitle(Canvas& c, const QRectF& area, const std::string& title, const std::string& subtitle) {
    auto& p = c.painter;
    Theme t = c.theme();
    QFont f = p.font();
    QFont bold = f;
    bold.setBold(true);
    bold.setPointSizeF(f.pointSizeF() * 1.15);
    p.setFont(bold);
    p.setPen(t.foreground);
    QFontMetricsF fm(bold);
    QRectF line(area.left() + 8, area.top() + 4, area.width() - 16, fm.height());
    p.drawText(line, Qt::AlignLeft | Qt::AlignVCenter, elided(p, title, line.width()));
    double used = fm.height() + 6;
    p.setFont(f);
    if (!subtitle.empty()) {
        QFontMetricsF fs(f);
        p.setPen(t.muted);
        QRectF sl(area.left() + 8, area.top() + used, area.width() - 16, fs.height());
        p.drawText(sl, Qt::AlignLeft | Qt::AlignVCenter, elided(p, subtitle, sl.width()));
        used += fs.height() + 2;
    }
    return QRectF(area.left(), area.top() + used, area.width(), std::max(0.0, area.height() - used));
}

void drawMessage(Canvas& c, const QRectF& area, const std::string& text) {
    c.painter.setPen(c.theme().muted);
    c.painter.drawText(area.adjusted(16, 16, -16, -16), Qt::AlignCenter | Qt::TextWordWrap, QString::fromStdString(text));
}

void drawValueAxis(Canvas& c, const QRectF& plot, double lo, double hi, bool vertical, const TickFormatter& fmtFn,
                   const std::string& label) {
    auto& p = c.painter;
    Theme t = c.theme();
    QFontMetricsF fm(p.font());
    auto ticks = niceTicks(lo, hi, vertical ? std::max(2, int(plot.height() / 50)) : std::max(2, int(plot.width() / 90)));
    double span = hi - lo;
    if (span <= 0) span = 1;
    for (double v : ticks) {
        std::string s = fmtFn ? fmtFn(v) : formatNumber(v);
        if (vertical) {
            double y = plot.bottom() - (v - lo) / span * plot.height();
            p.setPen(QPen(t.grid, 0));
            p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
            p.setPen(t.muted);
            p.drawText(QRectF(plot.left() - 70, y - fm.height() / 2, 64, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
                       QString::fromStdString(s));
        } else {
            double x = plot.left() + (v - lo) / span * plot.width();
            p.setPen(QPen(t.grid, 0));
            p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
            p.setPen(t.muted);
            p.drawText(QRectF(x - 45, plot.bottom() + 3, 90, fm.height()), Qt::AlignHCenter | Qt::AlignTop,
                       QString::fromStdString(s));
        }
    }
    p.setPen(QPen(t.foreground, 0));
    if (vertical) p.drawLine(plot.bottomLeft(), plot.topLeft());
    else p.drawLine(plot.bottomLeft(), plot.bottomRight());
    if (!label.empty()) {
        p.setPen(t.muted);
        if (vertical) {
            p.save();
            p.translate(plot.left() - 74 - fm.height(), plot.center().y());
            p.rotate(-90);
            p.drawText(QRectF(-plot.height() / 2, 0, plot.height(), fm.height()), Qt::AlignCenter,
                       QString::fromStdString(label));
            p.restore();
        } else {
            p.drawText(QRectF(plot.left(), plot.bottom() + fm.height() + 4, plot.width(), fm.height()), Qt::AlignCenter,
                       QString::fromStdString(label));
        }
    }
}

void drawBandLabels(Canvas& c, const QRectF& plot, const std::vector<std::string>& labels, bool alongX,
                    int highlight) {
    auto& p = c.painter;
    Theme t = c.theme();
    QFontMetricsF fm(p.font());
    if (labels.empty()) return;
    double band = (alongX ? plot.width() : plot.height()) / double(labels.size());
    for (size_t i = 0; i < labels.size(); ++i) {
        QFont f = p.font();
        bool hl = int(i) == highlight;
        if (hl) {
            QFont b = f;
            b.setBold(true);
            p.setFont(b);
        }
        p.setPen(hl ? t.highlight : t.foreground);
        if (alongX) {
            QRectF r(plot.left() + band * double(i), plot.bottom() + 3, band, fm.height());
            p.drawText(r, Qt::AlignHCenter | Qt::AlignTop, elided(p, labels[i], band - 2));
        } else {
            double w = std::max(60.0, plot.left() - c.rect.left() - 12);
            QRectF r(plot.left() - w - 6, plot.top() + band * double(i), w, band);
            p.drawText(r, Qt::AlignRight | Qt::AlignVCenter, elided(p, labels[i], w));
        }
        p.setFont(f);
    }
}

QRectF drawLegend(Canvas& c, const QRectF& area, const std::vector<LegendEntry>& entries) {
    if (entries.empty()) return area;
    auto& p = c.painter;
    Theme t = c.theme();
    QFontMetricsF fm(p.font());
    double h = fm.height() + 4;
    // Lay out in rows.
    std::vector<std::vector<std::pair<const LegendEntry*, double>>> rows(1);
    double x = 0, maxW = area.width() - 16;
    for (const auto& e : entries) {
        double w = 14 + fm.horizontalAdvance(QString::fromStdString(e.label)) + 16;
        w = std::min(w, maxW);
        if (x + w > maxW && !rows.back().empty()) {
            rows.emplace_back();
            x = 0;
        }
        rows.back().push_back({&e, w});
        x += w;
    }
    double top = area.bottom() - h * double(rows.size()) - 4;
    for (size_t r = 0; r < rows.size(); ++r) {
        double xx = area.left() + 8;
        double y = top + h * double(r);
        for (auto [e, w] : rows[r]) {
            p.fillRect(QRectF(xx, y + (h - 10) / 2, 10, 10), e->color);
            p.setPen(t.foreground);
            p.drawText(QRectF(xx + 14, y, w - 16, h), Qt::AlignLeft | Qt::AlignVCenter, elided(p, e->label, w - 16));
            xx += w;
        }
    }
    return QRectF(area.left(), area.top(), area.width(), std::max(0.0, top - area.top()));
}

QString elided(const QPainter& p, const std::string& text, double width) {
    QFontMetricsF fm(p.font());
    return fm.elidedText(QString::fromStdString(text), Qt::ElideRight, std::max(0.0, width));
}

core::KernelCategory activityCategory(const core::RankData& r, size_t i) {
    const auto& g = r.gpu;
    if (g.category.size() == g.size()) return g.category[i];
    if (g.kind.size() == g.size()) {
        if (g.kind[i] == core::EventKind::Memcpy) return core::KernelCategory::Memcpy;
        if (g.kind[i] == core::EventKind::Memset) return core::KernelCategory::Memset;
    }
    // No classification yet (merge not run): a coarse guess from the name, enough to colour a picture.
    auto n = r.strings.view(g.name[i]);
    auto has = [&](std::string_view s) { return n.find(s) != std::string_view::npos; };
    if (n.starts_with("nccl") || n.starts_with("rccl") || has("ncclKernel") || has("ncclDevKernel"))
        return core::KernelCategory::Communication;
    if (has("gemm") || has("Gemm") || has("GEMM") || has("cutlass") || has("Cijk")) return core::KernelCategory::Gemm;
    if (has("flash") || has("attention") || has("fmha")) return core::KernelCategory::Attention;
    if (has("elementwise") || has("Elementwise")) return core::KernelCategory::Elementwise;
    if (has("reduce") || has("Reduce")) return core::KernelCategory::Reduction;
    return core::KernelCategory::Other;
}

int64_t activityStep(const core::RankData& r, size_t i) {
    const auto& g = r.gpu;
    if (g.step.size() == g.size()) {
        int32_t s = g.step[i];
        return s >= 0 && size_t(s) < r.steps.size() ? r.steps.number[size_t(s)] : -1;
    }
    // Fall back on the step ranges (sorted by start): the last step starting at or before the kernel.
    const auto& st = r.steps;
    if (st.size() == 0) return -1;
    auto ts = g.ts[i];
    auto it = std::upper_bound(st.start.begin(), st.start.end(), ts);
    if (it == st.start.begin()) return -1;
    size_t k = size_t(it - st.start.begin()) - 1;
    return ts < st.end[k] ? st.number[k] : -1;
}

std::string rankLabel(const RunSet& runs, size_t runIndex, int rank) {
    if (runs.size() > 1) return fmt::format("{} / rank {}", runs[runIndex].label, rank);
    return fmt::format("rank {}", rank);
}

bool rankSelected(const std::vector<int>& selected, int rank) {
    return selected.empty() || std::binary_search(selected.begin(), selected.end(), rank);
}

std::vector<std::string> rankChoices(const RunSet& runs) {
    std::set<int> ranks;
    for (const auto& run : runs)
        if (run.dataset)
            for (const auto& r : run.dataset->ranks)
                if (r) ranks.insert(r->rank);
    std::vector<std::string> out;
    for (int r : ranks) out.push_back(std::to_string(r));
    return out;
}

}  // namespace strobe::plots
