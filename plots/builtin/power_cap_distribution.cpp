// Power-cap distribution: a histogram of board power as a percentage of the GPU's power cap, one bar group per bin
// and one bar per run (share of the run's samples). The cap is the GPU's own power_limit_w sample (the latest at or
// before each power sample, else its first), or the cap_w parameter when set (dmon and some samplers record no cap).

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "plots/plot_registry.h"
#include "plots/telemetry_plot.h"

namespace strobe::plots {
namespace {

const DoubleParam kCapW =
    DoubleParam{"cap_w", "Power cap (W)", "Power cap to divide by; 0: each GPU's power_limit_w samples", 0.0}
        .bounded(0, 100000, 10)
        .unit("W");
const DoubleParam kBinPct =
    DoubleParam{"bin_pct", "Bin width (%)", "Width of a histogram bin, in percent of the cap", 5.0}
        .bounded(0.5, 50, 0.5)
        .drawOnly();

struct CapPrepared final : Prepared {
    std::vector<std::string> runLabels;
    std::vector<std::vector<double>> pct;  // per run: power ÷ cap × 100 of every sample that has a cap
    std::vector<std::string> messages;
    size_t bytes() const override {
        size_t b = sizeof(*this);
        for (const auto& v : pct) b += v.size() * sizeof(double);
        return b;
    }
};

// The cap of each power sample of one GPU: the latest power_limit_w at or before it, else the first one.
void addRank(const core::RankData& r, double capW, std::vector<double>& out, size_t& withoutCap) {
    auto power = r.strings.find("power_w");
    if (!power) return;
    auto limit = r.strings.find("power_limit_w");
    std::map<int, std::vector<std::pair<int64_t, double>>> caps;  // device → (ts, cap) by ts
    const auto& s = r.samples;
    if (limit)
        for (size_t i = 0; i < s.size(); ++i)
            if (s.metric[i] == *limit && s.value[i] > 0) caps[s.device[i]].push_back({s.ts[i], s.value[i]});
    for (auto& [d, v] : caps) std::stable_sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < s.size(); ++i) {
        if (s.metric[i] != *power) continue;
        double cap = capW;
        if (cap <= 0) {
            auto it = caps.find(s.device[i]);
            if (it == caps.end()) {
                ++withoutCap;
                continue;
            }
            const auto& v = it->second;
            auto after = std::upper_bound(v.begin(), v.end(), s.ts[i], [](int64_t t, const auto& e) { return t < e.first; });
            cap = after == v.begin() ? v.front().second : std::prev(after)->second;
        }
        out.push_back(s.value[i] / cap * 100.0);
    }
}

class PowerCapDistributionPlot final : public BarPlot<CapPrepared> {
public:
    PowerCapDistributionPlot()
        : BarPlot({"power-cap-distribution", "Power vs cap",
                   "Histogram of board power as a percentage of the power cap, one bar per run in each bin.", 230}) {}

    std::vector<ParamSpec> parameters(const RunSet&) const override { return {kCapW.spec(), kBinPct.spec()}; }

    core::Result<std::shared_ptr<CapPrepared>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                            const core::CancelToken& cancel,
                                                            const core::ProgressFn&) const override {
        auto p = std::make_shared<CapPrepared>();
        for (const auto& run : runs) {
            if (cancel.cancelled()) return cancelledError();
            p->runLabels.push_back(run.label);
            p->pct.emplace_back();
            size_t withoutCap = 0;
            if (run.dataset)
                for (const core::RankData* r : run.dataset->sampleSources())
                    addRank(*r, kCapW(values), p->pct.back(), withoutCap);
            if (withoutCap > 0)
                p->messages.push_back(fmt::format("{}: {} power samples of GPUs with no power_limit_w sample were left "
                                                  "out (set cap_w)", run.label, withoutCap));
            else if (p->pct.back().empty())
                p->messages.push_back(fmt::format("{}: no power_w samples", run.label));
        }
        if (cancel.cancelled()) return cancelledError();
        return p;
    }

    core::Table tableTyped(const CapPrepared& p, const ParamValues& values) const override {
        core::Table t;
        t.columns = {"run", "bin_lo_pct", "bin_hi_pct", "samples", "share_pct"};
        t.messages = p.messages;
        const auto h = histogram(p, values);
        for (size_t run = 0; run < p.runLabels.size(); ++run)
            for (size_t b = 0; b < h.bins.size(); ++b)
                if (h.counts[run][b] > 0)
                    t.addRow({p.runLabels[run], h.bins[b], h.bins[b] + h.width, int64_t(h.counts[run][b]),
                              100.0 * double(h.counts[run][b]) / double(p.pct[run].size())});
        return t;
    }

private:
    struct Histogram {
        double width = 5;
        std::vector<double> bins;                 // lower edges
        std::vector<std::vector<size_t>> counts;  // [run][bin]
    };

    static Histogram histogram(const CapPrepared& p, const ParamValues& v) {
        Histogram h;
        h.width = std::max(0.5, kBinPct(v));
        double lo = INFINITY, hi = -INFINITY;
        for (const auto& run : p.pct)
            for (double x : run) lo = std::min(lo, x), hi = std::max(hi, x);
        if (!std::isfinite(lo)) return h;
        const double first = std::floor(lo / h.width) * h.width;
        const size_t n = std::min<size_t>(1000, size_t(std::floor((hi - first) / h.width)) + 1);
        for (size_t b = 0; b < n; ++b) h.bins.push_back(first + double(b) * h.width);
        for (const auto& run : p.pct) {
            h.counts.emplace_back(n, 0);
            for (double x : run) h.counts.back()[std::min(n - 1, size_t(std::floor((x - first) / h.width)))]++;
        }
        return h;
    }

    std::string noBarsMessage() const override { return "no power samples with a known cap (set cap_w)"; }

    BarChart chart(const CapPrepared& p, const ParamValues& v) const override {
        BarChart c;
        c.title = title();
        c.subtitle = kCapW(v) > 0 ? fmt::format("power ÷ {:g} W; share of each run's samples per bin", kCapW(v))
                                  : std::string("power ÷ each GPU's power_limit_w; share of each run's samples per bin");
        c.valueLabel = "share of samples";
        c.bandLabel = "power, % of cap";
        c.stacked = false;
        c.durationAxis = false;
        c.percentAxis = true;
        c.messages = p.messages;
        const auto h = histogram(p, v);
        for (double b : h.bins) c.bars.push_back(fmt::format("{:g}–{:g}%", b, b + h.width));
        for (size_t run = 0; run < p.runLabels.size(); ++run) {
            c.series.push_back(p.runLabels[run]);
            c.colors.push_back(seriesColor(int(run)));
        }
        c.values.assign(h.bins.size(), std::vector<double>(p.runLabels.size(), 0.0));
        for (size_t run = 0; run < p.runLabels.size(); ++run)
            for (size_t b = 0; b < h.bins.size(); ++b)
                if (!p.pct[run].empty()) c.values[b][run] = 100.0 * double(h.counts[run][b]) / double(p.pct[run].size());
        return c;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(PowerCapDistributionPlot)

}  // namespace strobe::plots
