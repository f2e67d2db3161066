// Active CPU cores over time, from the CPU sampler (collectors/cpu_sampler.h: cpu<N>.util_pct per interval): the
// number of busy cores (utilisation at least the threshold) and the core equivalents (the sum of every core's
// utilisation ÷ 100), one colour per run: busy cores solid, core equivalents dashed. Each run from its own first
// sample (runs recorded at different times compare by elapsed time).

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "plots/plot_registry.h"
#include "plots/telemetry_plot.h"

namespace strobe::plots {
namespace {

const DoubleParam kThreshold =
    DoubleParam{"threshold_pct", "Busy threshold (%)", "A core is busy in an interval when its utilisation is at least this",
                50.0}
        .bounded(0, 100, 5)
        .unit("%");
const EnumParam kShow = EnumParam{"show", "Show", "Which lines to draw", "both"}
                            .choices({"both", "busy cores", "core equivalents"})
                            .drawOnly();

struct RunCores {
    size_t run = 0;
    std::vector<int64_t> elapsed;  // ns since the run's first sample
    std::vector<int> cores;        // cores with a value at that sample
    std::vector<int> busy;
    std::vector<double> equivalents;
    int coreCount = 0;
};

struct CoresPrepared final : Prepared {
    std::vector<RunCores> runs;
    std::vector<std::string> runLabels;
    std::vector<std::string> messages;
    double threshold = 50;
    size_t bytes() const override {
        size_t b = sizeof(*this);
        for (const auto& r : runs) b += r.elapsed.size() * (sizeof(int64_t) + 2 * sizeof(int) + sizeof(double));
        return b;
    }
};

class CpuActiveCoresPlot final : public TypedPlot<CoresPrepared> {
public:
    CpuActiveCoresPlot()
        : TypedPlot({"cpu-active-cores", "Active CPU cores",
                     "Busy CPU cores over time (utilisation at least a threshold) and core equivalents (sum of "
                     "utilisation ÷ 100), from the CPU sampler; one colour per run.",
                     240}) {}

    std::vector<ParamSpec> parameters(const RunSet&) const override { return {kThreshold.spec(), kShow.spec()}; }

    core::Result<std::shared_ptr<CoresPrepared>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                              const core::CancelToken& cancel,
                                                              const core::ProgressFn&) const override {
        auto p = std::make_shared<CoresPrepared>();
        p->threshold = kThreshold(values);
        for (size_t run = 0; run < runs.size(); ++run) {
            if (cancel.cancelled()) return cancelledError();
            p->runLabels.push_back(runs[run].label);
            if (!runs[run].dataset) continue;
            auto u = coreUtilisation(*runs[run].dataset, cancel);
            if (!u) return u.error();
            if (u->empty()) {
                p->messages.push_back(fmt::format("{}: no per-core CPU samples (cpu<N>.util_pct)", runs[run].label));
                continue;
            }
            RunCores rc;
            rc.run = run;
            rc.coreCount = int(u->cores.size());
            for (size_t i = 0; i < u->ts.size(); ++i) {
                int n = 0, busy = 0;
                double sum = 0;
                for (const auto& row : u->pct) {
                    if (!std::isfinite(row[i])) continue;
                    ++n;
                    sum += row[i];
                    busy += row[i] >= p->threshold ? 1 : 0;
                }
                if (n == 0) continue;
                rc.elapsed.push_back(u->ts[i] - u->ts.front());
                rc.cores.push_back(n);
                rc.busy.push_back(busy);
                rc.equivalents.push_back(sum / 100.0);
            }
            p->runs.push_back(std::move(rc));
        }
        return p;
    }

    std::optional<std::string> emptyMessageTyped(const CoresPrepared& p, const ParamValues&) const override {
        if (!p.runs.empty()) return std::nullopt;
        return emptyReason(p.messages, "no per-core CPU samples (record them with `strobe-cli sample cpu`)");
    }

    void drawTyped(Canvas& c, const CoresPrepared& p, const ParamValues& values) const override {
        if (p.runs.empty()) return;
        std::vector<TelemetrySeries> series;
        drawScatter(c, chart(p, values, series), series);
    }

    std::optional<HitInfo> hitTestTyped(const CoresPrepared& p, const ParamValues& values, const QRectF& rect,
                                        QPointF pt) const override {
        if (p.runs.empty()) return std::nullopt;
        std::vector<TelemetrySeries> series;
        const ScatterChart ch = chart(p, values, series);
        LayoutCanvas lc(rect);
        const ChartLayout g = layoutScatter(lc.canvas, ch, series);
        double best = 8;
        std::optional<HitInfo> hit;
        for (const auto& s : series)
            for (size_t i = 0; i < s.points.size(); ++i) {
                const double d = std::hypot(g.xAt(s.points[i].first) - pt.x(), g.yAt(s.points[i].second) - pt.y());
                if (d >= best) continue;
                best = d;
                const auto& rc =
                    *std::find_if(p.runs.begin(), p.runs.end(), [&](const RunCores& r) { return r.run == s.run; });
                HitInfo h;
                h.title = p.runLabels[s.run];
                h.fields = {{"elapsed", formatDuration(double(rc.elapsed[i]))},
                            {fmt::format("busy cores (≥ {:g}%)", p.threshold), std::to_string(rc.busy[i])},
                            {"core equivalents", fmt::format("{:.2f}", rc.equivalents[i])},
                            {"cores sampled", std::to_string(rc.cores[i])}};
                hit = h;
            }
        return hit;
    }

    core::Table tableTyped(const CoresPrepared& p, const ParamValues& values) const override {
        core::Table t;
        t.columns = {"run", "elapsed_ns", "cores", "busy_cores", "core_equivalents"};
        t.messages = p.messages;
        for (const auto& rc : p.runs)
            for (size_t i = 0; i < rc.elapsed.size(); ++i)
                t.addRow(
                    {p.runLabels[rc.run], rc.elapsed[i], int64_t(rc.cores[i]), int64_t(rc.busy[i]), rc.equivalents[i]});
        if (p.runs.empty()) t.messages.push_back(*emptyMessageTyped(p, values));
        return t;
    }

private:
    ScatterChart chart(const CoresPrepared& p, const ParamValues& v, std::vector<TelemetrySeries>& series) const {
        const std::string show = kShow(v);
        ScatterChart c;
        c.title = title();
        int maxCores = 0;
        for (const auto& rc : p.runs) maxCores = std::max(maxCores, rc.coreCount);
        c.subtitle = fmt::format("solid: cores at least {:g}% busy; dashed: core equivalents (Σ utilisation ÷ 100); "
                                 "{} core{} at most",
                                 p.threshold, maxCores, maxCores == 1 ? "" : "s");
        c.xTitle = "elapsed time";
        c.yTitle = "cores";
        c.xUnit = TickUnit::Duration;
        c.lines = true;
        c.yFromZero = true;
        for (size_t k = 0; k < p.runs.size(); ++k) {
            const auto& rc = p.runs[k];
            const std::string& label = p.runLabels[rc.run];
            if (show != "core equivalents") {
                TelemetrySeries s{p.runs.size() > 1 ? label + " · busy" : "busy cores", rc.run, -1, {}};
                for (size_t i = 0; i < rc.elapsed.size(); ++i) s.points.push_back({double(rc.elapsed[i]), double(rc.busy[i])});
                series.push_back(std::move(s));
                c.colors.push_back(seriesColor(int(k)));
                c.styles.push_back(Qt::SolidLine);
            }
            if (show != "busy cores") {
                TelemetrySeries s{p.runs.size() > 1 ? label + " · equivalents" : "core equivalents", rc.run, -1, {}};
                for (size_t i = 0; i < rc.elapsed.size(); ++i) s.points.push_back({double(rc.elapsed[i]), rc.equivalents[i]});
                series.push_back(std::move(s));
                c.colors.push_back(seriesColor(int(k)));
                c.styles.push_back(Qt::DashLine);
            }
        }
        return c;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(CpuActiveCoresPlot)

}  // namespace strobe::plots
