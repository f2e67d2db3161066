#include "plots/telemetry_plot.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

namespace strobe::plots {

size_t TelemetryPrepared::bytes() const {
    size_t b = sizeof(*this);
    for (const auto& s : series) b += s.label.size() + s.points.size() * sizeof(s.points[0]) + sizeof(s);
    return b;
}

namespace {

std::string seriesLabel(const RunSet& runs, size_t run, int rank, int device, size_t seriesInRun, bool manyRanks) {
    const std::string where = manyRanks ? fmt::format("rank {} · GPU {}", rank, device) : fmt::format("GPU {}", device);
    if (runs.size() == 1) return where;
    if (seriesInRun <= 1) return runs[run].label;
    return fmt::format("{} · {}", runs[run].label, where);
}

// The id of `metric` in the rank's pool, nullopt when the rank never names it.
std::optional<core::StrId> metricId(const core::RankData& r, std::string_view metric) {
    auto id = r.strings.find(metric);
    if (!id) return std::nullopt;
    return *id;
}

}  // namespace

core::Result<std::vector<TelemetrySeries>> metricSeries(const RunSet& runs, std::string_view metric,
                                                        const core::CancelToken& cancel) {
    std::vector<TelemetrySeries> out;
    for (size_t run = 0; run < runs.size(); ++run) {
        if (!runs[run].dataset) continue;
        int64_t origin = std::numeric_limits<int64_t>::max();
        for (const auto& r : runs[run].dataset->ranks)
            for (size_t i = 0; i < r->samples.size(); ++i) origin = std::min(origin, r->samples.ts[i]);
        std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> byDevice;  // (rank, device)
        for (const auto& r : runs[run].dataset->ranks) {
            if (cancel.cancelled()) return cancelledError();
            auto id = metricId(*r, metric);
            if (!id) continue;
            const auto& s = r->samples;
            for (size_t i = 0; i < s.size(); ++i)
                if (s.metric[i] == *id)
                    byDevice[{r->rank, s.device[i]}].push_back({static_cast<double>(s.ts[i] - origin), s.value[i]});
        }
        std::set<int> ranks;
        for (const auto& kv : byDevice) ranks.insert(kv.first.first);
        for (auto& [key, pts] : byDevice) {
            std::stable_sort(pts.begin(), pts.end(), [](auto& a, auto& b) { return a.first < b.first; });
            out.push_back({seriesLabel(runs, run, key.first, key.second, byDevice.size(), ranks.size() > 1), run,
                           key.second, std::move(pts)});
        }
    }
    return out;
}

core::Result<std::vector<TelemetrySeries>> pairedSeries(const RunSet& runs, std::string_view xMetric,
                                                        std::string_view yMetric, const core::CancelToken& cancel) {
    std::vector<TelemetrySeries> out;
    for (size_t run = 0; run < runs.size(); ++run) {
        if (!runs[run].dataset) continue;
        TelemetrySeries series{runs[run].label, run, -1, {}};
        for (const auto& r : runs[run].dataset->ranks) {
            if (cancel.cancelled()) return cancelledError();
            auto xi = metricId(*r, xMetric), yi = metricId(*r, yMetric);
            if (!xi || !yi) continue;
            std::map<std::pair<int, int64_t>, std::pair<double, double>> at;  // (device, ts) → (x, y)
            std::map<std::pair<int, int64_t>, int> seen;
            const auto& s = r->samples;
            for (size_t i = 0; i < s.size(); ++i) {
                const bool isX = s.metric[i] == *xi, isY = s.metric[i] == *yi;
                if (!isX && !isY) continue;
                auto key = std::make_pair(int(s.device[i]), s.ts[i]);
                auto& v = at[key];
                (isX ? v.first : v.second) = s.value[i];
                seen[key] |= isX ? 1 : 2;
            }
            for (const auto& [key, mask] : seen)
                if (mask == 3) series.points.push_back(at[key]);
        }
        if (!series.points.empty()) out.push_back(std::move(series));
    }
    return out;
}

std::vector<std::string> missingRunMessages(const RunSet& runs, const std::vector<TelemetrySeries>& series,
                                            const std::string& what) {
    std::vector<std::string> out;
    for (size_t run = 0; run < runs.size(); ++run)
        if (std::none_of(series.begin(), series.end(), [&](const TelemetrySeries& s) { return s.run == run; }))
            out.push_back(fmt::format("{}: no {}", runs[run].label, what));
    return out;
}

double pearsonR(const std::vector<std::pair<double, double>>& points) {
    const size_t n = points.size();
    if (n < 2) return NAN;
    double mx = 0, my = 0;
    for (auto [x, y] : points) mx += x, my += y;
    mx /= double(n), my /= double(n);
    double sxy = 0, sxx = 0, syy = 0;
    for (auto [x, y] : points) {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    if (sxx <= 0 || syy <= 0) return NAN;
    return sxy / std::sqrt(sxx * syy);
}

namespace {
std::pair<double, double> padded(double lo, double hi, bool fromZero) {
    if (!std::isfinite(lo)) return {0, 1};
    if (fromZero) lo = std::min(lo, 0.0);
    if (hi <= lo) {  // one value: a range of ±10 % around it (±1 unit around 0), not of ±1 unit (±1 ns for times)
        const double d = std::max(1.0, std::abs(lo) * 0.1);
        return {lo >= 0 ? std::max(0.0, lo - d) : lo - d, hi + d};
    }
    const double pad = (hi - lo) * 0.05;
    return {fromZero && lo >= 0 ? lo : lo - pad, hi + pad};
}
}  // namespace

ChartLayout layoutScatter(Canvas& c, const ScatterChart& chart, const std::vector<TelemetrySeries>& series) {
    QRectF area = drawTitle(c, c.rect, chart.title, chart.subtitle);
    std::vector<LegendEntry> legend;
    for (size_t i = 0; i < series.size(); ++i)
        legend.push_back({i < chart.legend.size() ? chart.legend[i] : series[i].label, seriesColor(int(i)), chart.lines,
                          seriesPenStyle(int(i))});
    area = drawLegend(c, area, legend);
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    for (const auto& s : series)
        for (auto [x, y] : s.points) {
            xlo = std::min(xlo, x), xhi = std::max(xhi, x);
            ylo = std::min(ylo, y), yhi = std::max(yhi, y);
        }
    auto [x0, x1] = padded(xlo, xhi, chart.lines);
    auto [y0, y1] = padded(ylo, yhi, false);
    return layoutChart(QFontMetricsF(c.painter.font()), area, ChartAxis::linear(x0, x1, chart.xUnit, chart.xTitle),
                       ChartAxis::linear(y0, y1, chart.yUnit, chart.yTitle));
}

void drawScatter(Canvas& c, const ScatterChart& chart, const std::vector<TelemetrySeries>& series) {
    ChartLayout g = layoutScatter(c, chart, series);
    drawAxes(c, g);
    auto& p = c.painter;
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setClipRect(g.plot.adjusted(-4, -4, 4, 4));
    for (size_t i = 0; i < series.size(); ++i) {
        const QColor color = seriesColor(int(i));
        if (chart.lines) {
            QPolygonF line;
            for (auto [x, y] : series[i].points) line << QPointF(g.xAt(x), g.yAt(y));
            p.setPen(QPen(color, 2, seriesPenStyle(int(i))));
            p.drawPolyline(line);
            if (series[i].points.size() <= 60) {
                p.setBrush(color);
                for (const QPointF& pt : line) p.drawEllipse(pt, 2.5, 2.5);
                p.setBrush(Qt::NoBrush);
            }
        } else {
            QColor fill = color;
            fill.setAlpha(170);
            p.setPen(QPen(color.darker(120), 1));
            p.setBrush(fill);
            for (auto [x, y] : series[i].points) p.drawEllipse(QPointF(g.xAt(x), g.yAt(y)), 3.5, 3.5);
        }
    }
    p.restore();
}

std::optional<HitInfo> hitScatter(const ScatterChart& chart, const std::vector<TelemetrySeries>& series,
                                  const QRectF& rect, QPointF pt, const std::string& xName, const std::string& yName) {
    LayoutCanvas lc(rect);
    ChartLayout g = layoutScatter(lc.canvas, chart, series);
    double best = 8;
    std::optional<HitInfo> hit;
    for (const auto& s : series)
        for (auto [x, y] : s.points) {
            const double d = std::hypot(g.xAt(x) - pt.x(), g.yAt(y) - pt.y());
            if (d >= best) continue;
            best = d;
            HitInfo h;
            h.title = s.label;
            h.fields = {{xName, formatValue(x, chart.xUnit)}, {yName, formatValue(y, chart.yUnit)}};
            hit = h;
        }
    return hit;
}

core::Result<PreparedPtr> PairedMetricScatterPlot::prepare(const RunSet& runs, const ParamValues& values,
                                                           const core::CancelToken& cancel,
                                                           const core::ProgressFn&) const {
    if (cancel.cancelled()) return cancelledError();
    auto series = pairedSeries(runs, m_x(values), m_y(values), cancel);
    if (!series) return series.error();
    auto p = std::make_shared<TelemetryPrepared>();
    p->series = std::move(series.value());
    p->messages = missingRunMessages(runs, p->series, fmt::format("samples with both {} and {}", m_x(values), m_y(values)));
    for (const auto& r : runs) p->runLabels.push_back(r.label);
    return PreparedPtr(p);
}

std::optional<std::string> PairedMetricScatterPlot::emptyMessage(const Prepared& prepared,
                                                                 const ParamValues& values) const {
    const auto* p = dynamic_cast<const TelemetryPrepared*>(&prepared);
    if (!p || !p->series.empty()) return std::nullopt;
    return fmt::format("no telemetry samples with both {} and {} at the same instant", m_x(values), m_y(values));
}

void PairedMetricScatterPlot::draw(Canvas& c, const Prepared& prepared, const ParamValues& values) const {
    if (const auto* p = dynamic_cast<const TelemetryPrepared*>(&prepared)) drawScatter(c, chart(*p, values), p->series);
}

std::optional<HitInfo> PairedMetricScatterPlot::hitTest(const Prepared& prepared, const ParamValues& values,
                                                        const QRectF& rect, QPointF pt) const {
    const auto* p = dynamic_cast<const TelemetryPrepared*>(&prepared);
    if (!p) return std::nullopt;
    return hitScatter(chart(*p, values), p->series, rect, pt, m_x(values), m_y(values));
}

}  // namespace strobe::plots
