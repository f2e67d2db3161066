// Per-core CPU utilisation over time, from the CPU sampler (collectors/cpu_sampler.h): one row per core, one cell
// per sampler interval (a sample's value is the core's busy share of the interval that ends at its time), colour =
// utilisation, with a colour bar. Several runs: one panel each, on one time axis (elapsed time from the start of
// each run's first interval).

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "plots/heat_scale.h"
#include "plots/plot_registry.h"
#include "plots/telemetry_plot.h"

namespace strobe::plots {
namespace {

struct RunHeat {
    size_t run = 0;
    std::vector<int> cores;
    std::vector<int64_t> start, end;       // each interval, ns from the start of the first one
    std::vector<std::vector<double>> pct;  // [core][interval], NaN: no value
};

struct HeatPrepared final : Prepared {
    std::vector<RunHeat> runs;
    std::vector<std::string> runLabels;
    std::vector<std::string> messages;
    size_t bytes() const override {
        size_t b = sizeof(*this);
        for (const auto& r : runs) b += r.start.size() * 16 + r.cores.size() * (r.start.size() * 8 + 4);
        return b;
    }
};

struct HeatGeometry {
    QRectF colorBar;
    std::vector<QRectF> labels;        // where each panel's run label goes
    std::vector<ChartLayout> panels;   // one per prepared run
};

class CpuCoreHeatmapPlot final : public TypedPlot<HeatPrepared> {
public:
    CpuCoreHeatmapPlot()
        : TypedPlot({"cpu-core-heatmap", "CPU core heatmap",
                     "Utilisation of every CPU core in every sampler interval (rows: cores, colour: %), from the CPU "
                     "sampler; one panel per run.",
                     241}) {}

    std::vector<ParamSpec> parameters(const RunSet&) const override { return {}; }

    core::Result<std::shared_ptr<HeatPrepared>> prepareTyped(const RunSet& runs, const ParamValues&,
                                                             const core::CancelToken& cancel,
                                                             const core::ProgressFn&) const override {
        auto p = std::make_shared<HeatPrepared>();
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
            // Interval i ends at sample i and starts at sample i − 1; the first one is as long as the second (a
            // single sample: 1 s, nothing else to go by).
            const auto& ts = u->ts;
            const int64_t first = ts.size() > 1 ? ts[1] - ts[0] : 1'000'000'000;
            const int64_t origin = ts[0] - first;
            RunHeat h{run, u->cores, {}, {}, std::move(u->pct)};
            for (size_t i = 0; i < ts.size(); ++i) {
                h.start.push_back((i == 0 ? ts[0] - first : ts[i - 1]) - origin);
                h.end.push_back(ts[i] - origin);
            }
            p->runs.push_back(std::move(h));
        }
        return p;
    }

    std::optional<std::string> emptyMessageTyped(const HeatPrepared& p, const ParamValues&) const override {
        if (!p.runs.empty()) return std::nullopt;
        return emptyReason(p.messages, "no per-core CPU samples (record them with `strobe-cli sample cpu`)");
    }

    void drawTyped(Canvas& c, const HeatPrepared& p, const ParamValues&) const override {
        if (p.runs.empty()) return;
        const HeatGeometry g = geometry(c, p);
        auto& painter = c.painter;
        const Theme t = c.theme();
        for (size_t k = 0; k < p.runs.size(); ++k) {
            const auto& h = p.runs[k];
            const ChartLayout& L = g.panels[k];
            drawAxes(c, L);
            if (!g.labels[k].isEmpty()) {
                painter.setPen(t.foreground);
                painter.drawText(g.labels[k], Qt::AlignLeft | Qt::AlignVCenter,
                                 elided(painter, p.runLabels[h.run], g.labels[k].width()));
            }
            // One image pixel per screen column and core, scaled to the plot (nearest neighbour).
            const int w = std::max(1, int(L.plot.width()));
            QImage img(w, int(h.cores.size()), QImage::Format_ARGB32);
            img.fill(Qt::transparent);
            for (int x = 0; x < w; ++x) {
                const double tm = L.x.lo + (double(x) + 0.5) / double(w) * (L.x.hi - L.x.lo);
                auto it = std::lower_bound(h.end.begin(), h.end.end(), int64_t(std::ceil(tm)));
                if (it == h.end.end()) continue;
                const size_t i = size_t(it - h.end.begin());
                if (double(h.start[i]) > tm) continue;
                for (size_t row = 0; row < h.cores.size(); ++row)
                    if (std::isfinite(h.pct[row][i])) img.setPixelColor(x, int(row), heatColor(h.pct[row][i] / 100.0));
            }
            painter.drawImage(L.plot, img);
        }
        drawColorBar(c, g.colorBar);
    }

    std::optional<HitInfo> hitTestTyped(const HeatPrepared& p, const ParamValues&, const QRectF& rect,
                                        QPointF pt) const override {
        if (p.runs.empty()) return std::nullopt;
        LayoutCanvas lc(rect);
        const HeatGeometry g = geometry(lc.canvas, p);
        for (size_t k = 0; k < p.runs.size(); ++k) {
            const ChartLayout& L = g.panels[k];
            if (!L.plot.contains(pt)) continue;
            const auto& h = p.runs[k];
            const size_t row = std::min(h.cores.size() - 1, size_t((pt.y() - L.plot.top()) / L.bandSize(false)));
            const double tm = L.x.lo + (pt.x() - L.plot.left()) / L.plot.width() * (L.x.hi - L.x.lo);
            auto it = std::lower_bound(h.end.begin(), h.end.end(), int64_t(std::ceil(tm)));
            if (it == h.end.end()) return std::nullopt;
            const size_t i = size_t(it - h.end.begin());
            if (double(h.start[i]) > tm) return std::nullopt;
            HitInfo info;
            info.title = fmt::format("cpu{}", h.cores[row]);
            info.fields = {{"run", p.runLabels[h.run]},
                           {"interval", formatDuration(double(h.start[i])) + " – " + formatDuration(double(h.end[i]))},
                           {"utilisation", std::isfinite(h.pct[row][i]) ? formatPercent(h.pct[row][i]) : "no sample"}};
            const double x0 = L.xAt(double(h.start[i])), x1 = L.xAt(double(h.end[i]));
            const double y0 = L.plot.top() + double(row) * L.bandSize(false);
            info.itemRect = QRectF(QPointF(std::max(x0, L.plot.left()), y0),
                                   QPointF(std::min(x1, L.plot.right()), y0 + L.bandSize(false)));
            return info;
        }
        return std::nullopt;
    }

    core::Table tableTyped(const HeatPrepared& p, const ParamValues& values) const override {
        core::Table t;
        t.columns = {"run", "core", "start_ns", "end_ns", "util_pct"};
        t.messages = p.messages;
        for (const auto& h : p.runs)
            for (size_t row = 0; row < h.cores.size(); ++row)
                for (size_t i = 0; i < h.start.size(); ++i)
                    if (std::isfinite(h.pct[row][i]))
                        t.addRow({p.runLabels[h.run], int64_t(h.cores[row]), h.start[i], h.end[i], h.pct[row][i]});
        if (p.runs.empty()) t.messages.push_back(*emptyMessageTyped(p, values));
        return t;
    }

private:
    HeatGeometry geometry(Canvas& c, const HeatPrepared& p) const {
        QRectF area = drawTitle(c, c.rect, title(), "utilisation of each core in each sampler interval; elapsed time "
                                                    "from the start of each run's first interval");
        const QFontMetricsF fm(c.painter.font());
        HeatGeometry g;
        const double barWidth = 16 + fm.horizontalAdvance("100%") + 16;
        g.colorBar = QRectF(area.right() - barWidth + 8, area.top() + fm.height() + 8, 16,
                            std::max(0.0, area.height() - 2 * fm.height() - 24));
        area.setRight(area.right() - barWidth);
        int64_t end = 1;
        for (const auto& h : p.runs) end = std::max(end, h.end.back());
        const bool labelled = p.runs.size() > 1;
        for (const QRectF& panel : panelRects(area, p.runs.size())) {
            QRectF inner = panel;
            QRectF label;
            if (labelled) {
                label = QRectF(panel.left() + 8, panel.top(), panel.width() - 16, fm.height());
                inner.setTop(panel.top() + fm.height() + 2);
            }
            const auto& h = p.runs[g.panels.size()];
            std::vector<std::string> rows;
            for (int core : h.cores) rows.push_back(fmt::format("cpu{}", core));
            g.labels.push_back(label);
            g.panels.push_back(layoutChart(fm, inner, ChartAxis::linear(0, double(end), TickUnit::Duration, "elapsed time"),
                                           ChartAxis::bandsOf(rows)));
        }
        return g;
    }

    static void drawColorBar(Canvas& c, const QRectF& bar) {
        std::vector<std::pair<double, std::string>> ticks;
        for (int pct = 0; pct <= 100; pct += 25) ticks.emplace_back(pct / 100.0, fmt::format("{}%", pct));
        drawHeatColorBar(c, bar, ticks, "util");
    }
};

}  // namespace

STROBE_REGISTER_PLOT(CpuCoreHeatmapPlot)

}  // namespace strobe::plots
