// Overlap vs kernel time (issue 9): one point per instance of one kernel group (by default the GEMM group with the
// most time per step), x the share of the instance overlapped by communication kernels of the same GPU
// (core/analysis/kernel_overlap), y its duration, coloured by configuration: does communication slow it down?
// At most `max_points` points are drawn (a fixed-seed random sample, said in the subtitle); the table has every one.

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>

#include <fmt/format.h>

#include "plots/builtin/kernel_overlap_plots.h"
#include "plots/chart.h"
#include "plots/plot_registry.h"
#include "plots/telemetry_plot.h"

namespace strobe::plots {
namespace {

const StringParam kGroup{"group", "Kernel group",
                         "The kernel group (under group_by) to plot; empty: the GEMM group with the most time per step",
                         ""};
const IntParam kMaxPoints =
    IntParam{"max_points", "Points drawn", "At most this many instances drawn (a random sample); the table has all", 20000}
        .bounded(100, 10000000, 100);

struct Instance {
    std::string config, run, collectives;
    int rank = -1;
    int64_t start = 0, dur = 0, overlapped = 0;
};

struct OverlapScatterPrepared final : Prepared {
    std::string group, axis;
    std::vector<Instance> instances;               // every instance, by run, rank, start
    std::vector<TelemetrySeries> series;           // one per colour value: (overlapped %, duration ns), drawn
    std::vector<std::vector<size_t>> drawn;        // per series: the instance of each point
    size_t drawnCount = 0;
    std::vector<std::string> messages;
    size_t bytes() const override {
        size_t b = sizeof(*this) + instances.size() * (sizeof(Instance) + 64);
        for (const auto& s : series) b += s.points.size() * 24;
        return b;
    }
};

class OverlapVsKernelTimePlot final : public TypedPlot<OverlapScatterPrepared> {
public:
    OverlapVsKernelTimePlot()
        : TypedPlot(
              {"overlap-vs-kernel-time", "Overlap vs kernel time",
               "One point per instance of a kernel group (default: the top GEMM group): the share of it overlapped "
               "by communication against its duration, coloured by sweep configuration.",
               129}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        return {kSweepGroupBy.spec(), kGroup.spec(), kSkipSteps.spec(), kOverlapColor.spec(runs), kMaxPoints.spec()};
    }

    core::Result<std::shared_ptr<OverlapScatterPrepared>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                                       const core::CancelToken& cancel,
                                                                       const core::ProgressFn&) const override {
        auto p = std::make_shared<OverlapScatterPrepared>();
        const OverlapColors colors = overlapColors(runs, values);
        core::KernelOverlapOptions o;
        o.top = 1;
        o.group = kGroup(values);
        if (!o.group.empty()) o.category.reset();  // a named group: any computation kernel
        o.instances = true;
        auto s = overlapByColor(runs, values, colors, o, cancel);
        if (!s) return s.error();
        p->axis = colors.axis;
        p->messages = s->messages;
        p->group = o.group.empty() && !s->groups.empty() ? s->groups.front().group : o.group;
        for (const auto& r : s->instances) {
            Instance i{r.config, runs[r.run].label, {}, r.rank, r.startNs, r.durNs, r.overlappedNs};
            for (const auto& c : r.collectives)
                i.collectives += fmt::format("{}{} ({})", i.collectives.empty() ? "" : "; ", c.name, c.overlapNs);
            p->instances.push_back(std::move(i));
        }
        sample(*p, colors.order, size_t(kMaxPoints(values)));
        return p;
    }

    // The points drawn: every instance, or a fixed-seed random sample of `cap` of them; one series per colour.
    static void sample(OverlapScatterPrepared& p, const std::vector<std::string>& order, size_t cap) {
        std::vector<size_t> pick(p.instances.size());
        std::iota(pick.begin(), pick.end(), size_t{0});
        if (pick.size() > cap) {
            std::mt19937_64 rng(20261125);
            std::shuffle(pick.begin(), pick.end(), rng);
            pick.resize(cap);
            std::sort(pick.begin(), pick.end());
        }
        p.drawnCount = pick.size();
        std::map<std::string, size_t> index;
        for (const auto& c : order) {
            if (index.count(c)) continue;
            index[c] = p.series.size();
            p.series.push_back({c, 0, 0, {}});
            p.drawn.emplace_back();
        }
        for (size_t i : pick) {
            const Instance& in = p.instances[i];
            auto it = index.find(in.config);
            if (it == index.end() || in.dur <= 0) continue;
            p.series[it->second].points.emplace_back(100.0 * double(in.overlapped) / double(in.dur), double(in.dur));
            p.drawn[it->second].push_back(i);
        }
        for (size_t k = p.series.size(); k-- > 0;)
            if (p.series[k].points.empty()) {
                p.series.erase(p.series.begin() + ptrdiff_t(k));
                p.drawn.erase(p.drawn.begin() + ptrdiff_t(k));
            }
    }

    static ScatterChart chart(const OverlapScatterPrepared& p) {
        ScatterChart c;
        c.title = "Overlap vs kernel time";
        c.subtitle = p.group.size() > 80 ? p.group.substr(0, 77) + "..." : p.group;
        if (p.drawnCount < p.instances.size())
            c.subtitle += fmt::format(" — {} of {} instances drawn (random sample; the table has all)", p.drawnCount,
                                      p.instances.size());
        c.xTitle = "share of the instance overlapped by communication";
        c.yTitle = "duration";
        c.xUnit = TickUnit::Percent;
        c.yUnit = TickUnit::Duration;
        return c;
    }

    std::optional<std::string> emptyMessageTyped(const OverlapScatterPrepared& p, const ParamValues&) const override {
        if (!p.series.empty()) return std::nullopt;
        return emptyReason(p.messages, "no GEMM kernel in these runs (name a group to plot another kernel)");
    }

    void drawTyped(Canvas& c, const OverlapScatterPrepared& p, const ParamValues&) const override {
        if (!p.series.empty()) drawScatter(c, chart(p), p.series);
    }

    std::optional<HitInfo> hitTestTyped(const OverlapScatterPrepared& p, const ParamValues&, const QRectF& rect,
                                        QPointF pt) const override {
        if (p.series.empty()) return std::nullopt;
        LayoutCanvas lc(rect);
        const ChartLayout g = layoutScatter(lc.canvas, chart(p), p.series);
        double best = 8;
        const Instance* hit = nullptr;
        for (size_t s = 0; s < p.series.size(); ++s)
            for (size_t k = 0; k < p.series[s].points.size(); ++k) {
                const auto [x, y] = p.series[s].points[k];
                const double d = std::hypot(g.xAt(x) - pt.x(), g.yAt(y) - pt.y());
                if (d >= best) continue;
                best = d;
                hit = &p.instances[p.drawn[s][k]];
            }
        if (!hit) return std::nullopt;
        HitInfo h;
        h.title = p.group;
        h.fields = {{p.axis.empty() ? "runs" : p.axis, hit->config},
                    {"run", hit->run},
                    {"rank", std::to_string(hit->rank)},
                    {"duration", formatDuration(double(hit->dur))},
                    {"overlapped",
                     formatDuration(double(hit->overlapped)) + " (" +
                         formatPercent(100.0 * double(hit->overlapped) / double(std::max<int64_t>(1, hit->dur))) + ")"},
                    {"collectives", hit->collectives.empty() ? std::string("none") : hit->collectives}};
        return h;
    }

    core::Table tableTyped(const OverlapScatterPrepared& p, const ParamValues&) const override {
        core::Table t;
        t.columns = {"group", "configuration", "run", "rank", "start_ns", "dur_ns", "overlapped_ns", "overlapped_pct",
                     "collectives"};
        t.messages = p.messages;
        for (const auto& i : p.instances)
            t.addRow({p.group, i.config, i.run, int64_t(i.rank), i.start, i.dur, i.overlapped,
                      i.dur > 0 ? core::Cell(100.0 * double(i.overlapped) / double(i.dur)) : core::Cell(),
                      i.collectives});
        return t;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(OverlapVsKernelTimePlot)

}  // namespace strobe::plots
