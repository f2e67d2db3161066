// Communication duration per collective type per configuration (issue 9): one violin (Gaussian KDE, Silverman's
// bandwidth, plots/density.h) per collective type and value of the colour axis (default: the first sweep axis
// that varies, else each configuration; repeats pooled). Measure "latency": each collective's duration on the rank
// that arrived last (the shortest kernel, the transfer without waiting: core/analysis/collectives.h); "kernel":
// every rank's kernel, waiting included. A white bar marks the median.

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/analysis/collectives.h"
#include "plots/chart.h"
#include "plots/density.h"
#include "plots/plot_registry.h"
#include "plots/sweep_axes.h"

namespace strobe::plots {
namespace {

constexpr int kPoints = 64;
const AxisParam kColor{"color", "Colour by", "Sweep axis of the violins' colours within a collective type", true};
const EnumParam kMeasure =
    EnumParam{"measure", "Measure",
              "latency: the shortest kernel among the ranks (no waiting); kernel: every rank's kernel", "latency"}
        .choices({"latency", "kernel"});
const BoolParam kLog = BoolParam{"log_scale", "Log scale", "Durations on a log10 axis", true}.drawOnly();

struct Violin {
    std::string type, color;
    std::vector<double> ns;  // sorted
    std::vector<std::tuple<size_t, int, double>> rows;  // run, rank, ns (table)
    std::vector<double> lin, log;  // densities over [min, max] on each scale
};

struct ViolinPrepared final : Prepared {
    std::string colorAxis, measure;
    std::vector<std::string> types, colors;  // x bands; colour values, sorted
    std::vector<Violin> violins;             // by (type, colour) in that order
    std::vector<std::string> runLabels, messages;
    size_t bytes() const override {
        size_t b = sizeof(*this);
        for (const auto& v : violins) b += v.ns.capacity() * 8 + v.rows.capacity() * 24 + 2 * kPoints * 8;
        return b;
    }
    const Violin* at(size_t type, size_t color) const {
        for (const auto& v : violins)
            if (v.type == types[type] && v.color == colors[color]) return &v;
        return nullptr;
    }
};

double q(const std::vector<double>& v, double p) {
    return v.empty() ? 0.0 : core::stats::quantile(std::span<const double>(v), p);
}

class CollectiveViolinPlot final : public ChartPlot<ViolinPrepared> {
public:
    CollectiveViolinPlot()
        : ChartPlot({"collective-violin", "Collective durations",
                     "Communication duration per collective type (all_reduce, all_gather, ...) per configuration: a "
                     "violin (kernel density) each, coloured by a sweep axis.",
                     131}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        return {kColor.spec(runs), kMeasure.spec(), kSkipSteps.spec(), kLog.spec(), kLegend.spec()};
    }

    core::Result<std::shared_ptr<ViolinPrepared>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                               const core::CancelToken& cancel,
                                                               const core::ProgressFn&) const override {
        auto p = std::make_shared<ViolinPrepared>();
        p->colorAxis = resolveAxisRoles(runs, kConfigurationAxis, kColor(values), kNoAxis).color;
        if (p->colorAxis.empty() && kColor(values) == kAutoAxis) p->colorAxis = kConfigurationAxis;
        p->measure = kMeasure(values);
        const bool latency = p->measure == "latency";
        std::map<std::pair<core::Collective, std::string>, Violin> by;
        for (size_t ri = 0; ri < runs.size(); ++ri) {
            if (cancel.cancelled()) return cancelledError();
            const auto& run = runs[ri];
            p->runLabels.push_back(run.label);
            if (!run.dataset) continue;
            const core::RunCollectives rc = core::runCollectives(run.dataset, int(kSkipSteps(values)));
            for (const auto& m : rc.messages) p->messages.push_back(run.label + ": " + m);
            const std::string color = p->colorAxis.empty() ? std::string("all runs") : axisValueOf(run, p->colorAxis);
            for (const auto& c : rc.instances) {
                Violin& v = by[{c.type, color}];
                v.type = std::string(core::toString(c.type));
                v.color = color;
                for (size_t k = 0; k < c.ranks.size(); ++k) {
                    if (latency && k != c.straggler) continue;
                    v.ns.push_back(double(c.ranks[k].dur));
                    v.rows.emplace_back(ri, c.ranks[k].rank, double(c.ranks[k].dur));
                }
            }
        }
        for (auto& [key, v] : by) {
            std::sort(v.ns.begin(), v.ns.end());
            if (std::find(p->types.begin(), p->types.end(), v.type) == p->types.end()) p->types.push_back(v.type);
            p->colors.push_back(v.color);
            v.lin = silvermanDensity(v.ns, v.ns.front(), v.ns.back(), kPoints);
            std::vector<double> logs;
            for (double x : v.ns) logs.push_back(std::log10(std::max(1.0, x)));
            v.log = silvermanDensity(logs, logs.front(), logs.back(), kPoints);
            p->violins.push_back(std::move(v));
        }
        sortAxisValues(p->colors);
        if (p->violins.empty()) p->messages.push_back("no communication kernel in these runs");
        return p;
    }

    std::optional<std::string> nothingToDraw(const ViolinPrepared& p, const ParamValues&) const override {
        if (!p.violins.empty()) return std::nullopt;
        return emptyReason(p.messages, "no communication kernel in these runs");
    }

    std::string subtitle(const ViolinPrepared& p) const {
        return fmt::format("{}; colour: {}", p.measure == "latency" ? "latency (kernel on the rank that arrived last)"
                                                                     : "every rank's kernel (waiting included)",
                           p.colorAxis.empty() ? std::string("none") : p.colorAxis);
    }

    // The title, the legend and the chart's layout.
    ChartLayout frame(Canvas& c, const ViolinPrepared& p, const ParamValues& values) const override {
        QRectF area = drawTitle(c, c.rect, title(), subtitle(p));
        std::vector<LegendEntry> legend;
        const bool named = p.colorAxis != kConfigurationAxis;
        for (size_t i = 0; i < p.colors.size(); ++i)
            legend.push_back({named ? p.colorAxis + "=" + p.colors[i] : p.colors[i], seriesColor(int(i))});
        // hitTest draws the legend too, on LayoutCanvas' scratch image: the same area is left for the chart.
        if (p.colors.size() > 1) area = drawLegend(c, area, legend, legendMode(values));
        double lo = 1e300, hi = 0;
        for (const auto& v : p.violins) {
            lo = std::min(lo, v.ns.front());
            hi = std::max(hi, v.ns.back());
        }
        ChartAxis y = kLog(values) ? ChartAxis::log(std::max(1.0, lo), std::max(1.0, hi), TickUnit::Duration, "duration")
                                   : ChartAxis::linear(0, hi * 1.05, TickUnit::Duration, "duration");
        return layoutChart(QFontMetricsF(c.painter.font()), area, ChartAxis::bandsOf(p.types, "collective"), y);
    }

    void drawMarks(Canvas& c, const ChartLayout& L, const ViolinPrepared& p, const ParamValues&) const override {
        drawAxes(c, L);
        const bool log = L.y.kind == ChartAxis::Kind::Log;
        auto& painter = c.painter;
        painter.setRenderHint(QPainter::Antialiasing, true);
        const double slot = L.bandSize(true) / double(std::max<size_t>(1, p.colors.size()));
        for (size_t t = 0; t < p.types.size(); ++t)
            for (size_t k = 0; k < p.colors.size(); ++k) {
                const Violin* v = p.at(t, k);
                if (!v) continue;
                const double cx = L.bandStart(true, t) + slot * (double(k) + 0.5), half = slot * 0.42;
                const auto& dens = log ? v->log : v->lin;
                const double lo = log ? std::log10(std::max(1.0, v->ns.front())) : v->ns.front();
                const double hi = log ? std::log10(std::max(1.0, v->ns.back())) : v->ns.back();
                auto yOf = [&](int i) {
                    const double at = lo + (hi - lo) * i / (kPoints - 1);
                    return L.yAt(log ? std::pow(10.0, at) : at);
                };
                QPolygonF poly;
                for (int i = 0; i < kPoints; ++i) poly << QPointF(cx - dens[size_t(i)] * half, yOf(i));
                for (int i = kPoints - 1; i >= 0; --i) poly << QPointF(cx + dens[size_t(i)] * half, yOf(i));
                const QColor color = seriesColor(int(k));
                QColor fill = color;
                fill.setAlpha(170);
                painter.setPen(QPen(color.darker(130), 1));
                painter.setBrush(fill);
                painter.drawPolygon(poly);
                const double my = L.yAt(std::max(log ? 1.0 : 0.0, q(v->ns, 0.5)));
                painter.setPen(QPen(Qt::white, 3));
                painter.drawLine(QPointF(cx - half * 0.5, my), QPointF(cx + half * 0.5, my));
                painter.setPen(QPen(c.theme().foreground, 1));
                painter.drawLine(QPointF(cx - half * 0.5, my), QPointF(cx + half * 0.5, my));
            }
        painter.setBrush(Qt::NoBrush);
    }

    std::optional<HitInfo> hitMarks(const ChartLayout& L, const ViolinPrepared& p, const ParamValues&,
                                    QPointF pt) const override {
        const auto band = L.bandAt(true, pt);
        if (!band || !L.plot.contains(pt)) return std::nullopt;
        const double slot = L.bandSize(true) / double(std::max<size_t>(1, p.colors.size()));
        const auto k = size_t(std::clamp((pt.x() - L.bandStart(true, *band)) / slot, 0.0, double(p.colors.size() - 1)));
        const Violin* v = p.at(*band, k);
        if (!v) return std::nullopt;
        double mean = 0;
        for (double x : v->ns) mean += x / double(v->ns.size());
        HitInfo h;
        h.title = v->type + " — " + v->color;
        h.fields = {{p.measure == "latency" ? "collectives" : "kernels", std::to_string(v->ns.size())},
                    {"median", formatDuration(q(v->ns, 0.5))},
                    {"mean", formatDuration(mean)},
                    {"p5 – p95", formatDuration(q(v->ns, 0.05)) + " – " + formatDuration(q(v->ns, 0.95))},
                    {"min – max", formatDuration(v->ns.front()) + " – " + formatDuration(v->ns.back())}};
        return h;
    }

    core::Table tableTyped(const ViolinPrepared& p, const ParamValues&) const override {
        core::Table t;
        t.columns = {"collective", "color", "run", "rank", "duration_ns"};
        t.messages = p.messages;
        for (const auto& v : p.violins)
            for (const auto& [run, rank, ns] : v.rows)
                t.addRow({v.type, v.color, p.runLabels[run], int64_t(rank), int64_t(ns)});
        return t;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(CollectiveViolinPlot)

}  // namespace strobe::plots
