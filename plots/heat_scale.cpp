#include "plots/heat_scale.h"

#include <algorithm>
#include <cmath>

#include <QFontMetricsF>
#include <QPainter>

namespace strobe::plots {

QColor heatColor(double fraction) {
    static const QColor kStops[] = {QColor(0x44, 0x01, 0x54), QColor(0x3b, 0x52, 0x8b), QColor(0x21, 0x91, 0x8c),
                                    QColor(0x5e, 0xc9, 0x62), QColor(0xfd, 0xe7, 0x25)};
    const double f = std::clamp(std::isfinite(fraction) ? fraction : 0.0, 0.0, 1.0) * 4.0;
    const int i = std::min(3, int(f));
    const double u = f - i;
    auto mix = [u](int a, int b) { return int(std::lround(a + (b - a) * u)); };
    return QColor(mix(kStops[i].red(), kStops[i + 1].red()), mix(kStops[i].green(), kStops[i + 1].green()),
                  mix(kStops[i].blue(), kStops[i + 1].blue()));
}

void drawHeatColorBar(Canvas& c, const QRectF& bar, const std::vector<std::pair<double, std::string>>& ticks,
                      const std::string& title) {
    if (bar.height() < 20) return;
    auto& p = c.painter;
    for (int y = 0; y < int(bar.height()); ++y)
        p.fillRect(QRectF(bar.left(), bar.bottom() - y - 1, bar.width(), 1.0), heatColor(y / bar.height()));
    const Theme t = c.theme();
    p.setPen(t.foreground);
    p.setBrush(Qt::NoBrush);
    p.drawRect(bar);
    const QFontMetricsF fm(p.font());
    for (const auto& [fraction, label] : ticks) {
        const double y = bar.bottom() - bar.height() * std::clamp(fraction, 0.0, 1.0);
        const QString text = QString::fromStdString(label);
        p.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 4, y));
        p.drawText(QRectF(bar.right() + 6, y - fm.height() / 2, fm.horizontalAdvance(text) + 4, fm.height()),
                   Qt::AlignLeft | Qt::AlignVCenter, text);
    }
    p.drawText(QRectF(bar.left() - 8, bar.top() - fm.height() - 4, bar.width() + 60, fm.height()),
               Qt::AlignLeft | Qt::AlignVCenter, QString::fromStdString(title));
}

}  // namespace strobe::plots
