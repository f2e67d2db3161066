// End-to-end step time per configuration (issue 9): a box per sweep configuration (runs with equal parameters, so
// repeats pool their steps; runs without parameters are a configuration each) of the time of every ProfilerStep#N.
// A step's time spans all ranks: from the earliest rank's start of step N to the latest rank's end of it, the
// rank that arrives last decides. Box: 25th–75th percentile; line: median; dot: mean; whiskers: smallest and
// largest step.

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/analysis/context.h"
#include "plots/chart.h"
#include "plots/plot_registry.h"
#include "plots/step_times.h"

namespace strobe::plots {
namespace {

const IntParam kSkipSteps =
    IntParam{"skip_steps", "Skip steps", "Leave out the first N steps of every run (warm-up)", 0}.bounded(0, 1000000, 1);

struct Box {
    std::string config;
    std::vector<std::string> runs;
    std::vector<double> stepsNs;  // sorted
    std::vector<std::tuple<size_t, int64_t, double>> rows;  // run index, step number, ns (for the table)
};

struct StepBoxPrepared final : Prepared {
    std::vector<Box> boxes;
    std::vector<std::string> runLabels;
    std::vector<std::string> messages;
    size_t bytes() const override {
        size_t b = sizeof(*this);
        for (const auto& x : boxes) b += x.stepsNs.capacity() * 8 + x.rows.capacity() * 24 + x.config.size();
        return b;
    }
};

double quantile(const std::vector<double>& v, double q) {
    return v.empty() ? 0.0 : core::stats::quantile(std::span<const double>(v), q);
}

class StepTimeBoxPlot final : public Plot {
public:
    StepTimeBoxPlot()
        : Plot({"step-time-box", "Step time per configuration",
                "End-to-end time of every profiler step (earliest rank start to latest rank end), one box per sweep "
                "configuration: repeats pool their steps.",
                120}) {}

    std::vector<ParamSpec> parameters(const RunSet&) const override { return {kSkipSteps.spec()}; }

    core::Result<PreparedPtr> prepare(const RunSet& runs, const ParamValues& values, const core::CancelToken& cancel,
                                      const core::ProgressFn&) const override {
        auto p = std::make_shared<StepBoxPrepared>();
        const int64_t skip = kSkipSteps(values);
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
            if (box == p->boxes.end()) box = p->boxes.insert(p->boxes.end(), Box{config, {}, {}, {}});
            box->runs.push_back(run.label);
            for (const auto& [number, ns] : steps) {
                box->stepsNs.push_back(ns);
                box->rows.emplace_back(ri, number, ns);
            }
        }
        std::erase_if(p->boxes, [](const Box& b) { return b.stepsNs.empty(); });
        for (auto& b : p->boxes) std::sort(b.stepsNs.begin(), b.stepsNs.end());
        return PreparedPtr(p);
    }

    std::optional<std::string> emptyMessage(const Prepared& prepared, const ParamValues&) const override {
        const auto* p = dynamic_cast<const StepBoxPrepared*>(&prepared);
        if (!p || !p->boxes.empty()) return std::nullopt;
        return emptyReason(p->messages, "no profiler steps in these runs");
    }

    static ChartLayout layout(const StepBoxPrepared& p, Canvas& c, const QRectF& area) {
        double lo = 1e300, hi = 0;
        std::vector<std::string> bands;
        for (const auto& b : p.boxes) {
            lo = std::min(lo, b.stepsNs.front());
            hi = std::max(hi, b.stepsNs.back());
            bands.push_back(fmt::format("{} (n={})", b.config, b.stepsNs.size()));
        }
        const double pad = std::max((hi - lo) * 0.08, hi * 0.01);
        return layoutChart(QFontMetricsF(c.painter.font()), area, ChartAxis::bandsOf(bands, "configuration"),
                           ChartAxis::linear(std::max(0.0, lo - pad), hi + pad, TickUnit::Duration, "step time"));
    }

    void draw(Canvas& c, const Prepared& prepared, const ParamValues&) const override {
        const auto* p = dynamic_cast<const StepBoxPrepared*>(&prepared);
        if (!p || p->boxes.empty()) return;
        const QRectF area = drawTitle(c, c.rect, title(), "end-to-end time of each ProfilerStep (all ranks)");
        const ChartLayout L = layout(*p, c, area);
        drawAxes(c, L);
        const Theme t = c.theme();
        auto& painter = c.painter;
        painter.setRenderHint(QPainter::Antialiasing, true);
        for (size_t i = 0; i < p->boxes.size(); ++i) {
            const auto& v = p->boxes[i].stepsNs;
            const double band = L.bandSize(true), cx = L.bandStart(true, i) + band / 2;
            const double half = std::min(36.0, band * 0.3);
            double mean = 0;
            for (double x : v) mean += x / double(v.size());
            painter.setPen(QPen(t.foreground, 1));
            painter.drawLine(QPointF(cx, L.yAt(v.front())), QPointF(cx, L.yAt(v.back())));
            const QRectF box(QPointF(cx - half, L.yAt(quantile(v, 0.75))), QPointF(cx + half, L.yAt(quantile(v, 0.25))));
            painter.fillRect(box, seriesColor(int(i)));
            painter.drawRect(box);
            painter.setPen(QPen(t.foreground, 2));
            painter.drawLine(QPointF(cx - half, L.yAt(quantile(v, 0.5))), QPointF(cx + half, L.yAt(quantile(v, 0.5))));
            painter.setBrush(t.foreground);
            painter.drawEllipse(QPointF(cx, L.yAt(mean)), 2.5, 2.5);
            painter.setBrush(Qt::NoBrush);
        }
    }

    std::optional<HitInfo> hitTest(const Prepared& prepared, const ParamValues&, const QRectF& rect,
                                   QPointF pt) const override {
        const auto* p = dynamic_cast<const StepBoxPrepared*>(&prepared);
        if (!p || p->boxes.empty()) return std::nullopt;
        LayoutCanvas lc(rect);
        const QRectF area = drawTitle(lc.canvas, rect, title(), "end-to-end time of each ProfilerStep (all ranks)");
        const auto band = layout(*p, lc.canvas, area).bandAt(true, pt);
        if (!band) return std::nullopt;
        const auto& b = p->boxes[*band];
        HitInfo h;
        h.title = b.config;
        std::string runs;
        for (const auto& r : b.runs) runs += (runs.empty() ? "" : ", ") + r;
        h.fields = {{"steps", std::to_string(b.stepsNs.size())},
                    {"median", formatDuration(quantile(b.stepsNs, 0.5))},
                    {"p25 – p75", formatDuration(quantile(b.stepsNs, 0.25)) + " – " + formatDuration(quantile(b.stepsNs, 0.75))},
                    {"min – max", formatDuration(b.stepsNs.front()) + " – " + formatDuration(b.stepsNs.back())},
                    {"runs", runs}};
        return h;
    }

    core::Table table(const Prepared& prepared, const ParamValues&) const override {
        core::Table t;
        t.columns = {"configuration", "run", "step", "step_ns"};
        const auto* p = dynamic_cast<const StepBoxPrepared*>(&prepared);
        if (!p) return t;
        t.messages = p->messages;
        for (const auto& b : p->boxes)
            for (const auto& [run, step, ns] : b.rows) t.addRow({b.config, p->runLabels[run], step, int64_t(ns)});
        return t;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(StepTimeBoxPlot)

}  // namespace strobe::plots
