// One kernel group's GPU time per profiler step across a sweep (issue 9): for every configuration (repeats pool
// their steps) the distribution of the group's time in each kept ProfilerStep#N, as a box, a violin or both. The
// numbers are core::compareSweep's (no baseline): a kernel counts in the step that contains its launch. Boxes stand
// in bands of one sweep parameter (x), side by side by another (colour), one small panel per value of a third
// (facet), every panel on one y scale. Box: 25th–75th percentile, line: median, dot: mean, whiskers: smallest and
// largest step; violin: the kernel density (Silverman's bandwidth) mirrored, the median marked.

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

const EnumParam kStyle = kDistributionStyle;
const StringParam kGroup{"group", "Kernel group",
                         "The group to show, as grouped (empty: the one with the most GPU time per step over all "
                         "configurations)",
                         ""};
const AxisParam kXAxis{"x_axis", "X axis", "Sweep parameter along x ((auto): the first one that varies)", false};
const AxisParam kColorAxis{"color_axis", "Colour",
                           "Sweep parameter whose values get a colour each, side by side within an x band "
                           "((auto): the next one that varies)",
                           true};
const AxisParam kFacetAxis{"facet_axis", "Facets",
                           "Sweep parameter with one small panel per value ((auto): the next one that varies)", true};
struct Dist {
    std::string config;
    std::string x, color, facet;
    std::vector<std::string> runs;
    std::vector<double> stepsNs;  // sorted
};

struct GroupDistPrepared final : Prepared {
    std::string group, groupBy;
    AxisRoles roles;
    MarkPlan plan;
    std::vector<Dist> dists;
    std::vector<std::string> messages;
    double lo = 0, hi = 1;
    size_t bytes() const override {
        size_t b = sizeof(*this) + group.size();
        for (const auto& d : dists) b += d.stepsNs.capacity() * 8 + d.config.size() * 2 + 64;
        return b;
    }
};

struct Geometry {
    std::vector<QRectF> captions;  // facet captions (empty rects without facets)
    std::vector<ChartLayout> panels;
};

class GroupTimeDistPlot final : public ChartPlot<GroupDistPrepared, Geometry> {
public:
    GroupTimeDistPlot()
        : ChartPlot({"group-time-dist", "Kernel group time per configuration",
                     "One kernel group's GPU time in every profiler step, one box or violin per sweep configuration "
                     "(repeats pool their steps), by any sweep parameter along x, colour and facets.",
                     121}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        return {kSweepGroupBy.spec(),  kGroup.spec(),     kXAxis.spec(runs), kColorAxis.spec(runs),
                kFacetAxis.spec(runs), kSkipSteps.spec(), kStyle.spec(),     kLegend.spec()};
    }

    core::Result<std::shared_ptr<GroupDistPrepared>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                                  const core::CancelToken& cancel,
                                                                  const core::ProgressFn&) const override {
        auto p = std::make_shared<GroupDistPrepared>();
        p->groupBy = kSweepGroupBy(values);
        p->roles = resolveAxisRoles(runs, kXAxis(values), kColorAxis(values), kFacetAxis(values));
        RunSet stepped;
        for (const auto& r : runs) {
            if (r.dataset && hasProfilerSteps(*r.dataset))
                stepped.push_back(r);
            else if (r.dataset)
                p->messages.push_back(r.label + ": no ProfilerStep#N (a group's time per step needs steps)");
        }
        if (stepped.empty()) return p;
        core::SweepCompareOptions o;
        if (auto st = sweepGroupBy(values, o.groupBy, o.groupRegex); !st) return st.error();
        o.skipSteps = int(kSkipSteps(values));
        const core::SweepComparison cmp = core::compareSweep(byConfigurationLabel(stepped), o);
        if (cancel.cancelled()) return cancelledError();
        for (const auto& m : cmp.messages)
            if (m.find("skip-steps") != std::string::npos) p->messages.push_back(m);
        p->group = kGroup(values).empty() ? largestSweepGroup(cmp) : kGroup(values);
        for (const auto& row : cmp.rows) {
            if (row.group != p->group || row.stepsNs.empty()) continue;
            Dist d;
            d.config = row.config;
            for (const auto& r : stepped)
                if (configurationLabel(r) == row.config) {
                    if (d.runs.empty()) {
                        d.x = axisValueOf(r, p->roles.x);
                        d.color = axisValueOf(r, p->roles.color);
                        d.facet = axisValueOf(r, p->roles.facet);
                    }
                    d.runs.push_back(r.label);
                }
            d.stepsNs = row.stepsNs;
            p->dists.push_back(std::move(d));
        }
        if (p->dists.empty()) {
            p->messages.push_back(p->group.empty() ? "no GPU kernels in the profiler steps of these runs"
                                                   : fmt::format("no kernel group '{}' (grouped by {})", p->group,
                                                                 p->groupBy));
            return p;
        }
        std::vector<MarkKey> keys;
        p->lo = 1e300, p->hi = 0;
        for (const auto& d : p->dists) {
            keys.push_back({d.x, d.color, d.facet, d.config});
            p->lo = std::min(p->lo, d.stepsNs.front());
            p->hi = std::max(p->hi, d.stepsNs.back());
        }
        p->plan = planMarks(keys, !p->roles.color.empty());
        return p;
    }

    std::optional<std::string> nothingToDraw(const GroupDistPrepared& p, const ParamValues&) const override {
        if (!p.dists.empty()) return std::nullopt;
        return emptyReason(p.messages, "no profiler steps in these runs");
    }

    // Title, legend, then one chart per facet panel, all on one y scale.
    Geometry frame(Canvas& c, const GroupDistPrepared& p, const ParamValues& values) const override {
        QRectF area = drawTitle(c, c.rect, "Kernel group time per configuration",
                                fmt::format("GPU time per step of {} (by {})", p.group, p.groupBy));
        area = drawLegend(c, area, colorLegend(p.roles.color, p.plan), legendMode(values));
        const QFontMetricsF fm(c.painter.font());
        const double pad = std::max((p.hi - p.lo) * 0.08, p.hi * 0.01);
        const bool faceted = !p.roles.facet.empty();
        Geometry g;
        for (const QRectF& panel : facetPanels(area, p.plan.facets.size())) {
            QRectF chart = panel;
            g.captions.push_back(faceted ? QRectF(panel.left() + 8, panel.top(), panel.width() - 16, fm.height())
                                         : QRectF());
            if (faceted) chart.setTop(panel.top() + fm.height() + 2);
            g.panels.push_back(layoutChart(fm, chart, ChartAxis::bandsOf(p.plan.bands, p.roles.x),
                                           ChartAxis::linear(std::max(0.0, p.lo - pad), p.hi + pad, TickUnit::Duration,
                                                             "GPU time per step")));
        }
        return g;
    }

    void drawMarks(Canvas& c, const Geometry& g, const GroupDistPrepared& p, const ParamValues& values) const override {
        const Theme t = c.theme();
        auto& painter = c.painter;
        for (size_t f = 0; f < g.panels.size(); ++f) {
            drawAxes(c, g.panels[f]);
            if (!g.captions[f].isEmpty()) {
                painter.setPen(t.foreground);
                painter.drawText(g.captions[f], Qt::AlignHCenter | Qt::AlignVCenter,
                                 elided(painter, p.roles.facet + "=" + p.plan.facets[f], g.captions[f].width()));
            }
        }
        const std::string style = kStyle(values);
        painter.setRenderHint(QPainter::Antialiasing, true);
        for (size_t i = 0; i < p.dists.size(); ++i) {
            const MarkPlace& pl = p.plan.place[i];
            const ChartLayout& L = g.panels[pl.facet];
            const auto [left, right] = slotSpan(L, pl, p.plan.maxSlots);
            const double cx = (left + right) / 2, half = std::min(36.0, (right - left) / 2);
            const QColor fill = seriesColor(pl.color);
            if (style != "box") drawViolinMark(painter, t, L, cx, half, p.dists[i].stepsNs, fill);
            if (style != "violin")
                drawBoxMark(painter, t, L, cx, style == "both" ? std::max(2.0, half * 0.25) : half, p.dists[i].stepsNs,
                            style == "both" ? fill.darker(130) : fill);
        }
    }

    std::optional<HitInfo> hitMarks(const Geometry& g, const GroupDistPrepared& p, const ParamValues&,
                                    QPointF pt) const override {
        std::optional<size_t> best;
        double bestDistance = 1e300;
        for (size_t f = 0; f < g.panels.size(); ++f) {
            const auto band = g.panels[f].bandAt(true, pt);
            if (!band) continue;
            for (size_t i = 0; i < p.dists.size(); ++i) {
                const MarkPlace& pl = p.plan.place[i];
                if (pl.facet != f || pl.band != *band) continue;
                const auto [left, right] = slotSpan(g.panels[f], pl, p.plan.maxSlots);
                const double d = pt.x() < left ? left - pt.x() : pt.x() > right ? pt.x() - right : 0.0;
                if (d < bestDistance) best = i, bestDistance = d;
            }
        }
        if (!best) return std::nullopt;
        const Dist& d = p.dists[*best];
        const Spread s = spreadOf(d.stepsNs);
        HitInfo h;
        h.title = d.config;
        std::string runs;
        for (const auto& r : d.runs) runs += (runs.empty() ? "" : ", ") + r;
        h.fields = {{"group", p.group},
                    {"n", std::to_string(d.stepsNs.size()) + " steps"},
                    {"median", formatDuration(s.median)},
                    {"p5 – p95", formatDuration(s.p5) + " – " + formatDuration(s.p95)},
                    {"CV", fmt::format("{:.3f}", s.cv)},
                    {"runs", runs}};
        return h;
    }

    core::Table tableTyped(const GroupDistPrepared& p, const ParamValues&) const override {
        core::Table t;
        // One row per configuration x kept step; compareSweep keeps a configuration's per-step times sorted, so
        // `sample` is the step's rank (1 = the fastest), not its ProfilerStep number.
        t.columns = {"configuration", "group", "x", "color", "facet", "sample", "group_ns"};
        t.messages = p.messages;
        for (const auto& d : p.dists)
            for (size_t i = 0; i < d.stepsNs.size(); ++i)
                t.addRow({d.config, p.group, d.x, d.color, d.facet, int64_t(i + 1), d.stepsNs[i]});
        return t;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(GroupTimeDistPlot)

}  // namespace strobe::plots
