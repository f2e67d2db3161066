// Energy per step: board power integrated over each ProfilerStep of a run (trapezoid rule between samples, linear
// interpolation at the step's edges), summed over the run's GPUs, one bar per configuration (median, whiskers
// 25th–75th percentile of its steps; repeats pool their steps). Steps and power samples must be on one clock (the
// dataset's clock rules, core/model/clock_rules.h): a run whose clocks cannot be related contributes nothing, and
// says why. A run without steps gives the energy of its whole sample series instead, and says so.
//
// A step spans all ranks (the earliest rank's start to the latest rank's end). A step is counted only when every
// GPU's power samples cover it (a sample at or before its start and at or after its end).

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "core/analysis/context.h"
#include "core/model/clock_rules.h"
#include "plots/plot_registry.h"
#include "plots/sweep_axes.h"
#include "plots/telemetry_plot.h"

namespace strobe::plots {
namespace {

const AxisParam kTotalPowerX{
    "x", "X axis", "Sweep axis of the bars (auto: the first that varies; configuration: one bar each)", false};
const AxisParam kTotalPowerColor{"color", "Colour",
                                 "Sweep axis coloured within a bar group (auto: the next that varies)", true};
const StringParam kTotalPowerPower{"power_metric", "Power metric", "Telemetry metric integrated over time (W)",
                                   "power_w"};
using Series = std::vector<std::pair<int64_t, double>>;  // (time on the run's shared axis, W), by time

// ∫ of the samples' piecewise-linear interpolation over [a, b], in J (W × ns ÷ 1e9). The samples cover [a, b].
double integrateJ(const Series& s, int64_t a, int64_t b) {
    auto valueAt = [](const std::pair<int64_t, double>& p, const std::pair<int64_t, double>& q, int64_t t) {
        if (q.first == p.first) return q.second;
        return p.second + (q.second - p.second) * double(t - p.first) / double(q.first - p.first);
    };
    double area = 0;
    auto it = std::upper_bound(s.begin(), s.end(), a, [](int64_t t, const auto& e) { return t < e.first; });
    size_t i = it == s.begin() ? 0 : size_t(it - s.begin()) - 1;
    for (; i + 1 < s.size() && s[i].first < b; ++i) {
        const int64_t lo = std::max(a, s[i].first), hi = std::min(b, s[i + 1].first);
        if (hi <= lo) continue;
        area += (valueAt(s[i], s[i + 1], lo) + valueAt(s[i], s[i + 1], hi)) / 2 * double(hi - lo);
    }
    return area / 1e9;
}

struct EnergyRow {
    size_t run = 0;
    int64_t step = -1;  // -1: the whole sample series
    int64_t startNs = 0, durNs = 0;
    double joules = 0;
    size_t gpus = 0;
};

struct TotalPowerGroup {
    std::string x, color;
    std::vector<size_t> runs;
    bool wholeSeries = false;
    std::vector<double> joules;  // sorted
};

struct EnergyPrepared final : Prepared {
    std::vector<TotalPowerGroup> groups;
    std::vector<EnergyRow> rows;
    std::vector<std::string> xValues, colorValues;
    std::string xAxis, colorAxis, metric;
    std::vector<std::string> runLabels;
    std::vector<std::string> messages;
    size_t bytes() const override {
        size_t b = sizeof(*this) + rows.size() * sizeof(EnergyRow);
        for (const auto& g : groups) b += sizeof(g) + g.joules.size() * sizeof(double);
        return b;
    }
};

// The power series of every (sample source, device) of a run on the shared axis (overlayTime), and the ranks holding them.
std::map<std::pair<size_t, int>, Series> powerSeries(const core::Dataset& ds, const std::string& metric,
                                                     std::vector<const core::RankData*>& ranks) {
    std::map<std::pair<size_t, int>, Series> out;
    const auto sources = ds.sampleSources();  // the ranks' samples and the hosts' telemetry
    for (size_t ri = 0; ri < sources.size(); ++ri) {
        const auto& r = *sources[ri];
        auto id = r.strings.find(metric);
        if (!id) continue;
        bool any = false;
        for (size_t i = 0; i < r.samples.size(); ++i)
            if (r.samples.metric[i] == *id && std::isfinite(r.samples.value[i])) {
                out[{ri, r.samples.device[i]}].push_back({core::overlayTime(r, r.samples.ts[i]), r.samples.value[i]});
                any = true;
            }
        if (any) ranks.push_back(&r);
    }
    for (auto& [k, s] : out) std::stable_sort(s.begin(), s.end(), [](auto& a, auto& b) { return a.first < b.first; });
    return out;
}

// Steps of the run on the shared axis: number → (earliest start, latest end) over its ranks.
std::map<int64_t, std::pair<int64_t, int64_t>> runSteps(const core::DatasetPtr& ds,
                                                        std::vector<const core::RankData*>& ranks) {
    std::map<int64_t, std::pair<int64_t, int64_t>> out;
    auto ctx = core::AnalysisContext::of(ds);
    for (size_t ri = 0; ri < ds->ranks.size(); ++ri) {
        const auto& steps = ctx->steps(ri);
        if (steps.empty()) continue;
        const auto& r = *ds->ranks[ri];
        ranks.push_back(&r);
        for (const auto& s : steps) {
            const int64_t a = core::overlayTime(r, s.start), b = core::overlayTime(r, s.end);
            auto [it, added] = out.try_emplace(s.number, a, b);
            if (!added) it->second = {std::min(it->second.first, a), std::max(it->second.second, b)};
        }
    }
    return out;
}

// The energy rows of one run, or the message saying why it has none; `wholeSeries` tells which kind.
std::vector<EnergyRow> runEnergy(const RunEntry& run, size_t index, const std::string& metric, int64_t skip,
                                 bool& wholeSeries, std::vector<std::string>& messages) {
    std::vector<EnergyRow> rows;
    std::vector<const core::RankData*> powerRanks, stepRanks;
    const auto power = powerSeries(*run.dataset, metric, powerRanks);
    if (power.empty()) {
        messages.push_back(fmt::format("{}: no {} samples", run.label, metric));
        return rows;
    }
    const auto steps = runSteps(run.dataset, stepRanks);
    int64_t first = std::numeric_limits<int64_t>::max(), last = std::numeric_limits<int64_t>::min();
    for (const auto& [k, s] : power) first = std::min(first, s.front().first), last = std::max(last, s.back().first);
    wholeSeries = steps.empty();
    if (wholeSeries) {
        EnergyRow row{index, -1, 0, last - first, 0, power.size()};
        for (const auto& [k, s] : power) row.joules += integrateJ(s, s.front().first, s.back().first);
        messages.push_back(fmt::format("{}: no ProfilerStep#N: energy over the whole sample series ({}, {} GPU{})",
                                       run.label, formatDuration(double(last - first)), power.size(),
                                       power.size() == 1 ? "" : "s"));
        rows.push_back(row);
        return rows;
    }
    std::vector<const core::RankData*> both = stepRanks;
    both.insert(both.end(), powerRanks.begin(), powerRanks.end());
    if (core::Status clocks = core::checkClockOverlay(both); !clocks) {
        messages.push_back(fmt::format("{}: its steps and {} samples cannot be aligned: {}", run.label, metric,
                                       clocks.error().message));
        return rows;
    }
    size_t uncovered = 0, seen = 0;
    int64_t origin = std::numeric_limits<int64_t>::max();
    for (const auto& [number, span] : steps) origin = std::min(origin, span.first);
    for (const auto& [number, span] : steps) {
        if (int64_t(seen++) < skip) continue;
        const auto [a, b] = span;
        EnergyRow row{index, number, a - origin, b - a, 0, power.size()};
        bool covered = b > a;
        for (const auto& [k, s] : power) covered = covered && s.front().first <= a && s.back().first >= b;
        if (!covered) {
            ++uncovered;
            continue;
        }
        for (const auto& [k, s] : power) row.joules += integrateJ(s, a, b);
        rows.push_back(row);
    }
    if (uncovered > 0) {
        const int64_t stepsEnd = std::max_element(steps.begin(), steps.end(), [](const auto& a, const auto& b) {
                                     return a.second.second < b.second.second;
                                 })->second.second;
        messages.push_back(fmt::format("{}: {} steps are not covered by every GPU's {} samples and are left out "
                                       "(relative to the first step's start: samples {:.3f} s to {:.3f} s, steps "
                                       "0 s to {:.3f} s)",
                                       run.label, uncovered, metric, double(first - origin) / 1e9,
                                       double(last - origin) / 1e9, double(stepsEnd - origin) / 1e9));
    }
    return rows;
}

class TotalPowerPlot final : public TypedPlot<EnergyPrepared> {
public:
    TotalPowerPlot()
        : TypedPlot({"total-power", "Energy per step",
                     "Board power integrated over every profiler step (all GPUs of a run), one bar per configuration: "
                     "median and 25th–75th percentile of its steps.",
                     206}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        return {kTotalPowerX.spec(runs), kTotalPowerColor.spec(runs), kTotalPowerPower.spec(), kSkipSteps.spec()};
    }

    core::Result<std::shared_ptr<EnergyPrepared>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                               const core::CancelToken& cancel,
                                                               const core::ProgressFn&) const override {
        auto p = std::make_shared<EnergyPrepared>();
        const AxisRoles roles = resolveAxisRoles(runs, kTotalPowerX(values), kTotalPowerColor(values), kNoAxis);
        p->xAxis = roles.x;
        p->colorAxis = roles.color;
        p->metric = kTotalPowerPower(values);
        for (size_t run = 0; run < runs.size(); ++run) {
            if (cancel.cancelled()) return cancelledError();
            p->runLabels.push_back(runs[run].label);
            if (!runs[run].dataset) continue;
            bool whole = false;
            auto rows = runEnergy(runs[run], run, p->metric, kSkipSteps(values), whole, p->messages);
            if (rows.empty()) continue;
            const std::string x = axisValueOf(runs[run], roles.x), color = axisValueOf(runs[run], roles.color);
            auto g = std::find_if(p->groups.begin(), p->groups.end(),
                                  [&](const TotalPowerGroup& e) { return e.x == x && e.color == color; });
            if (g == p->groups.end()) g = p->groups.insert(p->groups.end(), TotalPowerGroup{x, color, {}, whole, {}});
            if (g->wholeSeries != whole) {  // per-step numbers and whole-series ones do not pool
                p->messages.push_back(fmt::format("{}: left out of its configuration, whose other runs {} steps",
                                                  runs[run].label, whole ? "have" : "have no"));
                continue;
            }
            g->runs.push_back(run);
            for (const auto& r : rows) g->joules.push_back(r.joules);
            p->rows.insert(p->rows.end(), rows.begin(), rows.end());
        }
        for (auto& g : p->groups) {
            std::sort(g.joules.begin(), g.joules.end());
            p->xValues.push_back(g.x);
            p->colorValues.push_back(g.color);
        }
        sortAxisValues(p->xValues);
        sortAxisValues(p->colorValues);
        return p;
    }

    std::optional<std::string> emptyMessageTyped(const EnergyPrepared& p, const ParamValues& values) const override {
        if (!p.groups.empty()) return std::nullopt;
        return emptyReason(
            p.messages, fmt::format("no {} samples (open a telemetry source with the run)", kTotalPowerPower(values)));
    }

    void drawTyped(Canvas& c, const EnergyPrepared& p, const ParamValues&) const override {
        if (!p.groups.empty()) drawGroupedBars(c, layout(c, p), bars(p));
    }

    std::optional<HitInfo> hitTestTyped(const EnergyPrepared& p, const ParamValues&, const QRectF& rect,
                                        QPointF pt) const override {
        if (p.groups.empty()) return std::nullopt;
        LayoutCanvas lc(rect);
        const auto at = groupedBarAt(layout(lc.canvas, p), bars(p), pt);
        if (!at) return std::nullopt;
        const TotalPowerGroup* g = groupAt(p, at->first, at->second);
        if (!g) return std::nullopt;
        HitInfo h;
        h.title = g->color.empty() ? g->x : fmt::format("{} · {}", g->x, g->color);
        std::string runs;
        for (size_t r : g->runs) runs += (runs.empty() ? "" : ", ") + p.runLabels[r];
        const auto& v = g->joules;
        auto q = [&](double f) { return core::stats::quantile(std::span<const double>(v), f); };
        h.fields = {{"runs", runs},
                    {g->wholeSeries ? "whole sample series" : "steps", std::to_string(v.size())},
                    {"median", formatNumber(q(0.5)) + " J"},
                    {"p25 – p75", formatNumber(q(0.25)) + " – " + formatNumber(q(0.75)) + " J"},
                    {"min – max", formatNumber(v.front()) + " – " + formatNumber(v.back()) + " J"}};
        return h;
    }

    core::Table tableTyped(const EnergyPrepared& p, const ParamValues& values) const override {
        core::Table t;
        t.columns = {"x", "color", "run", "step", "start_ns", "dur_ns", "energy_j", "mean_power_w", "gpus"};
        t.messages = p.messages;
        for (const auto& g : p.groups)
            for (const auto& r : p.rows) {
                if (std::find(g.runs.begin(), g.runs.end(), r.run) == g.runs.end()) continue;
                t.addRow({g.x, g.color, p.runLabels[r.run], r.step >= 0 ? core::Cell(r.step) : core::Cell(), r.startNs,
                          r.durNs, r.joules,
                          r.durNs > 0 ? core::Cell(r.joules / (double(r.durNs) / 1e9)) : core::Cell(),
                          int64_t(r.gpus)});
            }
        if (p.groups.empty()) t.messages.push_back(*emptyMessageTyped(p, values));
        return t;
    }

private:
    static const TotalPowerGroup* groupAt(const EnergyPrepared& p, size_t band, size_t series) {
        if (band >= p.xValues.size() || series >= p.colorValues.size()) return nullptr;
        for (const auto& g : p.groups)
            if (g.x == p.xValues[band] && g.color == p.colorValues[series]) return &g;
        return nullptr;
    }

    static GroupedBars bars(const EnergyPrepared& p) {
        GroupedBars b;
        bool anyWhole = false, anySteps = false;
        for (const auto& g : p.groups) (g.wholeSeries ? anyWhole : anySteps) = true;
        b.valueTitle = anyWhole ? (anySteps ? "energy per step (J); bars marked * : whole sample series"
                                            : "energy over the whole sample series (J)")
                                : "energy per step (J)";
        b.valueSuffix = " J";
        for (const auto& x : p.xValues) {
            bool whole = anySteps;
            for (const auto& g : p.groups)
                if (g.x == x) whole = whole && g.wholeSeries;
            b.bands.push_back(whole ? x + " *" : x);
        }
        for (size_t s = 0; s < p.colorValues.size(); ++s) {
            b.series.push_back(p.colorValues[s].empty() ? std::string("energy") : p.colorValues[s]);
            b.colors.push_back(seriesColor(int(s)));
        }
        b.values.assign(b.bands.size(), std::vector<double>(b.series.size(), NAN));
        b.whiskers.assign(b.bands.size(), std::vector<std::pair<double, double>>(b.series.size(), {NAN, NAN}));
        for (size_t band = 0; band < b.bands.size(); ++band)
            for (size_t s = 0; s < b.series.size(); ++s)
                if (const TotalPowerGroup* g = groupAt(p, band, s); g && !g->joules.empty()) {
                    std::span<const double> v(g->joules);
                    b.values[band][s] = core::stats::quantile(v, 0.5);
                    if (v.size() > 1) b.whiskers[band][s] = {core::stats::quantile(v, 0.25), core::stats::quantile(v, 0.75)};
                }
        return b;
    }

    QRectF layout(Canvas& c, const EnergyPrepared& p) const {
        bool anySteps = false;
        for (const auto& g : p.groups) anySteps = anySteps || !g.wholeSeries;
        const std::string what = anySteps ? "integrated over each step" : "integrated over each run's whole sample series (no steps)";
        const std::string sub = fmt::format("{} {}, all GPUs of a run; bar: median, whiskers: 25th–75th percentile; x: {}{}",
                                            p.metric, what, p.xAxis, p.colorAxis.empty() ? "" : "; colour: " + p.colorAxis);
        QRectF area = drawTitle(c, c.rect, title(), sub);
        if (!p.colorAxis.empty()) {
            std::vector<LegendEntry> legend;
            for (size_t s = 0; s < p.colorValues.size(); ++s) legend.push_back({p.colorValues[s], seriesColor(int(s))});
            area = drawLegend(c, area, legend);
        }
        return area;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(TotalPowerPlot)

}  // namespace strobe::plots
