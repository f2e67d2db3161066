// End-to-end step time per configuration (issue 9): a box per sweep configuration (runs with equal parameters, so
// repeats pool their steps; runs without parameters are a configuration each) of the time of every ProfilerStep#N.
// A step's time spans all ranks: from the earliest rank's start of step N to the latest rank's end of it, the
// rank that arrives last decides. Box: 25th–75th percentile; line: median; dot: mean; whiskers: smallest and
// largest step. The boxes stand in bands of one sweep parameter (x), side by side by another (colour).

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/analysis/context.h"
#include "plots/chart.h"
#include "plots/plot_registry.h"
#include "plots/step_times.h"
#include "plots/sweep_axes.h"
#include "plots/sweep_marks.h"

namespace strobe::plots {
namespace {

const AxisParam kXAxis{"x_axis", "X axis", "Sweep parameter along x ((auto): the first one that varies)", false};
const AxisParam kColorAxis{"color_axis", "Colour",
                           "Sweep parameter whose values get a colour each, boxes side by side within an x band "
                           "((auto): the next one that varies)",
                           true};

struct Box {
    std::string config;
    std::string x, color;  // its values on the x and colour roles
    std::vector<std::string> runs;
    std::vector<double> stepsNs;  // sorted
    std::vector<std::tuple<size_t, int64_t, double>> rows;  // run index, step number, ns (for the table)
};

struct StepBoxPrepared final : Prepared {
    std::vector<Box> boxes;
    AxisRoles roles;
    MarkPlan plan;
    std::vector<std::string> runLabels;
    std::vector<std::string> messages;
    size_t bytes() const override {
        size_t b = sizeof(*this);
        for (const auto& x : boxes) b += x.stepsNs.capacity() * 8 + x.rows.capacity() * 24 + x.config.size();
        return b;
    }
};

const char* kSubtitle = "end-to-end time of each ProfilerStep (all ranks)";

class StepTimeBoxPlot final : public ChartPlot<StepBoxPrepared> {
public:
    StepTimeBoxPlot()
        : ChartPlot(
              {"step-time-box", "Step time per configuration",
               "End-to-end time of every profiler step (earliest rank start to latest rank end), one box per sweep "
               "configuration: repeats pool their steps. Boxes sit by a sweep parameter along x, side by side by "
               "another (colour).",
               120}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        return {kXAxis.spec(runs), kColorAxis.spec(runs), kSkipSteps.spec(), kLegend.spec()};
    }

    core::Result<std::shared_ptr<StepBoxPrepared>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                                const core::CancelToken& cancel,
                                                                const core::ProgressFn&) const override {
        auto p = std::make_shared<StepBoxPrepared>();
        const int64_t skip = kSkipSteps(values);
        p->roles = resolveAxisRoles(runs, kXAxis(values), kColorAxis(values), kNoAxis);
        for (size_t ri = 0; ri < runs.size(); ++ri) {
            if (cancel.cancelled()) return cancelledError();
            const auto& run = runs[ri];
            p->runLabels.push_back(run.label);
            if (!run.dataset) continue;
            const auto steps = endToEndStepTimes(*run.dataset, skip);
            if (steps.empty()) {
                p->messages.push_back(run.label + ": no ProfilerStep#N" + (skip ? " after the skipped ones" : ""));
                continue;
            }
            const std::string config = configurationLabel(run);
            auto box = std::find_if(p->boxes.begin(), p->boxes.end(), [&](const Box& b) { return b.config == config; });
            if (box == p->boxes.end())
                box = p->boxes.insert(p->boxes.end(), Box{config, axisValueOf(run, p->roles.x),
                                                          axisValueOf(run, p->roles.color), {}, {}, {}});
            box->runs.push_back(run.label);
            for (const auto& [number, ns] : steps) {
                box->stepsNs.push_back(ns);
                box->rows.emplace_back(ri, number, ns);
            }
        }
        std::erase_if(p->boxes, [](const Box& b) { return b.stepsNs.empty(); });
        std::vector<MarkKey> keys;
        for (auto& b : p->boxes) {
            std::sort(b.stepsNs.begin(), b.stepsNs.end());
            keys.push_back({b.x, b.color, "", b.config});
        }
        p->plan = planMarks(keys, !p->roles.color.empty());
        return p;
    }

    std::optional<std::string> nothingToDraw(const StepBoxPrepared& p, const ParamValues&) const override {
        if (!p.boxes.empty()) return std::nullopt;
        return emptyReason(p.messages, "no profiler steps in these runs");
    }

    // The chart below the title and the colour legend.
    ChartLayout frame(Canvas& c, const StepBoxPrepared& p, const ParamValues& values) const override {
        QRectF area = drawTitle(c, c.rect, "Step time per configuration", kSubtitle);
        area = drawLegend(c, area, colorLegend(p.roles.color, p.plan), legendMode(values));
        double lo = 1e300, hi = 0;
        for (const auto& b : p.boxes) {
            lo = std::min(lo, b.stepsNs.front());
            hi = std::max(hi, b.stepsNs.back());
        }
        const double pad = std::max((hi - lo) * 0.08, hi * 0.01);
        return layoutChart(QFontMetricsF(c.painter.font()), area, ChartAxis::bandsOf(p.plan.bands, p.roles.x),
                           ChartAxis::linear(std::max(0.0, lo - pad), hi + pad, TickUnit::Duration, "step time"));
    }

    void drawMarks(Canvas& c, const ChartLayout& L, const StepBoxPrepared& p, const ParamValues&) const override {
        drawAxes(c, L);
        const Theme t = c.theme();
        c.painter.setRenderHint(QPainter::Antialiasing, true);
        for (size_t i = 0; i < p.boxes.size(); ++i) {
            const auto [left, right] = slotSpan(L, p.plan.place[i], p.plan.maxSlots);
            const double half = std::min(36.0, (right - left) / 2);
            drawBoxMark(c.painter, t, L, (left + right) / 2, half, p.boxes[i].stepsNs,
                        seriesColor(p.plan.place[i].color));
        }
    }

    std::optional<HitInfo> hitMarks(const ChartLayout& L, const StepBoxPrepared& p, const ParamValues&,
                                    QPointF pt) const override {
        const auto band = L.bandAt(true, pt);
        if (!band) return std::nullopt;
        // The box of that band nearest to the pointer.
        std::optional<size_t> best;
        double bestDistance = 1e300;
        for (size_t i = 0; i < p.boxes.size(); ++i) {
            if (p.plan.place[i].band != *band) continue;
            const auto [left, right] = slotSpan(L, p.plan.place[i], p.plan.maxSlots);
            const double d = pt.x() < left ? left - pt.x() : pt.x() > right ? pt.x() - right : 0.0;
            if (d < bestDistance) best = i, bestDistance = d;
        }
        if (!best) return std::nullopt;
        const auto& b = p.boxes[*best];
        const Spread s = spreadOf(b.stepsNs);
        HitInfo h;
        h.title = b.config;
        std::string runs;
        for (const auto& r : b.runs) runs += (runs.empty() ? "" : ", ") + r;
        h.fields = {{"steps", std::to_string(b.stepsNs.size())},
                    {"median", formatDuration(s.median)},
                    {"p25 – p75", formatDuration(s.p25) + " – " + formatDuration(s.p75)},
                    {"min – max", formatDuration(s.min) + " – " + formatDuration(s.max)},
                    {"runs", runs}};
        return h;
    }

    core::Table tableTyped(const StepBoxPrepared& p, const ParamValues&) const override {
        core::Table t;
        t.columns = {"configuration", "run", "step", "step_ns"};
        t.messages = p.messages;
        for (const auto& b : p.boxes)
            for (const auto& [run, step, ns] : b.rows) t.addRow({b.config, p.runLabels[run], step, int64_t(ns)});
        return t;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(StepTimeBoxPlot)

}  // namespace strobe::plots
