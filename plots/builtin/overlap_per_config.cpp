// Overlap per configuration (issue 9): for the kernel groups with the most time per step, the share of each group's
// time during which communication kernels of the same GPU ran (core/analysis/kernel_overlap: the union of the
// collectives, so two at once count once), one bar per configuration (or per value of the colour axis) in each
// group's band.

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "plots/builtin/kernel_overlap_plots.h"
#include "plots/chart.h"
#include "plots/plot_registry.h"

namespace strobe::plots {
namespace {

const IntParam kOverlapPerConfigTop =
    IntParam{"top", "Top groups", "Kernel groups with the most time per step to show", 8}.bounded(1, 200, 1);
const EnumParam kKernels = EnumParam{"kernels", "Kernels",
                                     "computation: every computation kernel (HTA's types); gemm: GEMMs only "
                                     "(Strobe's classification)",
                                     "computation"}
                               .choices({"computation", "gemm"});

struct OverlapConfigPrepared final : Prepared {
    std::vector<std::string> groups;                 // bands, largest time per step first
    std::vector<std::string> colors;                 // series, in reading order
    std::string axis;                                // the colour axis ("" none)
    std::map<std::pair<size_t, size_t>, core::OverlapGroupRow> rows;  // (group, colour) -> row
    std::vector<std::string> messages;
    size_t bytes() const override { return sizeof(*this) + rows.size() * (sizeof(core::OverlapGroupRow) + 128); }
};

class OverlapPerConfigPlot final : public BarPlot<OverlapConfigPrepared> {
public:
    OverlapPerConfigPlot()
        : BarPlot({"overlap-per-config", "Overlap per configuration",
                   "For the kernel groups with the most time per step, the share of their time during which "
                   "communication kernels ran on the same GPU, one bar per sweep configuration.",
                   127}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        return {kOverlapPerConfigTop.spec(), kKernels.spec(),    kSweepGroupBy.spec(), kSkipSteps.spec(),
                kOverlapColor.spec(runs),    kHorizontal.spec(), kLegend.spec()};
    }

    core::Result<std::shared_ptr<OverlapConfigPrepared>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                                      const core::CancelToken& cancel,
                                                                      const core::ProgressFn&) const override {
        auto p = std::make_shared<OverlapConfigPrepared>();
        const OverlapColors colors = overlapColors(runs, values);
        core::KernelOverlapOptions o;
        o.top = static_cast<int>(kOverlapPerConfigTop(values));
        if (kKernels(values) != "gemm") o.category.reset();
        auto s = overlapByColor(runs, values, colors, o, cancel);
        if (!s) return s.error();
        p->colors = colors.order;
        p->axis = colors.axis;
        p->messages = s->messages;
        std::map<std::string, size_t> groupIndex, colorIndex;
        for (size_t i = 0; i < p->colors.size(); ++i) colorIndex[p->colors[i]] = i;
        for (auto& row : s->groups) {
            auto [it, fresh] = groupIndex.try_emplace(row.group, p->groups.size());
            if (fresh) p->groups.push_back(row.group);
            p->rows[{it->second, colorIndex[row.config]}] = std::move(row);
        }
        return p;
    }

    BarChart chart(const OverlapConfigPrepared& p, const ParamValues& v) const override {
        BarChart c = overlapBarChart(v, "Overlap per configuration",
                                     "share of each kernel group's time during which communication ran on the same GPU",
                                     "time overlapped by communication", "kernel group", p.groups, p.axis, p.colors,
                                     [&p](size_t g, size_t k) -> std::optional<double> {
                                         auto it = p.rows.find({g, k});
                                         if (it == p.rows.end()) return std::nullopt;
                                         return 100.0 * it->second.overlappedShare;
                                     });
        const OverlapConfigPrepared* pp = &p;
        c.hitFields = [pp](size_t bar, size_t series) {
            BarChart::Fields f{{"group", pp->groups[bar]}, {pp->axis.empty() ? "runs" : pp->axis, pp->colors[series]}};
            auto it = pp->rows.find({bar, series});
            if (it == pp->rows.end()) {
                f.emplace_back("instances", "0");
                return f;
            }
            const auto& r = it->second;
            f.emplace_back("overlapped", formatPercent(100.0 * r.overlappedShare) + " of " + formatDuration(double(r.totalNs)));
            f.emplace_back("instances", fmt::format("{} ({} overlap communication)", r.instances, r.overlappedInstances));
            if (r.slowdown) f.emplace_back("slowdown", fmt::format("{:.3f} (median overlapped / median alone)", *r.slowdown));
            f.emplace_back("time per step", formatDuration(r.perStepNs));
            return f;
        };
        c.messages = p.messages;
        return c;
    }

    std::optional<std::string> noData(const OverlapConfigPrepared& p) const override {
        if (p.groups.empty()) return emptyReason(p.messages, "no computation kernel in these runs");
        return std::nullopt;
    }
    std::string noBarsMessage() const override { return "no kernel group overlaps communication"; }

    core::Table tableTyped(const OverlapConfigPrepared& p, const ParamValues&) const override {
        core::Table t;
        t.columns = {"group", "configuration", "instances", "overlapped_instances", "total_ns", "overlapped_ns",
                     "overlapped_pct", "per_step_ns", "median_overlapped_ns", "median_alone_ns", "slowdown"};
        t.messages = p.messages;
        auto opt = [](const std::optional<double>& v) { return v ? core::Cell(*v) : core::Cell(); };
        for (const auto& [key, r] : p.rows)
            t.addRow({r.group, p.colors[key.second], int64_t(r.instances), int64_t(r.overlappedInstances), r.totalNs,
                      r.overlappedNs, 100.0 * r.overlappedShare, r.perStepNs, opt(r.medianOverlappedNs),
                      opt(r.medianAloneNs), opt(r.slowdown)});
        return t;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(OverlapPerConfigPlot)

}  // namespace strobe::plots
