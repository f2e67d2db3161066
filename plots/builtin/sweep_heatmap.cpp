// A metric of a sweep over two of its parameters (issue 9): one cell per (x value, y value), coloured on a
// sequential scale (a diverging one around 0 for a change in %), the value printed where it fits. Metrics: the
// median end-to-end step time (plots/step_times.h; the steps of every run in the cell pooled); one kernel group's
// GPU time per step (core::compareSweep: the mean over the kept steps of every configuration in the cell); that
// group's change vs a baseline configuration in % (compareSweep's delta; the mean of the cell's configurations).
// Configurations that differ in a third parameter share a cell: the subtitle names the pooled parameters.

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "core/analysis/context.h"
#include "core/analysis/sweep_compare.h"
#include "plots/chart.h"
#include "plots/plot_registry.h"
#include "plots/step_times.h"
#include "plots/sweep_axes.h"
#include "plots/sweep_marks.h"

namespace strobe::plots {
namespace {

const EnumParam kSweepHeatmapMetric =
    EnumParam{"cell_value", "Cell value",
              "step_median: median end-to-end step time; group_per_step: a kernel group's GPU time per step; "
              "delta_pct: that group's change in % vs the baseline configuration",
              "step_median"}
        .choices({"step_median", "group_per_step", "delta_pct"})
        .formerKey("metric");  // before issue 32: "metric" meant three things across the plots
const AxisParam kSweepHeatmapXAxis{"x_axis", "X axis", "Sweep parameter along x ((auto): the first one that varies)",
                                   false};
const AxisParam kYAxis{"y_axis", "Y axis", "Sweep parameter along y ((auto): the next one that varies)", true};
const StringParam kSweepHeatmapGroup{
    "group", "Kernel group",
    "The group of group_per_step and delta_pct, as grouped (empty: the one with the most GPU "
    "time per step over all configurations)",
    ""};
const EnumParam kBaseline{"baseline", "Baseline", "The configuration delta_pct compares with", ""};
struct HeatCell {
    bool filled = false;
    double value = 0;
    size_t samples = 0;  // steps pooled (step_median, group_per_step) or configurations averaged (delta_pct)
    std::vector<std::string> configs;
    std::vector<double> pool;  // while preparing
    bool baseline = false, significant = false;
};

struct HeatmapPrepared final : Prepared {
    std::string metric, group, groupBy, baseline;
    AxisRoles roles;  // x and y (the colour role)
    std::vector<std::string> pooled;
    std::vector<std::string> xs, ys;
    std::vector<std::vector<HeatCell>> cells;  // [y][x]
    std::vector<std::string> messages;
    double lo = 0, hi = 0;
    size_t bytes() const override { return sizeof(*this) + xs.size() * ys.size() * 128; }
    bool delta() const { return metric == "delta_pct"; }
    bool any() const {
        for (const auto& row : cells)
            for (const auto& c : row)
                if (c.filled) return true;
        return false;
    }
};

size_t indexOf(const std::vector<std::string>& v, const std::string& s) {
    return size_t(std::find(v.begin(), v.end(), s) - v.begin());
}

// Fills cells from compareSweep's rows of the group (group_per_step, delta_pct).
void fillFromComparison(HeatmapPrepared& p, const RunSet& runs, const core::SweepComparison& cmp) {
    for (const auto& row : cmp.rows) {
        if (row.group != p.group) continue;
        const auto run = std::find_if(runs.begin(), runs.end(), [&](const RunEntry& r) {
            return configurationLabel(r) == row.config;
        });
        if (run == runs.end()) continue;
        HeatCell& c = p.cells[indexOf(p.ys, axisValueOf(*run, p.roles.color))][indexOf(p.xs, axisValueOf(*run, p.roles.x))];
        c.configs.push_back(row.config);
        if (!p.delta()) {
            c.pool.insert(c.pool.end(), row.stepsNs.begin(), row.stepsNs.end());
        } else if (row.config == p.baseline) {
            c.baseline = true;
            c.pool.push_back(0.0);
        } else if (row.deltaPct) {
            c.pool.push_back(*row.deltaPct);
            c.significant = c.significant || row.significant;
        }
    }
}

// The baseline choice: the configurations, by default the documented default baseline (the first configuration in
// axis order, core::defaultSweepBaseline; "(first)" alone while there are no runs).
ParamSpec baselineSpec(std::vector<std::string> configs, const std::string& preferred) {
    if (configs.empty()) configs.push_back("(first)");
    const bool known = std::find(configs.begin(), configs.end(), preferred) != configs.end();
    const std::string first = known ? preferred : configs.front();
    return kBaseline.withDefault(first).spec(std::move(configs));
}

class SweepHeatmapPlot final : public TypedPlot<HeatmapPrepared> {
public:
    SweepHeatmapPlot()
        : TypedPlot({"sweep-heatmap", "Sweep heatmap",
                     "A metric over two sweep parameters: the median step time, a kernel group's GPU time per step, or "
                     "its change vs a baseline configuration, one cell per pair of values.",
                     123}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        const auto configs = sweepConfigurations(runs);
        return {kSweepHeatmapMetric.spec(), kSweepHeatmapXAxis.spec(runs), kYAxis.spec(runs), kSweepGroupBy.spec(),
                kSweepHeatmapGroup.spec(),  baselineSpec(configs, defaultBaselineConfiguration(runs)),
                kSkipSteps.spec()};
    }

    core::Result<std::shared_ptr<HeatmapPrepared>> prepareTyped(const RunSet& all, const ParamValues& values,
                                                                const core::CancelToken& cancel,
                                                                const core::ProgressFn&) const override {
        auto p = std::make_shared<HeatmapPrepared>();
        p->metric = kSweepHeatmapMetric(values);
        p->groupBy = kSweepGroupBy(values);
        RunSet runs, loaded;
        for (const auto& r : all) {
            if (r.dataset) loaded.push_back(r);
            if (r.dataset && hasProfilerSteps(*r.dataset))
                runs.push_back(r);
            else if (r.dataset)
                p->messages.push_back(r.label + ": no ProfilerStep#N");
        }
        // A group's time (group_per_step, delta_pct) comes from compareSweep, which counts a run without
        // ProfilerStep#N as one step, its whole trace (rocprof sweeps): with no run having steps, every run counts.
        if (runs.empty() && p->metric != "step_median" && !loaded.empty()) {
            runs = loaded;
            p->messages = {"no ProfilerStep#N in these runs: each run counts as one step (its whole trace)"};
        }
        if (runs.empty()) return p;
        p->roles = resolveAxisRoles(runs, kSweepHeatmapXAxis(values), kYAxis(values), kNoAxis);
        if (p->roles.x != kConfigurationAxis && p->roles.color != kConfigurationAxis)
            for (const auto& a : varyingAxes(runs))
                if (a != p->roles.x && a != p->roles.color) p->pooled.push_back(a);
        for (const auto& r : runs) {
            p->xs.push_back(axisValueOf(r, p->roles.x));
            p->ys.push_back(axisValueOf(r, p->roles.color));
        }
        sortAxisValues(p->xs);
        sortAxisValues(p->ys);
        p->cells.assign(p->ys.size(), std::vector<HeatCell>(p->xs.size()));
        if (p->metric == "step_median") {
            for (const auto& r : runs) {
                if (cancel.cancelled()) return cancelledError();
                HeatCell& c = p->cells[indexOf(p->ys, axisValueOf(r, p->roles.color))][indexOf(p->xs, axisValueOf(r, p->roles.x))];
                for (const auto& [n, ns] : endToEndStepTimes(*r.dataset, kSkipSteps(values))) c.pool.push_back(ns);
                const std::string config = configurationLabel(r);
                if (std::find(c.configs.begin(), c.configs.end(), config) == c.configs.end()) c.configs.push_back(config);
            }
        } else {
            core::SweepCompareOptions o;
            if (auto st = sweepGroupBy(values, o.groupBy, o.groupRegex); !st) return st.error();
            o.skipSteps = int(kSkipSteps(values));
            if (p->delta()) {
                const auto configs = sweepConfigurations(runs);
                p->baseline = kBaseline(values);
                if (std::find(configs.begin(), configs.end(), p->baseline) == configs.end()) p->baseline = configs.front();
                o.baseline = firstRunOf(runs, p->baseline);
            }
            const auto cmp = core::compareSweep(byConfigurationLabel(runs), o);
            if (cancel.cancelled()) return cancelledError();
            p->group = kSweepHeatmapGroup(values).empty() ? largestSweepGroup(cmp) : kSweepHeatmapGroup(values);
            fillFromComparison(*p, runs, cmp);
            if (p->group.empty()) p->messages.push_back("no GPU kernels in the profiler steps of these runs");
        }
        finish(*p);
        return p;
    }

    // Each cell's value from its pool: the median of steps, the mean per step, the mean of deltas.
    static void finish(HeatmapPrepared& p) {
        bool first = true;
        for (auto& row : p.cells)
            for (auto& c : row) {
                if (c.pool.empty()) continue;
                std::sort(c.pool.begin(), c.pool.end());
                c.samples = c.pool.size();
                if (p.metric == "step_median") {
                    c.value = core::stats::quantile(std::span<const double>(c.pool), 0.5);
                } else {
                    c.value = 0;
                    for (double v : c.pool) c.value += v / double(c.pool.size());
                }
                c.filled = true;
                c.pool.clear();
                p.lo = first ? c.value : std::min(p.lo, c.value);
                p.hi = first ? c.value : std::max(p.hi, c.value);
                first = false;
            }
        if (!first) return;
        if (p.metric == "step_median")
            p.messages.push_back("no ProfilerStep#N in these runs");
        else if (!p.group.empty())
            p.messages.push_back(fmt::format("no kernel group '{}' (grouped by {})", p.group, p.groupBy));
    }

    std::optional<std::string> emptyMessageTyped(const HeatmapPrepared& p, const ParamValues&) const override {
        if (p.any()) return std::nullopt;
        return emptyReason(p.messages, "no profiler steps in these runs");
    }

    static std::string metricText(const HeatmapPrepared& p) {
        if (p.metric == "step_median") return "median step time";
        if (p.metric == "group_per_step") return fmt::format("GPU time per step of {} (by {})", p.group, p.groupBy);
        return fmt::format("change in GPU time per step of {} (by {}) vs {}", p.group, p.groupBy, p.baseline);
    }

    static std::string cellText(const HeatmapPrepared& p, const HeatCell& c) {
        // "base" only where the cell is the baseline alone; pooled with others it shows their mean (the baseline as 0).
        if (p.delta() && c.baseline && c.samples == 1) return "base";
        if (p.delta()) return fmt::format("{:+.1f}%{}", c.value, c.significant ? "*" : "");
        return formatDuration(c.value);
    }

    // The chart left of the colour bar; `bar` gets the colour bar's rectangle.
    static ChartLayout layout(const HeatmapPrepared& p, Canvas& c, QRectF& bar) {
        std::string sub = metricText(p);
        if (!p.pooled.empty()) {
            std::string axes;
            for (const auto& a : p.pooled) axes += (axes.empty() ? "" : ", ") + a;
            sub += " · cells pool the configurations of " + axes;
        }
        if (p.delta()) sub += " · * significant";
        const QRectF area = drawTitle(c, c.rect, "Sweep heatmap", sub);
        const QFontMetricsF fm(c.painter.font());
        const double barRoom = 30 + std::max(fm.horizontalAdvance(QString::fromStdString(barLabel(p, p.lo))),
                                             fm.horizontalAdvance(QString::fromStdString(barLabel(p, p.hi)))) + 12;
        std::vector<std::string> ys = p.ys;
        if (p.roles.color.empty()) ys = {"(all)"};
        ChartLayout L = layoutChart(fm, area.adjusted(0, 0, -barRoom, 0), ChartAxis::bandsOf(p.xs, p.roles.x),
                                    ChartAxis::bandsOf(ys, p.roles.color));
        bar = QRectF(L.plot.right() + 16, L.plot.top(), 14, L.plot.height());
        return L;
    }

    static std::string barLabel(const HeatmapPrepared& p, double v) {
        return p.delta() ? fmt::format("{:+.1f}%", v) : formatDuration(v);
    }

    static QColor colorOf(const HeatmapPrepared& p, double v) {
        if (p.delta()) {
            const double m = std::max(std::fabs(p.lo), std::fabs(p.hi));
            return divergingColor(m > 0 ? v / m : 0.0);
        }
        return sequentialColor(p.hi > p.lo ? (v - p.lo) / (p.hi - p.lo) : 0.5);
    }

    void drawTyped(Canvas& c, const HeatmapPrepared& p, const ParamValues&) const override {
        if (!p.any()) return;
        QRectF bar;
        const ChartLayout L = layout(p, c, bar);
        drawAxes(c, L);
        auto& painter = c.painter;
        const QFontMetricsF fm(painter.font());
        const double bw = L.bandSize(true), bh = L.bandSize(false);
        for (size_t y = 0; y < p.ys.size(); ++y)
            for (size_t x = 0; x < p.xs.size(); ++x) {
                const HeatCell& cell = p.cells[y][x];
                if (!cell.filled) continue;
                const QRectF r(L.bandStart(true, x) + 1, L.bandStart(false, y) + 1, bw - 2, bh - 2);
                const QColor fill = colorOf(p, cell.value);
                painter.fillRect(r, fill);
                const QString text = QString::fromStdString(cellText(p, cell));
                if (fm.horizontalAdvance(text) + 6 <= r.width() && fm.height() + 2 <= r.height()) {
                    painter.setPen(textColorOn(fill));
                    painter.drawText(r, Qt::AlignCenter, text);
                }
            }
        // The colour bar: lo at the bottom, hi at the top (symmetric around 0 for changes).
        const double lo = p.delta() ? -std::max(std::fabs(p.lo), std::fabs(p.hi)) : p.lo;
        const double hi = p.delta() ? -lo : p.hi;
        for (int i = 0; i < int(bar.height()); ++i) {
            const double v = hi - (hi - lo) * (double(i) + 0.5) / bar.height();
            painter.fillRect(QRectF(bar.left(), bar.top() + i, bar.width(), 1), colorOf(p, v));
        }
        painter.setPen(c.theme().foreground);
        painter.drawRect(bar);
        painter.setPen(c.theme().muted);
        std::vector<std::pair<double, double>> ticks{{hi, bar.top()}, {lo, bar.bottom()}};
        if (p.delta()) ticks.emplace_back(0.0, bar.center().y());
        for (const auto& [v, y] : ticks)
            painter.drawText(QRectF(bar.right() + 4, y - fm.height() / 2, 200, fm.height()),
                             Qt::AlignLeft | Qt::AlignVCenter, QString::fromStdString(barLabel(p, v)));
    }

    std::optional<HitInfo> hitTestTyped(const HeatmapPrepared& p, const ParamValues&, const QRectF& rect,
                                        QPointF pt) const override {
        if (!p.any()) return std::nullopt;
        LayoutCanvas lc(rect);
        QRectF bar;
        const ChartLayout L = layout(p, lc.canvas, bar);
        if (!L.plot.contains(pt)) return std::nullopt;
        const auto x = L.bandAt(true, pt), y = L.bandAt(false, pt);
        if (!x || !y || !p.cells[*y][*x].filled) return std::nullopt;
        const HeatCell& c = p.cells[*y][*x];
        HitInfo h;
        h.title = metricText(p);
        h.fields.emplace_back(p.roles.x, p.xs[*x]);
        if (!p.roles.color.empty()) h.fields.emplace_back(p.roles.color, p.ys[*y]);
        h.fields.emplace_back(
            "value", p.delta() && c.baseline && c.samples == 1 ? std::string("baseline") : barLabel(p, c.value));
        if (p.delta()) {
            h.fields.emplace_back("significant", c.significant ? "yes (a configuration of the cell)" : "no");
            if (c.baseline && c.samples > 1) h.fields.emplace_back("baseline", "pooled in, as 0 %");
        }
        h.fields.emplace_back(p.delta() ? "configurations" : "steps", std::to_string(c.samples));
        std::string configs;
        for (const auto& s : c.configs) configs += (configs.empty() ? "" : "; ") + s;
        h.fields.emplace_back("pooled", configs);
        h.itemRect = QRectF(L.bandStart(true, *x), L.bandStart(false, *y), L.bandSize(true), L.bandSize(false));
        return h;
    }

    core::Table tableTyped(const HeatmapPrepared& p, const ParamValues&) const override {
        core::Table t;
        t.columns = {"x", "y", "metric", "value", "samples", "significant", "configurations"};
        t.messages = p.messages;
        for (size_t y = 0; y < p.ys.size(); ++y)
            for (size_t x = 0; x < p.xs.size(); ++x) {
                const HeatCell& c = p.cells[y][x];
                if (!c.filled) continue;
                std::string configs;
                for (const auto& s : c.configs) configs += (configs.empty() ? "" : "; ") + s;
                t.addRow(
                    {p.xs[x], p.ys[y], p.metric, c.value, int64_t(c.samples), int64_t(c.significant ? 1 : 0), configs});
            }
        return t;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(SweepHeatmapPlot)

}  // namespace strobe::plots
