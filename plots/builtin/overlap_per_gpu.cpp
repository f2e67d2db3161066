// Overlap per GPU (issue 9): per rank, Holistic Trace Analysis' communication/computation overlap (the share of
// merged communication time during which computation kernels run; analysis `overlap`), one bar per configuration
// (or per value of the colour axis), repeats pooled (times summed before dividing).

#include <map>
#include <set>

#include <fmt/format.h>

#include "plots/builtin/kernel_overlap_plots.h"
#include "plots/chart.h"
#include "plots/plot_registry.h"

namespace strobe::plots {
namespace {

struct OverlapGpuPrepared final : Prepared {
    std::vector<int> ranks;           // bands, ascending
    std::vector<std::string> colors;  // series
    std::string axis;
    std::map<std::pair<size_t, size_t>, core::OverlapRankRow> rows;  // (rank index, colour) -> row
    std::vector<std::string> messages;
    size_t bytes() const override { return sizeof(*this) + rows.size() * (sizeof(core::OverlapRankRow) + 96); }
};

class OverlapPerGpuPlot final : public BarPlot<OverlapGpuPrepared> {
public:
    OverlapPerGpuPlot()
        : BarPlot(
              {"overlap-per-gpu", "Overlap per GPU",
               "Per rank, the share of communication time overlapped by computation (HTA's definition), one bar per "
               "sweep configuration, repeats pooled.",
               128}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        return {kSkipSteps.spec(), kOverlapColor.spec(runs), kHorizontal.spec(), kLegend.spec()};
    }

    core::Result<std::shared_ptr<OverlapGpuPrepared>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                                   const core::CancelToken& cancel,
                                                                   const core::ProgressFn&) const override {
        auto p = std::make_shared<OverlapGpuPrepared>();
        const OverlapColors colors = overlapColors(runs, values);
        core::KernelOverlapOptions o;
        o.top = 1;  // the kernel groups are not shown here
        auto s = overlapByColor(runs, values, colors, o, cancel);
        if (!s) return s.error();
        p->colors = colors.order;
        p->axis = colors.axis;
        p->messages = s->messages;
        std::set<int> ranks;
        for (const auto& r : s->ranks) ranks.insert(r.rank);
        p->ranks.assign(ranks.begin(), ranks.end());
        std::map<std::string, size_t> colorIndex;
        for (size_t i = 0; i < p->colors.size(); ++i) colorIndex[p->colors[i]] = i;
        for (auto& r : s->ranks) {
            const size_t ri = size_t(std::lower_bound(p->ranks.begin(), p->ranks.end(), r.rank) - p->ranks.begin());
            p->rows[{ri, colorIndex[r.config]}] = std::move(r);
        }
        return p;
    }

    BarChart chart(const OverlapGpuPrepared& p, const ParamValues& v) const override {
        std::vector<std::string> bands;
        for (int r : p.ranks) bands.push_back(fmt::format("rank {}", r));
        BarChart c = overlapBarChart(v, "Overlap per GPU", "communication time overlapped by computation (HTA)",
                                     "communication time overlapped", "rank", std::move(bands), p.axis, p.colors,
                                     [&p](size_t b, size_t k) -> std::optional<double> {
                                         auto it = p.rows.find({b, k});
                                         if (it == p.rows.end()) return std::nullopt;
                                         return it->second.overlapPct;
                                     });
        const OverlapGpuPrepared* pp = &p;
        c.hitFields = [pp](size_t bar, size_t series) {
            BarChart::Fields f{{"rank", std::to_string(pp->ranks[bar])},
                               {pp->axis.empty() ? "runs" : pp->axis, pp->colors[series]}};
            auto it = pp->rows.find({bar, series});
            if (it == pp->rows.end()) return f;
            const auto& r = it->second;
            f.emplace_back("overlap", r.overlapPct ? formatPercent(*r.overlapPct) : std::string("no communication"));
            f.emplace_back("communication", formatDuration(double(r.commNs)));
            f.emplace_back("overlapped", formatDuration(double(r.overlapNs)));
            f.emplace_back("computation", formatDuration(double(r.compNs)));
            f.emplace_back("runs", std::to_string(r.runs));
            return f;
        };
        c.messages = p.messages;
        return c;
    }

    std::optional<std::string> noData(const OverlapGpuPrepared& p) const override {
        if (p.ranks.empty()) return emptyReason(p.messages, "no GPU activity in these runs");
        return std::nullopt;
    }
    std::string noBarsMessage() const override { return "no rank has communication overlapped by computation"; }

    core::Table tableTyped(const OverlapGpuPrepared& p, const ParamValues&) const override {
        core::Table t;
        t.columns = {"rank", "configuration", "runs", "comm_ns", "comp_ns", "overlap_ns", "overlap_pct"};
        t.messages = p.messages;
        for (const auto& [key, r] : p.rows)
            t.addRow({int64_t(r.rank), p.colors[key.second], int64_t(r.runs), r.commNs, r.compNs, r.overlapNs,
                      r.overlapPct ? core::Cell(*r.overlapPct) : core::Cell()});
        return t;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(OverlapPerGpuPlot)

}  // namespace strobe::plots
