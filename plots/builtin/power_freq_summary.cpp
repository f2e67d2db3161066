// Power and clock summary: the mean board power and the mean graphics (SM / shader) clock of every configuration,
// as two bar groups side by side (W and MHz). A bar pools every sample of every GPU of the runs that share its x
// (and colour) value, so repeats of a configuration are one bar; the hover and the table break it down per GPU.

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "plots/plot_registry.h"
#include "plots/sweep_axes.h"
#include "plots/telemetry_plot.h"

namespace strobe::plots {
namespace {

const AxisParam kX{"x", "X axis", "Sweep axis of the bars (auto: the first that varies; configuration: one bar each)",
                   false};
const AxisParam kColor{"color", "Colour", "Sweep axis coloured within a bar group (auto: the next that varies)", true};
const StringParam kPower{"power_metric", "Power metric", "Telemetry metric of the first bar group", "power_w"};
const StringParam kClock{"clock_metric", "Clock metric", "Telemetry metric of the second bar group (graphics clock)",
                         "sclk_mhz"};

// Sums of one metric's samples.
struct Acc {
    size_t n = 0;
    double sum = 0;
    double mean() const { return n > 0 ? sum / double(n) : NAN; }
};

struct GpuMeans {
    size_t run = 0;
    std::string gpu;  // "GPU 0", "rank 1 · GPU 0", "host"
    Acc m[2];         // power, clock
};

struct Group {
    std::string x, color;
    std::vector<size_t> runs;
    std::vector<GpuMeans> gpus;
    Acc m[2];
};

struct SummaryPrepared final : Prepared {
    std::vector<Group> groups;
    std::vector<std::string> xValues, colorValues;  // sorted
    std::string xAxis, colorAxis;
    std::string metric[2];
    std::vector<std::string> runLabels;
    std::vector<std::string> messages;
    size_t bytes() const override {
        size_t b = sizeof(*this);
        for (const auto& g : groups) b += sizeof(g) + g.gpus.size() * sizeof(GpuMeans) + g.x.size() + g.color.size();
        return b;
    }
};

// Per (rank, device) sums of the two metrics of one run.
std::map<std::pair<int, int>, GpuMeans> runMeans(const core::Dataset& ds, size_t run, const std::string (&metric)[2]) {
    std::map<std::pair<int, int>, GpuMeans> out;
    for (const core::RankData* r : ds.sampleSources()) {  // the ranks' samples and the hosts' telemetry
        auto a = r->strings.find(metric[0]), b = r->strings.find(metric[1]);
        if (!a && !b) continue;
        const auto& s = r->samples;
        for (size_t i = 0; i < s.size(); ++i) {
            const int k = a && s.metric[i] == *a ? 0 : (b && s.metric[i] == *b ? 1 : -1);
            if (k < 0 || !std::isfinite(s.value[i])) continue;
            auto& g = out[{r->rank, s.device[i]}];
            g.run = run;
            g.m[k].n += 1;
            g.m[k].sum += s.value[i];
        }
    }
    std::set<int> ranks;
    for (const auto& kv : out) ranks.insert(kv.first.first);
    for (auto& [key, g] : out) {
        const std::string dev = key.second < 0 ? std::string("host") : fmt::format("GPU {}", key.second);
        g.gpu = ranks.size() <= 1 ? dev
                : key.first >= 0  ? fmt::format("rank {} · {}", key.first, dev)
                                  : fmt::format("host telemetry · {}", dev);  // Dataset::hosts: rank -1
    }
    return out;
}

class PowerFreqSummaryPlot final : public TypedPlot<SummaryPrepared> {
public:
    PowerFreqSummaryPlot()
        : TypedPlot({"power-freq-summary", "Power and clock per configuration",
                     "Mean board power and mean graphics clock of every configuration, two bar groups; hover for each "
                     "GPU's means.",
                     205}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        return {kX.spec(runs), kColor.spec(runs), kPower.spec(), kClock.spec()};
    }

    core::Result<std::shared_ptr<SummaryPrepared>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                                const core::CancelToken& cancel,
                                                                const core::ProgressFn&) const override {
        auto p = std::make_shared<SummaryPrepared>();
        const AxisRoles roles = resolveAxisRoles(runs, kX(values), kColor(values), kNoAxis);
        p->xAxis = roles.x;
        p->colorAxis = roles.color;
        p->metric[0] = kPower(values);
        p->metric[1] = kClock(values);
        for (size_t run = 0; run < runs.size(); ++run) {
            if (cancel.cancelled()) return cancelledError();
            p->runLabels.push_back(runs[run].label);
            if (!runs[run].dataset) continue;
            auto gpus = runMeans(*runs[run].dataset, run, p->metric);
            if (gpus.empty()) {
                p->messages.push_back(fmt::format("{}: no {} or {} samples", runs[run].label, p->metric[0], p->metric[1]));
                continue;
            }
            const std::string x = axisValueOf(runs[run], roles.x), color = axisValueOf(runs[run], roles.color);
            auto g = std::find_if(p->groups.begin(), p->groups.end(),
                                  [&](const Group& e) { return e.x == x && e.color == color; });
            if (g == p->groups.end()) g = p->groups.insert(p->groups.end(), Group{x, color, {}, {}, {}});
            g->runs.push_back(run);
            for (auto& [key, m] : gpus) {
                for (int k = 0; k < 2; ++k) g->m[k].n += m.m[k].n, g->m[k].sum += m.m[k].sum;
                g->gpus.push_back(std::move(m));
            }
        }
        for (const auto& g : p->groups) p->xValues.push_back(g.x), p->colorValues.push_back(g.color);
        sortAxisValues(p->xValues);
        sortAxisValues(p->colorValues);
        std::stable_sort(p->groups.begin(), p->groups.end(), [&](const Group& a, const Group& b) {
            auto rank = [](const std::vector<std::string>& v, const std::string& s) {
                return std::find(v.begin(), v.end(), s) - v.begin();
            };
            return std::make_pair(rank(p->xValues, a.x), rank(p->colorValues, a.color)) <
                   std::make_pair(rank(p->xValues, b.x), rank(p->colorValues, b.color));
        });
        return p;
    }

    std::optional<std::string> emptyMessageTyped(const SummaryPrepared& p, const ParamValues& values) const override {
        if (!p.groups.empty()) return std::nullopt;
        return emptyReason(p.messages,
                           fmt::format("no {} or {} samples (open a telemetry source: nvidia-smi, dmon, "
                                       "rocm-smi, amd-smi, a sampler CSV)",
                                       kPower(values), kClock(values)));
    }

    void drawTyped(Canvas& c, const SummaryPrepared& p, const ParamValues&) const override {
        if (p.groups.empty()) return;
        const auto halves = layout(c, p);
        for (int k = 0; k < 2; ++k) drawGroupedBars(c, halves[k], bars(p, k));
    }

    std::optional<HitInfo> hitTestTyped(const SummaryPrepared& p, const ParamValues&, const QRectF& rect,
                                        QPointF pt) const override {
        if (p.groups.empty()) return std::nullopt;
        LayoutCanvas lc(rect);
        const auto halves = layout(lc.canvas, p);
        for (int k = 0; k < 2; ++k) {
            if (!halves[k].contains(pt)) continue;
            auto at = groupedBarAt(halves[k], bars(p, k), pt);
            if (!at) return std::nullopt;
            const Group* g = groupAt(p, at->first, at->second);
            if (!g) return std::nullopt;
            HitInfo h;
            h.title = g->color.empty() ? g->x : fmt::format("{} · {}", g->x, g->color);
            std::string runs;
            for (size_t r : g->runs) runs += (runs.empty() ? "" : ", ") + p.runLabels[r];
            h.fields.push_back({"runs", runs});
            h.fields.push_back(
                {"mean " + p.metric[k], fmt::format("{} ({} samples)", formatNumber(g->m[k].mean()), g->m[k].n)});
            for (const auto& gpu : g->gpus)
                if (gpu.m[k].n > 0)
                    h.fields.push_back(
                        {g->runs.size() > 1 ? fmt::format("{} · {}", p.runLabels[gpu.run], gpu.gpu) : gpu.gpu,
                         fmt::format("{} ({} samples)", formatNumber(gpu.m[k].mean()), gpu.m[k].n)});
            return h;
        }
        return std::nullopt;
    }

    // One row per configuration ("all" GPUs: the bar), then one per GPU of each of its runs.
    core::Table tableTyped(const SummaryPrepared& p, const ParamValues& values) const override {
        core::Table t;
        t.columns = {"x", "color", "run", "gpu", kPower(values) + "_samples", "mean_" + kPower(values),
                     kClock(values) + "_samples", "mean_" + kClock(values)};
        t.messages = p.messages;
        auto mean = [](const Acc& a) { return a.n > 0 ? core::Cell(a.mean()) : core::Cell(); };
        for (const auto& g : p.groups) {
            std::string runs;
            for (size_t r : g.runs) runs += (runs.empty() ? "" : ", ") + p.runLabels[r];
            t.addRow({g.x, g.color, runs, std::string("all"), int64_t(g.m[0].n), mean(g.m[0]), int64_t(g.m[1].n),
                      mean(g.m[1])});
            for (const auto& gpu : g.gpus)
                t.addRow({g.x, g.color, p.runLabels[gpu.run], gpu.gpu, int64_t(gpu.m[0].n), mean(gpu.m[0]),
                          int64_t(gpu.m[1].n), mean(gpu.m[1])});
        }
        if (p.groups.empty()) t.messages.push_back(*emptyMessageTyped(p, values));
        return t;
    }

private:
    static const Group* groupAt(const SummaryPrepared& p, size_t band, size_t series) {
        if (band >= p.xValues.size()) return nullptr;
        const std::string color = series < p.colorValues.size() ? p.colorValues[series] : std::string();
        for (const auto& g : p.groups)
            if (g.x == p.xValues[band] && g.color == color) return &g;
        return nullptr;
    }

    static GroupedBars bars(const SummaryPrepared& p, int k) {
        GroupedBars b;
        b.valueTitle = "mean " + p.metric[k];
        const bool watts = p.metric[k].size() > 2 && p.metric[k].compare(p.metric[k].size() - 2, 2, "_w") == 0;
        const bool mhz = p.metric[k].size() > 4 && p.metric[k].compare(p.metric[k].size() - 4, 4, "_mhz") == 0;
        b.valueSuffix = watts ? " W" : (mhz ? " MHz" : "");
        b.bands = p.xValues;
        for (size_t s = 0; s < p.colorValues.size(); ++s) {
            b.series.push_back(p.colorValues[s].empty() ? p.metric[k] : p.colorValues[s]);
            b.colors.push_back(p.colorValues.size() > 1 ? seriesColor(int(s)) : seriesColor(k));
        }
        b.values.assign(b.bands.size(), std::vector<double>(b.series.size(), NAN));
        for (size_t band = 0; band < b.bands.size(); ++band)
            for (size_t s = 0; s < b.series.size(); ++s)
                if (const Group* g = groupAt(p, band, s); g && g->m[k].n > 0) b.values[band][s] = g->m[k].mean();
        return b;
    }

    // Title, legend (colour values, when a colour axis is mapped), and the two halves of the rest.
    std::array<QRectF, 2> layout(Canvas& c, const SummaryPrepared& p) const {
        const std::string sub = fmt::format(
            "mean over every sample of every GPU; x: {}{}; hover for each GPU", p.xAxis,
            p.colorAxis.empty() ? std::string() : "; colour: " + p.colorAxis);
        QRectF area = drawTitle(c, c.rect, title(), sub);
        if (!p.colorAxis.empty()) {
            std::vector<LegendEntry> legend;
            for (size_t s = 0; s < p.colorValues.size(); ++s) legend.push_back({p.colorValues[s], seriesColor(int(s))});
            area = drawLegend(c, area, legend);
        }
        const double gap = 24, w = (area.width() - gap) / 2;
        return {QRectF(area.left(), area.top(), w, area.height()),
                QRectF(area.left() + w + gap, area.top(), w, area.height())};
    }
};

}  // namespace

STROBE_REGISTER_PLOT(PowerFreqSummaryPlot)

}  // namespace strobe::plots
