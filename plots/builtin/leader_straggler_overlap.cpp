// Leader/straggler overlap (issue 9): for every collective matched across ranks, the rank that arrives last (the
// straggler: the shortest kernel, core/analysis/collectives.h) against the other ranks: the share of their
// collective kernels' time during which compute kernels ran on the same rank (overlapped time / kernel time,
// summed over the collectives), two bars per configuration (repeats pooled) or per value of the chosen axis.
// Ranks that wait long with nothing to overlap lose that time; a straggler whose collective overlaps compute
// was late because of that compute.

#include <map>

#include <fmt/format.h>

#include "core/analysis/collectives.h"
#include "plots/chart.h"
#include "plots/plot_registry.h"
#include "plots/sweep_axes.h"

namespace strobe::plots {
namespace {

const AxisParam kLeaderStragglerOverlapX{"x", "Bars by", "Sweep axis of the bars ((auto): each configuration)", false};
struct Side {
    uint64_t collectives = 0;
    double kernelNs = 0, overlapNs = 0;
    double pct() const { return kernelNs > 0 ? 100.0 * overlapNs / kernelNs : 0.0; }
};

struct OverlapPrepared final : Prepared {
    std::string axis;
    std::vector<std::string> bars;          // x values, sorted
    std::vector<std::pair<Side, Side>> sides;  // straggler, others per bar
    std::vector<std::string> messages;
    size_t bytes() const override { return sizeof(*this) + bars.size() * 96; }
};

class LeaderStragglerOverlapPlot final : public BarPlot<OverlapPrepared> {
public:
    LeaderStragglerOverlapPlot()
        : BarPlot({"leader-straggler-overlap", "Leader/straggler overlap",
                   "For every collective, the rank that arrives last (shortest kernel) against the others: the share "
                   "of their collective time overlapped by compute on the same rank, per configuration.",
                   132}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        return {kLeaderStragglerOverlapX.spec(runs), kSkipSteps.spec(), kLegend.spec()};
    }

    core::Result<std::shared_ptr<OverlapPrepared>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                                const core::CancelToken& cancel,
                                                                const core::ProgressFn&) const override {
        auto p = std::make_shared<OverlapPrepared>();
        const std::string chosen = kLeaderStragglerOverlapX(values);
        p->axis = chosen == kAutoAxis ? std::string(kConfigurationAxis)
                                      : resolveAxisRoles(runs, chosen, kNoAxis, kNoAxis).x;
        std::map<std::string, std::pair<Side, Side>> by;
        for (const auto& run : runs) {
            if (cancel.cancelled()) return cancelledError();
            if (!run.dataset) continue;
            const core::RunCollectives rc = core::runCollectives(run.dataset, int(kSkipSteps(values)));
            for (const auto& m : rc.messages) p->messages.push_back(run.label + ": " + m);
            if (run.dataset->ranks.size() < 2) {
                p->messages.push_back(run.label + ": one rank: no straggler to tell apart");
                continue;
            }
            auto& [straggler, others] = by[axisValueOf(run, p->axis)];
            for (const auto& c : rc.instances) {
                if (c.ranks.size() < 2) continue;
                ++straggler.collectives;
                ++others.collectives;
                for (size_t k = 0; k < c.ranks.size(); ++k) {
                    Side& s = k == c.straggler ? straggler : others;
                    s.kernelNs += double(c.ranks[k].dur);
                    s.overlapNs += double(c.ranks[k].computeOverlapNs);
                }
            }
        }
        for (const auto& [x, s] : by)
            if (s.first.collectives > 0) p->bars.push_back(x);
        sortAxisValues(p->bars);
        for (const auto& x : p->bars) p->sides.push_back(by[x]);
        if (p->bars.empty()) p->messages.push_back("no collective matched across two ranks or more");
        return p;
    }

    std::optional<std::string> noData(const OverlapPrepared& p) const override {
        if (p.bars.empty()) return emptyReason(p.messages, "no collective matched across ranks");
        return std::nullopt;
    }
    // Zero overlap on both sides is a result, not an empty picture: say it rather than draw bars of no height.
    std::string noBarsMessage() const override { return "no compute overlaps any collective"; }

    BarChart chart(const OverlapPrepared& p, const ParamValues& v) const override {
        BarChart c;
        c.title = title();
        c.subtitle = "share of collective kernel time overlapped by compute on the same rank";
        c.stacked = false;
        c.percentAxis = true;
        c.durationAxis = false;
        c.valueLabel = "overlapped by compute (%)";
        c.bandLabel = p.axis;
        c.series = {"straggler (arrives last)", "other ranks"};
        c.colors = {QColor(0xd6, 0x27, 0x28), QColor(0x7f, 0x7f, 0x7f)};
        c.legend = legendMode(v);
        c.messages = p.messages;
        c.bars = p.bars;
        for (const auto& [s, o] : p.sides) c.values.push_back({s.pct(), o.pct()});
        const auto sides = p.sides;
        const auto bars = p.bars;
        c.hitFields = [sides, bars](size_t bar, size_t series) {
            const Side& s = series == 0 ? sides[bar].first : sides[bar].second;
            return BarChart::Fields{{"bar", bars[bar]},
                                    {"ranks", series == 0 ? "the straggler of each collective" : "the other ranks"},
                                    {"collectives", std::to_string(s.collectives)},
                                    {"kernel time", formatDuration(s.kernelNs)},
                                    {"overlapped by compute", formatDuration(s.overlapNs)},
                                    {"share", formatPercent(s.pct())}};
        };
        return c;
    }

    core::Table tableTyped(const OverlapPrepared& p, const ParamValues&) const override {
        core::Table t;
        t.columns = {"bar", "ranks", "collectives", "kernel_ns", "overlap_ns", "overlap_pct"};
        t.messages = p.messages;
        for (size_t i = 0; i < p.bars.size(); ++i)
            for (int k = 0; k < 2; ++k) {
                const Side& s = k == 0 ? p.sides[i].first : p.sides[i].second;
                t.addRow({p.bars[i], std::string(k == 0 ? "straggler" : "others"), int64_t(s.collectives),
                          int64_t(s.kernelNs), int64_t(s.overlapNs), s.pct()});
            }
        return t;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(LeaderStragglerOverlapPlot)

}  // namespace strobe::plots
