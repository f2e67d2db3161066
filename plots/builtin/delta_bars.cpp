// Per kernel group, the change of every configuration of a sweep against a baseline configuration (issue 9): the
// change of the median time per step (%) with its confidence interval, both from core::compareSweep (bootstrap over
// runs, else steps; Holm-corrected; no interval below 2 runs and 5 steps). Horizontal bars: step time first, the
// GPU's busy and idle time per step, then one band per group (the top K by |change|), one bar per configuration; a
// significant change (the corrected interval excludes zero) is filled, any other hollow.

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/analysis/sweep_compare.h"
#include "plots/chart.h"
#include "plots/plot_registry.h"
#include "plots/step_times.h"
#include "plots/sweep_axes.h"
#include "plots/sweep_marks.h"

namespace strobe::plots {
namespace {

const EnumParam kBaseline{"baseline", "Baseline", "The configuration every other one is compared with", ""};
const IntParam kTop =
    IntParam{"top", "Top groups", "The K kernel groups with the most GPU time per step", 10}.bounded(1, 200, 1);
const DoubleParam kConfidence =
    DoubleParam{"confidence", "Confidence", "Level of the confidence intervals (before the Holm correction)", 0.95}
        .bounded(0.5, 0.999, 0.01);
struct DeltaPrepared final : Prepared {
    core::SweepComparison cmp;
    std::string baseline;              // the baseline configuration
    std::vector<std::string> groups;   // bands, top first
    std::vector<std::string> configs;  // the compared (non-baseline) configurations, one colour each
    // bar[group][config]: the row of cmp.rows, or -1
    std::vector<std::vector<int>> bar;
    std::vector<std::string> messages;
    double lo = -1, hi = 1;  // % range of the bars and their intervals
    size_t bytes() const override {
        size_t b = sizeof(*this);
        for (const auto& r : cmp.rows) b += sizeof(r) + r.stepsNs.capacity() * 8 + r.group.size() + r.config.size();
        return b + groups.size() * 64;
    }
};

// The baseline choice: the configurations, by default the documented default baseline (the first configuration in
// axis order, core::defaultSweepBaseline; "(first)" alone while there are no runs).
ParamSpec baselineSpec(std::vector<std::string> configs, const std::string& preferred) {
    if (configs.empty()) configs.push_back("(first)");
    const bool known = std::find(configs.begin(), configs.end(), preferred) != configs.end();
    const std::string first = known ? preferred : configs.front();
    return kBaseline.withDefault(first).spec(std::move(configs));
}

class DeltaBarsPlot final : public TypedPlot<DeltaPrepared> {
public:
    DeltaBarsPlot()
        : TypedPlot(
              {"delta-bars", "Change per kernel group vs a baseline",
               "For each of the top kernel groups, the change in GPU time per step of every configuration against a "
               "baseline configuration, with its confidence interval (Holm-corrected); significant changes filled. "
               "Step time and the GPU's busy and idle time per step lead.",
               122}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        const auto configs = sweepConfigurations(runs);
        return {baselineSpec(configs, defaultBaselineConfiguration(runs)),
                kSweepGroupBy.spec(), kTop.spec(), kConfidence.spec(), kSkipSteps.spec(), kLegend.spec()};
    }

    core::Result<std::shared_ptr<DeltaPrepared>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                              const core::CancelToken& cancel,
                                                              const core::ProgressFn&) const override {
        auto p = std::make_shared<DeltaPrepared>();
        RunSet loaded;
        for (const auto& r : runs)
            if (r.dataset) loaded.push_back(r);
        const auto configs = sweepConfigurations(loaded);
        if (configs.size() < 2) {
            p->messages.push_back(configs.empty() ? "no runs" : "one configuration: nothing to compare it with");
            return p;
        }
        p->baseline = kBaseline(values);
        if (std::find(configs.begin(), configs.end(), p->baseline) == configs.end()) p->baseline = configs.front();
        core::SweepCompareOptions o;
        if (auto st = sweepGroupBy(values, o.groupBy, o.groupRegex); !st) return st.error();
        o.baseline = firstRunOf(loaded, p->baseline);
        o.skipSteps = int(kSkipSteps(values));
        o.top = int(kTop(values));
        o.confidence = kConfidence(values);  // groups ranked by |change| (the one ranking: core::compareSweep)
        p->cmp = core::compareSweep(byConfigurationLabel(loaded), o);
        if (cancel.cancelled()) return cancelledError();
        // Step time first, then the GPU's busy and idle time per step, then the kernel groups (issue 21).
        std::vector<core::SweepCompareRow> lead = p->cmp.stepRows;
        for (auto& r : lead) r.group = "step time";
        for (const auto& r : p->cmp.gpuRows)
            if (r.group == "busy" || r.group == "idle") {
                lead.push_back(r);
                lead.back().group = "GPU " + r.group;
            }
        p->cmp.rows.insert(p->cmp.rows.begin(), lead.begin(), lead.end());
        p->messages = p->cmp.messages;
        for (const auto& c : configs)
            if (c != p->baseline) p->configs.push_back(c);
        for (size_t i = 0; i < p->cmp.rows.size(); ++i) {
            const auto& row = p->cmp.rows[i];
            auto g = std::find(p->groups.begin(), p->groups.end(), row.group);
            if (g == p->groups.end()) {
                p->groups.push_back(row.group);
                p->bar.emplace_back(p->configs.size(), -1);
                g = p->groups.end() - 1;
            }
            const auto c = std::find(p->configs.begin(), p->configs.end(), row.config);
            if (c == p->configs.end() || !row.deltaPct) continue;
            p->bar[size_t(g - p->groups.begin())][size_t(c - p->configs.begin())] = int(i);
            for (double v : {*row.deltaPct, row.ciLowPct.value_or(*row.deltaPct), row.ciHighPct.value_or(*row.deltaPct)}) {
                p->lo = std::min(p->lo, v);
                p->hi = std::max(p->hi, v);
            }
        }
        return p;
    }

    static bool anyBar(const DeltaPrepared& p) {
        for (const auto& g : p.bar)
            for (int r : g)
                if (r >= 0) return true;
        return false;
    }

    std::optional<std::string> emptyMessageTyped(const DeltaPrepared& p, const ParamValues&) const override {
        if (anyBar(p)) return std::nullopt;
        return emptyReason(p.messages, "no kernel group found in both a configuration and the baseline");
    }

    static std::vector<LegendEntry> legend(const DeltaPrepared& p) {
        std::vector<LegendEntry> out;
        for (size_t i = 0; i < p.configs.size(); ++i) out.push_back({p.configs[i], seriesColor(int(i))});
        return out;
    }

    static ChartLayout layout(const DeltaPrepared& p, Canvas& c, const ParamValues& values) {
        const std::string level = p.cmp.confidence ? fmt::format("{:g}", *p.cmp.confidence * 100) : std::string("?");
        QRectF area = drawTitle(c, c.rect, "Change per kernel group vs a baseline",
                                fmt::format("vs {} · {}% confidence intervals, Holm-corrected · filled: significant, "
                                            "hollow: not · no bar: no % change (n/a, or absent from the baseline)",
                                            p.baseline, level));
        std::vector<std::string> notes{p.cmp.method.value_or("")};
        for (size_t i = 0; i < p.messages.size() && i < 3; ++i) notes.push_back(p.messages[i]);
        area = drawNotes(c, area, notes);
        area = drawLegend(c, area, legend(p), legendMode(values));
        const double pad = std::max(1.0, (p.hi - p.lo) * 0.06);
        return layoutChart(QFontMetricsF(c.painter.font()), area,
                           ChartAxis::linear(p.lo - pad, p.hi + pad, TickUnit::Percent,
                                             "change in median time per step vs " + p.baseline),
                           ChartAxis::bandsOf(p.groups));
    }

    // The bar of (group, config) within its band.
    static QRectF slot(const DeltaPrepared& p, const ChartLayout& L, size_t g, size_t c) {
        const double band = L.bandSize(false);
        const double h = std::min(28.0, band * 0.8 / double(std::max<size_t>(1, p.configs.size())));
        const double top = L.bandStart(false, g) + band / 2 - h * double(p.configs.size()) / 2 + h * double(c);
        return QRectF(L.plot.left(), top + std::min(1.5, h * 0.1), L.plot.width(), h - 2 * std::min(1.5, h * 0.1));
    }

    void drawTyped(Canvas& c, const DeltaPrepared& p, const ParamValues& values) const override {
        if (!anyBar(p)) return;
        const ChartLayout L = layout(p, c, values);
        drawAxes(c, L);
        const Theme t = c.theme();
        auto& painter = c.painter;
        painter.setRenderHint(QPainter::Antialiasing, true);
        for (size_t g = 0; g < p.groups.size(); ++g)
            for (size_t k = 0; k < p.configs.size(); ++k) {
                const int r = p.bar[g][k];
                if (r < 0) continue;
                const auto& row = p.cmp.rows[size_t(r)];
                const QRectF s = slot(p, L, g, k);
                const QColor color = seriesColor(int(k));
                const QRectF bar(QPointF(std::min(L.xAt(0), L.xAt(*row.deltaPct)), s.top()),
                                 QPointF(std::max(L.xAt(0), L.xAt(*row.deltaPct)), s.bottom()));
                if (row.significant) {
                    painter.fillRect(bar, color);
                } else {
                    painter.setPen(QPen(color, 1.5));
                    painter.drawRect(bar.adjusted(0.75, 0.75, -0.75, -0.75));
                }
                if (row.ciLowPct && row.ciHighPct) {
                    const double y = s.center().y(), cap = std::min(4.0, s.height() / 2);
                    painter.setPen(QPen(t.foreground, 1.2));
                    painter.drawLine(QPointF(L.xAt(*row.ciLowPct), y), QPointF(L.xAt(*row.ciHighPct), y));
                    for (double v : {*row.ciLowPct, *row.ciHighPct})
                        painter.drawLine(QPointF(L.xAt(v), y - cap), QPointF(L.xAt(v), y + cap));
                }
            }
        painter.setPen(QPen(t.foreground, 1.5));
        painter.drawLine(QPointF(L.xAt(0), L.plot.top()), QPointF(L.xAt(0), L.plot.bottom()));
    }

    std::optional<HitInfo> hitTestTyped(const DeltaPrepared& p, const ParamValues& values, const QRectF& rect,
                                        QPointF pt) const override {
        if (!anyBar(p)) return std::nullopt;
        LayoutCanvas lc(rect);
        const ChartLayout L = layout(p, lc.canvas, values);
        const auto g = L.bandAt(false, pt);
        if (!g) return std::nullopt;
        for (size_t k = 0; k < p.configs.size(); ++k) {
            const QRectF s = slot(p, L, *g, k);
            if (pt.y() < s.top() - 1 || pt.y() > s.bottom() + 1 || p.bar[*g][k] < 0) continue;
            const auto& row = p.cmp.rows[size_t(p.bar[*g][k])];
            HitInfo h;
            h.title = row.group;
            h.fields = {{"configuration", row.config},
                        {"vs", p.baseline},
                        {"change", fmt::format("{:+.2f}% ({}{} per step)", *row.deltaPct,
                                               row.deltaNs && *row.deltaNs >= 0 ? "+" : "",
                                               formatDuration(row.deltaNs.value_or(0)))},
                        {"time per step", formatDuration(row.perStepNs)},
                        {"significant", row.significant ? "yes" : "no"}};
            if (!row.reason.empty()) h.fields.emplace_back("interval", row.reason);
            if (row.ciLowPct && row.ciHighPct)
                h.fields.insert(h.fields.begin() + 3,
                                {"interval", fmt::format("{:+.2f}% … {:+.2f}%", *row.ciLowPct, *row.ciHighPct)});
            h.itemRect = s;
            return h;
        }
        return std::nullopt;
    }

    core::Table tableTyped(const DeltaPrepared& p, const ParamValues&) const override {
        core::Table t;
        t.columns = {"group",     "configuration", "count",       "per_step_ns", "median_ns",
                     "delta_pct", "ci_low_pct",    "ci_high_pct", "significant", "delta_ns", "reason"};
        t.messages = p.messages;
        if (p.cmp.method) t.messages.insert(t.messages.begin(), *p.cmp.method);
        auto opt = [](const std::optional<double>& v) { return v ? core::Cell(*v) : core::Cell(std::monostate{}); };
        for (const auto& r : p.cmp.rows)
            t.addRow({r.group, r.config, int64_t(r.count), r.perStepNs, r.medianNs, opt(r.deltaPct), opt(r.ciLowPct),
                      opt(r.ciHighPct), int64_t(r.significant ? 1 : 0), opt(r.deltaNs), r.reason});
        return t;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(DeltaBarsPlot)

}  // namespace strobe::plots
