// Counter timeline: one derived metric or hardware counter per kernel dispatch over device time — a point at each
// dispatch's start, joined as a step line, one series per GPU lane (rank, device) and run. Each run is drawn from
// its own first kernel (runs recorded at different times compare by elapsed device time).

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <tuple>
#include <set>

#include <fmt/format.h>

#include "plots/analysis_plot.h"
#include "plots/counter_metrics.h"
#include "plots/plot_registry.h"
#include "plots/telemetry_plot.h"

namespace strobe::plots {
namespace {

const EnumParam kCounterTimelineMetric =
    EnumParam{"metric", "Metric", "Derived metric or raw counter (auto: HBM bandwidth, else the first the data has)",
              kAutoMetric};
const RegexParam kFilter =
    RegexParam{"filter", "Kernel filter", "Only kernels whose name matches this regular expression (empty: all)", ""};

struct CounterTimelineTimelinePrepared final : Prepared {
    std::string metric;
    std::vector<TelemetrySeries> series;        // points: (ns since the run's first kernel, value)
    std::vector<std::vector<std::string>> names;  // kernel name of each point
    core::Table table;
    size_t bytes() const override {
        size_t b = sizeof(*this) + table.rows.size() * 7 * sizeof(core::Cell);
        for (const auto& s : series) b += s.points.size() * (sizeof(s.points[0]) + 48);
        return b;
    }
};

class CounterTimelinePlot final : public ChartPlot<CounterTimelineTimelinePrepared> {
public:
    CounterTimelinePlot()
        : ChartPlot(
              {"counter-timeline", "Counter timeline",
               "One derived metric or hardware counter per kernel dispatch over device time, one series per GPU and "
               "run.",
               97}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        return {kCounterTimelineMetric.spec(metricChoices(runs)), ranksSpec(runs), kFilter.spec()};
    }

    core::Result<std::shared_ptr<CounterTimelineTimelinePrepared>> prepareTyped(
        const RunSet& runs, const ParamValues& values, const core::CancelToken& cancel,
        const core::ProgressFn&) const override {
        auto p = std::make_shared<CounterTimelineTimelinePrepared>();
        p->metric =
            resolveMetric(kCounterTimelineMetric(values), availableMetrics(runs), {"hbm_bandwidth_gbs", "l2_hit_pct"});
        auto vals = kernelValues(runs, kRanks(values), p->metric, cancel);
        if (cancel.cancelled()) return cancelledError();
        const std::string filter = kFilter(values);
        std::optional<std::regex> re;
        if (!filter.empty()) re.emplace(filter, std::regex::ECMAScript | std::regex::icase);
        auto& t = p->table;
        t.columns = {"run", "rank", "device", "kernel", "start_ns", "elapsed_ns", p->metric.empty() ? "value" : p->metric};
        t.messages = counterMessages(runs);
        std::set<int> ranks;
        for (const auto& v : vals) ranks.insert(v.rank);
        for (size_t run = 0; run < runs.size(); ++run) {
            // (rank, device) → points; each run's origin is its first kernel with a value.
            std::map<std::pair<int, int>, std::vector<std::tuple<int64_t, double, std::string>>> lanes;
            int64_t origin = std::numeric_limits<int64_t>::max();
            for (const auto& v : vals) {
                if (v.run != run) continue;
                const auto& r = *runs[run].dataset->rank(v.rank);
                std::string name(r.strings.view(r.gpu.name[v.gpuRow]));
                if (re && !std::regex_search(name, *re)) continue;
                origin = std::min(origin, r.gpu.ts[v.gpuRow]);
                lanes[{v.rank, r.gpu.device[v.gpuRow]}].emplace_back(r.gpu.ts[v.gpuRow], v.value, std::move(name));
            }
            if (lanes.empty()) {
                if (!p->metric.empty())
                    t.messages.push_back(fmt::format("{}: no kernel{} has {}", runs[run].label,
                                                     re ? " matching the filter" : "", p->metric));
                continue;
            }
            for (auto& [key, pts] : lanes) {
                std::stable_sort(pts.begin(), pts.end(), [](auto& a, auto& b) { return std::get<0>(a) < std::get<0>(b); });
                TelemetrySeries s;
                s.run = run;
                s.device = key.second;
                const std::string where = ranks.size() > 1 ? fmt::format("rank {} · GPU {}", key.first, key.second)
                                                           : fmt::format("GPU {}", key.second);
                s.label = runs.size() == 1 ? where : lanes.size() == 1 ? runs[run].label : runs[run].label + " · " + where;
                std::vector<std::string> names;
                for (auto& [ts, value, name] : pts) {
                    s.points.push_back({double(ts - origin), value});
                    t.addRow({runs[run].label, int64_t(key.first), int64_t(key.second), name, ts, ts - origin, value});
                    names.push_back(std::move(name));
                }
                p->series.push_back(std::move(s));
                p->names.push_back(std::move(names));
            }
        }
        if (p->metric.empty()) t.messages.push_back("the runs have no hardware counters or derived metrics to draw");
        return p;
    }

    std::optional<std::string> nothingToDraw(const CounterTimelineTimelinePrepared& p,
                                             const ParamValues&) const override {
        if (!p.series.empty()) return std::nullopt;
        return emptyReason(p.table.messages, "no kernel has a value for the metric");
    }

    std::optional<ChartData> chartOf(const CounterTimelineTimelinePrepared& p, const ParamValues&) const override {
        ChartData d;
        d.kind = ChartData::Kind::Lines;
        d.title = title();
        d.subtitle = subtitle(p);
        d.valueUnit = metricIsPercent(p.metric) ? ChartData::Unit::Percent : ChartData::Unit::Number;
        d.valueLabel = metricLabel(p.metric);
        d.xUnit = ChartData::Unit::Duration;
        d.xLabel = "elapsed device time";
        for (size_t i = 0; i < p.series.size(); ++i)
            d.series.push_back({p.series[i].label, seriesColor(int(i)), {}, p.series[i].points});
        return d;
    }

    ChartLayout frame(Canvas& c, const CounterTimelineTimelinePrepared& p, const ParamValues&) const override {
        return layoutScatter(c, chart(p), p.series);
    }

    void drawMarks(Canvas& c, const ChartLayout& g, const CounterTimelineTimelinePrepared& p,
                   const ParamValues&) const override {
        drawAxes(c, g);
        auto& painter = c.painter;
        painter.save();
        painter.setRenderHint(QPainter::Antialiasing, true);
        painter.setClipRect(g.plot.adjusted(-4, -4, 4, 4));
        for (size_t i = 0; i < p.series.size(); ++i) {
            const QColor color = seriesColor(int(i));
            const auto& pts = p.series[i].points;
            QPolygonF steps;  // the value holds from one dispatch's start to the next one's
            for (size_t k = 0; k < pts.size(); ++k) {
                if (k > 0) steps << QPointF(g.xAt(pts[k].first), g.yAt(pts[k - 1].second));
                steps << QPointF(g.xAt(pts[k].first), g.yAt(pts[k].second));
            }
            QColor faint = color;
            faint.setAlpha(150);
            painter.setPen(QPen(faint, 1.2, seriesPenStyle(int(i))));
            painter.drawPolyline(steps);
            painter.setPen(QPen(color.darker(120), 1));
            painter.setBrush(color);
            const double radius = pts.size() > 400 ? 1.8 : 3;
            for (const auto& [x, y] : pts) painter.drawEllipse(QPointF(g.xAt(x), g.yAt(y)), radius, radius);
            painter.setBrush(Qt::NoBrush);
        }
        painter.restore();
    }

    std::optional<HitInfo> hitMarks(const ChartLayout& g, const CounterTimelineTimelinePrepared& p,
                                    const ParamValues&, QPointF pt) const override {
        double best = 8;
        std::optional<HitInfo> hit;
        for (size_t i = 0; i < p.series.size(); ++i)
            for (size_t k = 0; k < p.series[i].points.size(); ++k) {
                const auto [x, y] = p.series[i].points[k];
                const double d = std::hypot(g.xAt(x) - pt.x(), g.yAt(y) - pt.y());
                if (d >= best) continue;
                best = d;
                HitInfo h;
                h.title = p.names[i][k];
                h.fields = {{"series", p.series[i].label}, {"elapsed", formatDuration(x)}, {p.metric, formatNumber(y)}};
                h.itemRect = QRectF(g.xAt(x) - 4, g.yAt(y) - 4, 8, 8);
                hit = h;
            }
        return hit;
    }

    core::Table tableTyped(const CounterTimelineTimelinePrepared& p, const ParamValues&) const override {
        return p.table;
    }

private:
    static std::string subtitle(const CounterTimelineTimelinePrepared& p) {
        size_t n = 0;
        for (const auto& s : p.series) n += s.points.size();
        return fmt::format("{} per kernel dispatch ({} dispatches), at each dispatch's start; elapsed from each run's "
                           "first kernel",
                           p.metric.empty() ? "no metric" : p.metric, n);
    }
    ScatterChart chart(const CounterTimelineTimelinePrepared& p) const {
        ScatterChart c;
        c.title = title();
        c.subtitle = subtitle(p);
        c.xTitle = "elapsed device time";
        c.yTitle = metricLabel(p.metric);
        c.xUnit = TickUnit::Duration;
        c.yUnit = metricIsPercent(p.metric) ? TickUnit::Percent : TickUnit::Number;
        c.lines = true;
        return c;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(CounterTimelinePlot)

}  // namespace strobe::plots
