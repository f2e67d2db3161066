// Counter CDF: the cumulative distribution of one derived metric (resources/derived_metrics.yaml) or raw hardware
// counter over the kernel dispatches of each run, one curve per run, each run's median marked. Answers "how are my
// kernels spread" (L2 hit rate, occupancy, bandwidth...) and, across runs, which configuration moved the whole
// distribution.

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "plots/analysis_plot.h"
#include "plots/chart.h"
#include "plots/counter_metrics.h"
#include "plots/plot_registry.h"

namespace strobe::plots {
namespace {

const EnumParam kMetric = EnumParam{"metric", "Metric",
                                    "Derived metric or raw counter (auto: L2 hit rate, else the first the data has)",
                                    kAutoMetric};
const BoolParam kLogScale = BoolParam{"log_scale", "Log scale", "Logarithmic value axis", false}.drawOnly();

struct Curve {
    std::string label;
    std::vector<double> values;  // sorted
    double median = 0;
};

struct CdfPrepared final : Prepared {
    std::string metric;
    std::vector<Curve> curves;  // runs with values, in run order
    core::Table table;          // run, rank, kernel, start_ns, value, cdf_pct
    size_t bytes() const override {
        size_t b = sizeof(*this) + table.rows.size() * 6 * sizeof(core::Cell);
        for (const auto& c : curves) b += c.values.size() * sizeof(double) + c.label.size();
        return b;
    }
};

// The median as numpy's default percentile: linear interpolation between the two middle values.
double medianOf(const std::vector<double>& sorted) {
    if (sorted.empty()) return NAN;
    const double pos = 0.5 * double(sorted.size() - 1);
    const size_t lo = size_t(std::floor(pos));
    const size_t hi = std::min(sorted.size() - 1, lo + 1);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - double(lo));
}

class CounterCdfPlot final : public ChartPlot<CdfPrepared> {
public:
    CounterCdfPlot()
        : ChartPlot(
              {"counter-cdf", "Counter CDF",
               "Cumulative distribution of one derived metric or hardware counter over the kernel dispatches, one "
               "curve per run, medians marked.",
               96}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        return {kMetric.spec(metricChoices(runs)), ranksSpec(runs), kLogScale.spec(), kLegend.spec()};
    }

    core::Result<std::shared_ptr<CdfPrepared>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                            const core::CancelToken& cancel,
                                                            const core::ProgressFn&) const override {
        auto p = std::make_shared<CdfPrepared>();
        p->metric = resolveMetric(kMetric(values), availableMetrics(runs), {"l2_hit_pct", "occupancy_pct"});
        auto vals = kernelValues(runs, kRanks(values), p->metric, cancel);
        if (cancel.cancelled()) return cancelledError();
        auto& t = p->table;
        t.columns = {"run", "rank", "kernel", "start_ns", p->metric.empty() ? "value" : p->metric, "cdf_pct"};
        t.messages = counterMessages(runs);
        for (size_t run = 0; run < runs.size(); ++run) {
            std::vector<const KernelValue*> mine;
            for (const auto& v : vals)
                if (v.run == run) mine.push_back(&v);
            if (mine.empty()) {
                if (!p->metric.empty()) t.messages.push_back(fmt::format("{}: no kernel has {}", runs[run].label, p->metric));
                continue;
            }
            std::stable_sort(mine.begin(), mine.end(), [](auto* a, auto* b) { return a->value < b->value; });
            Curve c;
            for (const auto* v : mine) c.values.push_back(v->value);
            c.median = medianOf(c.values);
            c.label = fmt::format("{} (median {})", runs[run].label, formatNumber(c.median));
            for (size_t i = 0; i < mine.size(); ++i) {
                const auto& r = *runs[run].dataset->rank(mine[i]->rank);
                t.addRow({runs[run].label, int64_t(mine[i]->rank), std::string(r.strings.view(r.gpu.name[mine[i]->gpuRow])),
                          int64_t(r.gpu.ts[mine[i]->gpuRow]), mine[i]->value, 100.0 * double(i + 1) / double(mine.size())});
            }
            p->curves.push_back(std::move(c));
        }
        if (p->metric.empty()) t.messages.push_back("the runs have no hardware counters or derived metrics to draw");
        return p;
    }

    std::optional<std::string> nothingToDraw(const CdfPrepared& p, const ParamValues&) const override {
        if (!p.curves.empty()) return std::nullopt;
        return emptyReason(p.table.messages, "no kernel has a value for the metric");
    }

    std::optional<ChartData> chartOf(const CdfPrepared& p, const ParamValues& values) const override {
        ChartData d;
        d.kind = ChartData::Kind::Lines;
        d.title = title();
        d.subtitle = subtitle(p);
        d.valueUnit = ChartData::Unit::Percent;
        d.valueLabel = "share of kernels ≤ x";
        d.xUnit = metricIsPercent(p.metric) ? ChartData::Unit::Percent : ChartData::Unit::Number;
        d.xLabel = metricLabel(p.metric);
        d.logX = kLogScale(values);
        for (size_t i = 0; i < p.curves.size(); ++i) {
            ChartData::Series s{p.curves[i].label, seriesColor(int(i)), {}, {}};
            const auto& v = p.curves[i].values;
            for (size_t k = 0; k < v.size(); ++k) s.points.push_back({v[k], 100.0 * double(k + 1) / double(v.size())});
            d.series.push_back(std::move(s));
        }
        return d;
    }

    void drawMarks(Canvas& c, const ChartLayout& g, const CdfPrepared& p, const ParamValues&) const override {
        drawAxes(c, g);
        auto& painter = c.painter;
        painter.save();
        painter.setRenderHint(QPainter::Antialiasing, true);
        painter.setClipRect(g.plot.adjusted(-6, -6, 6, 6));
        for (size_t i = 0; i < p.curves.size(); ++i) {
            const auto& cv = p.curves[i];
            const QColor color = seriesColor(int(i));
            QPolygonF line;  // a step function: each value raises the share by 1/n
            double prev = 0;
            for (size_t k = 0; k < cv.values.size(); ++k) {
                const double q = 100.0 * double(k + 1) / double(cv.values.size());
                line << QPointF(g.xAt(cv.values[k]), g.yAt(prev)) << QPointF(g.xAt(cv.values[k]), g.yAt(q));
                prev = q;
            }
            painter.setPen(QPen(color, 2, seriesPenStyle(int(i))));
            painter.drawPolyline(line);
            // The median: a dashed drop line and a dot on the 50 % level.
            const QPointF m(g.xAt(cv.median), g.yAt(50));
            painter.setPen(QPen(color, 1, Qt::DashLine));
            painter.drawLine(QPointF(m.x(), g.plot.bottom()), m);
            painter.setPen(QPen(color.darker(130), 1));
            painter.setBrush(color);
            painter.drawEllipse(m, 4.5, 4.5);
            painter.setBrush(Qt::NoBrush);
        }
        painter.restore();
    }

    std::optional<HitInfo> hitMarks(const ChartLayout& g, const CdfPrepared& p, const ParamValues&,
                                    QPointF pt) const override {
        // A median dot wins over the curve's points under it.
        for (const auto& cv : p.curves)
            if (std::hypot(g.xAt(cv.median) - pt.x(), g.yAt(50) - pt.y()) < 6) {
                HitInfo h;
                h.title = cv.label;
                h.fields = {{"median " + p.metric, formatNumber(cv.median)},
                            {"kernels", std::to_string(cv.values.size())}};
                return h;
            }
        double best = 8;
        std::optional<HitInfo> hit;
        for (const auto& cv : p.curves) {
            auto consider = [&](double x, double q, const std::string& what) {
                const double d = std::hypot(g.xAt(x) - pt.x(), g.yAt(q) - pt.y());
                if (d >= best) return;
                best = d;
                HitInfo h;
                h.title = cv.label;
                h.fields = {{what, formatNumber(x)}, {"share of kernels ≤ value", formatPercent(q)},
                            {"kernels", std::to_string(cv.values.size())}};
                hit = h;
            };
            for (size_t k = 0; k < cv.values.size(); ++k)
                consider(cv.values[k], 100.0 * double(k + 1) / double(cv.values.size()), p.metric);
        }
        return hit;
    }

    core::Table tableTyped(const CdfPrepared& p, const ParamValues&) const override { return p.table; }

private:
    static std::string subtitle(const CdfPrepared& p) {
        size_t n = 0;
        for (const auto& c : p.curves) n += c.values.size();
        return fmt::format("{} over {} kernel dispatches; dots: medians", p.metric.empty() ? "no metric" : p.metric, n);
    }

    ChartLayout frame(Canvas& c, const CdfPrepared& p, const ParamValues& v) const override {
        QRectF area = drawTitle(c, c.rect, title(), subtitle(p));
        std::vector<LegendEntry> legend;
        for (size_t i = 0; i < p.curves.size(); ++i)
            legend.push_back({p.curves[i].label, seriesColor(int(i)), true, seriesPenStyle(int(i))});
        area = drawLegend(c, area, legend, legendMode(v));
        double lo = INFINITY, hi = -INFINITY;
        for (const auto& cv : p.curves)
            if (!cv.values.empty()) lo = std::min(lo, cv.values.front()), hi = std::max(hi, cv.values.back());
        const bool pct = metricIsPercent(p.metric);
        const TickUnit unit = pct ? TickUnit::Percent : TickUnit::Number;
        ChartAxis x;
        if (kLogScale(v) && lo > 0) {
            x.kind = ChartAxis::Kind::Log;
            x.lo = std::floor(std::log10(lo));
            x.hi = std::max(x.lo + 1, std::ceil(std::log10(hi)));
            x.unit = unit;
            x.title = metricLabel(p.metric) + " (log scale)";
        } else {
            if (pct) lo = std::min(lo, 0.0), hi = std::max(hi, 100.0);
            const double pad = hi > lo ? (hi - lo) * 0.03 : std::max(1.0, std::abs(hi) * 0.1);
            x = ChartAxis::linear(pct ? lo : lo - pad, pct ? hi : hi + pad, unit, metricLabel(p.metric));
        }
        return layoutChart(QFontMetricsF(c.painter.font()), area, x,
                           ChartAxis::linear(0, 100, TickUnit::Percent, "share of kernels ≤ x"));
    }
};

}  // namespace

STROBE_REGISTER_PLOT(CounterCdfPlot)

}  // namespace strobe::plots
