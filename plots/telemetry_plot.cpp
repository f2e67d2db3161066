#include "plots/telemetry_plot.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "core/formats/telemetry_metrics.h"

namespace strobe::plots {

size_t TelemetryPrepared::bytes() const {
    size_t b = sizeof(*this);
    for (const auto& s : series) b += s.label.size() + s.points.size() * sizeof(s.points[0]) + sizeof(s);
    return b;
}

namespace {

std::string seriesLabel(const RunSet& runs, size_t run, int rank, int device, size_t seriesInRun, bool manyRanks) {
    const std::string gpu = device >= 0 ? fmt::format("GPU {}", device) : std::string("host");
    const std::string where = !manyRanks ? gpu
                              : rank >= 0 ? fmt::format("rank {} · {}", rank, gpu)
                                          : fmt::format("host telemetry · {}", gpu);
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
        for (const core::RankData* r : runs[run].dataset->sampleSources())
            for (size_t i = 0; i < r->samples.size(); ++i) origin = std::min(origin, r->samples.ts[i]);
        std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> byDevice;  // (rank, device)
        for (const core::RankData* r : runs[run].dataset->sampleSources()) {
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
        for (const core::RankData* r : runs[run].dataset->sampleSources()) {
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

TelemetryMetrics telemetryMetrics(const RunSet& runs) {
    std::vector<std::string> seen;  // every metric, in the order the sources name them
    std::set<std::string> hostWide;
    for (const auto& run : runs) {
        if (!run.dataset) continue;
        for (const core::RankData* r : run.dataset->sampleSources()) {
            const auto& s = r->samples;
            std::vector<uint8_t> state(r->strings.size(), 0);  // per string id: 1 seen, 2 seen host-wide
            for (size_t i = 0; i < s.size(); ++i) {
                const core::StrId id = s.metric[i];
                if (id >= state.size()) continue;
                const uint8_t want = s.device[i] < 0 ? 2 : 1;
                if (state[id] >= want) continue;
                const std::string name(r->strings.view(id));
                if (state[id] == 0 && std::find(seen.begin(), seen.end(), name) == seen.end()) seen.push_back(name);
                if (want == 2) hostWide.insert(name);
                state[id] = want;
            }
        }
    }
    TelemetryMetrics m;
    for (std::string_view known : core::telemetry::knownMetrics())
        if (std::find(seen.begin(), seen.end(), known) != seen.end()) m.all.emplace_back(known);
    for (const std::string& name : seen)
        if (!core::telemetry::isKnownMetric(name)) m.all.push_back(name);
    for (const std::string& name : m.all)
        if (core::telemetry::isKnownMetric(name) || hostWide.count(name)) m.shown.push_back(name);
    return m;
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
QColor colorOf(const ScatterChart& chart, size_t i) {
    return i < chart.colors.size() ? chart.colors[i] : seriesColor(int(i));
}
Qt::PenStyle styleOf(const ScatterChart& chart, size_t i) {
    return i < chart.styles.size() ? chart.styles[i] : seriesPenStyle(int(i));
}

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
        legend.push_back({i < chart.legend.size() ? chart.legend[i] : series[i].label, colorOf(chart, i), chart.lines,
                          styleOf(chart, i)});
    area = drawLegend(c, area, legend);
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    for (const auto& s : series)
        for (auto [x, y] : s.points) {
            xlo = std::min(xlo, x), xhi = std::max(xhi, x);
            ylo = std::min(ylo, y), yhi = std::max(yhi, y);
        }
    auto [x0, x1] = padded(xlo, xhi, chart.lines);
    auto [y0, y1] = padded(ylo, yhi, chart.yFromZero);
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
        const QColor color = colorOf(chart, i);
        if (chart.lines) {
            QPolygonF line;
            for (auto [x, y] : series[i].points) line << QPointF(g.xAt(x), g.yAt(y));
            p.setPen(QPen(color, 2, styleOf(chart, i)));
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

std::vector<QRectF> panelRects(const QRectF& area, size_t n, double gap) {
    std::vector<QRectF> out;
    if (n == 0) return out;
    const size_t cols = n <= 3 ? 1 : 2;
    const size_t rows = (n + cols - 1) / cols;
    const double w = (area.width() - gap * double(cols - 1)) / double(cols);
    const double h = (area.height() - gap * double(rows - 1)) / double(rows);
    for (size_t i = 0; i < n; ++i) {
        const size_t r = i / cols, col = i % cols;
        out.emplace_back(area.left() + double(col) * (w + gap), area.top() + double(r) * (h + gap), std::max(0.0, w),
                         std::max(0.0, h));
    }
    return out;
}

std::optional<int> coreOfMetric(std::string_view metric) {
    constexpr std::string_view kPrefix = "cpu", kSuffix = ".util_pct";
    if (metric.size() <= kPrefix.size() + kSuffix.size() || metric.substr(0, kPrefix.size()) != kPrefix ||
        metric.substr(metric.size() - kSuffix.size()) != kSuffix)
        return std::nullopt;
    const std::string_view digits = metric.substr(kPrefix.size(), metric.size() - kPrefix.size() - kSuffix.size());
    if (digits.size() > 6) return std::nullopt;
    int core = 0;
    for (char ch : digits) {
        if (ch < '0' || ch > '9') return std::nullopt;
        core = core * 10 + (ch - '0');
    }
    return core;
}

core::Result<CoreUtilisation> coreUtilisation(const core::Dataset& ds, const core::CancelToken& cancel) {
    std::map<int, std::map<int64_t, double>> byCore;  // core → ts → pct
    for (const core::RankData* r : ds.sampleSources()) {
        if (cancel.cancelled()) return cancelledError();
        std::vector<int> coreOfId(r->strings.size(), -1);
        bool any = false;
        for (size_t id = 0; id < r->strings.size(); ++id)
            if (auto c = coreOfMetric(r->strings.view(core::StrId(id)))) {
                coreOfId[id] = *c;
                any = true;
            }
        if (!any) continue;
        const auto& s = r->samples;
        for (size_t i = 0; i < s.size(); ++i)
            if (s.device[i] == -1 && s.metric[i] < coreOfId.size() && coreOfId[s.metric[i]] >= 0)
                byCore[coreOfId[s.metric[i]]][s.ts[i]] = s.value[i];
    }
    CoreUtilisation u;
    std::set<int64_t> times;
    for (const auto& [c, values] : byCore)
        for (const auto& [ts, v] : values) times.insert(ts);
    u.ts.assign(times.begin(), times.end());
    for (const auto& [c, values] : byCore) {
        u.cores.push_back(c);
        auto& row = u.pct.emplace_back(u.ts.size(), NAN);
        for (const auto& [ts, v] : values)
            row[size_t(std::lower_bound(u.ts.begin(), u.ts.end(), ts) - u.ts.begin())] = v;
    }
    return u;
}

namespace {

struct GroupedGeometry {
    ChartLayout layout;
    double slot = 0;  // width of one series' bar
};

GroupedGeometry groupedGeometry(Canvas& c, const QRectF& area, const GroupedBars& bars) {
    double hi = 0;
    for (size_t b = 0; b < bars.values.size(); ++b)
        for (size_t s = 0; s < bars.values[b].size(); ++s) {
            if (std::isfinite(bars.values[b][s])) hi = std::max(hi, bars.values[b][s]);
            if (b < bars.whiskers.size() && s < bars.whiskers[b].size() && std::isfinite(bars.whiskers[b][s].second))
                hi = std::max(hi, bars.whiskers[b][s].second);
        }
    GroupedGeometry g;
    g.layout = layoutChart(QFontMetricsF(c.painter.font()), area, ChartAxis::bandsOf(bars.bands),
                           ChartAxis::linear(0, hi > 0 ? hi * 1.12 : 1.0, TickUnit::Number, bars.valueTitle));
    const double band = g.layout.bandSize(true);
    g.slot = std::min(band * 0.8 / double(std::max<size_t>(1, bars.series.size())), 70.0);
    return g;
}

QRectF barRect(const GroupedGeometry& g, const GroupedBars& bars, size_t b, size_t s) {
    const double band = g.layout.bandSize(true);
    const double left = g.layout.bandStart(true, b) + (band - g.slot * double(bars.series.size())) / 2 + g.slot * double(s);
    const double v = bars.values[b][s];
    return QRectF(QPointF(left + 1, g.layout.yAt(v)), QPointF(left + g.slot - 1, g.layout.yAt(0)));
}

}  // namespace

ChartLayout layoutGroupedBars(Canvas& c, const QRectF& area, const GroupedBars& bars) {
    return groupedGeometry(c, area, bars).layout;
}

void drawGroupedBars(Canvas& c, const QRectF& area, const GroupedBars& bars) {
    const GroupedGeometry g = groupedGeometry(c, area, bars);
    drawAxes(c, g.layout);
    auto& p = c.painter;
    const Theme t = c.theme();
    const QFontMetricsF fm(p.font());
    for (size_t b = 0; b < bars.values.size() && b < bars.bands.size(); ++b)
        for (size_t s = 0; s < bars.values[b].size() && s < bars.series.size(); ++s) {
            const double v = bars.values[b][s];
            if (!std::isfinite(v)) continue;
            const QRectF r = barRect(g, bars, b, s);
            p.fillRect(r, s < bars.colors.size() ? bars.colors[s] : seriesColor(int(s)));
            double top = r.top();
            if (b < bars.whiskers.size() && s < bars.whiskers[b].size() && std::isfinite(bars.whiskers[b][s].first)) {
                const auto [lo, hi] = bars.whiskers[b][s];
                const double cx = r.center().x(), half = std::min(8.0, r.width() / 3);
                p.setPen(QPen(t.foreground, 1.5));
                p.drawLine(QPointF(cx, g.layout.yAt(lo)), QPointF(cx, g.layout.yAt(hi)));
                p.drawLine(QPointF(cx - half, g.layout.yAt(lo)), QPointF(cx + half, g.layout.yAt(lo)));
                p.drawLine(QPointF(cx - half, g.layout.yAt(hi)), QPointF(cx + half, g.layout.yAt(hi)));
                top = std::min(top, g.layout.yAt(hi));
            }
            const QString text = QString::fromStdString(formatNumber(v) + bars.valueSuffix);
            const double w = fm.horizontalAdvance(text);
            if (w <= g.slot + 6 && top - fm.height() - 2 >= g.layout.plot.top() - 2) {
                p.setPen(t.muted);
                p.drawText(QRectF(r.center().x() - w / 2 - 2, top - fm.height() - 2, w + 4, fm.height()),
                           Qt::AlignHCenter | Qt::AlignBottom, text);
            }
        }
}

std::optional<std::pair<size_t, size_t>> groupedBarAt(const QRectF& area, const GroupedBars& bars, QPointF pt) {
    LayoutCanvas lc(area);
    const GroupedGeometry g = groupedGeometry(lc.canvas, area, bars);
    for (size_t b = 0; b < bars.values.size() && b < bars.bands.size(); ++b)
        for (size_t s = 0; s < bars.values[b].size() && s < bars.series.size(); ++s) {
            if (!std::isfinite(bars.values[b][s])) continue;
            QRectF r = barRect(g, bars, b, s);
            if (b < bars.whiskers.size() && s < bars.whiskers[b].size() && std::isfinite(bars.whiskers[b][s].second))
                r.setTop(std::min(r.top(), g.layout.yAt(bars.whiskers[b][s].second)));
            if (r.adjusted(-1, -3, 1, 1).contains(pt)) return std::make_pair(b, s);
        }
    return std::nullopt;
}

core::Result<std::shared_ptr<TelemetryPrepared>> PairedMetricScatterPlot::prepareTyped(const RunSet& runs,
                                                                                       const ParamValues& values,
                                                                                       const core::CancelToken& cancel,
                                                                                       const core::ProgressFn&) const {
    if (cancel.cancelled()) return cancelledError();
    auto series = pairedSeries(runs, m_x(values), m_y(values), cancel);
    if (!series) return series.error();
    auto p = std::make_shared<TelemetryPrepared>();
    p->series = std::move(series.value());
    p->messages = missingRunMessages(runs, p->series, fmt::format("samples with both {} and {}", m_x(values), m_y(values)));
    for (const auto& r : runs) p->runLabels.push_back(r.label);
    return p;
}

std::optional<std::string> PairedMetricScatterPlot::emptyMessageTyped(const TelemetryPrepared& p,
                                                                      const ParamValues& values) const {
    if (!p.series.empty()) return std::nullopt;
    return fmt::format("no telemetry samples with both {} and {} at the same instant", m_x(values), m_y(values));
}

void PairedMetricScatterPlot::drawTyped(Canvas& c, const TelemetryPrepared& p, const ParamValues& values) const {
    drawScatter(c, chart(p, values), p.series);
}

std::optional<HitInfo> PairedMetricScatterPlot::hitTestTyped(const TelemetryPrepared& p, const ParamValues& values,
                                                             const QRectF& rect, QPointF pt) const {
    return hitScatter(chart(p, values), p.series, rect, pt, m_x(values), m_y(values));
}

}  // namespace strobe::plots
