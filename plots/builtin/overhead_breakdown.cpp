// Overhead per step: where each ProfilerStep's time goes on a GPU — kernels running, memcpy/memset running with no
// kernel, launch gaps, other idle — stacked per step; several runs: one panel per run. Per rank, on the union of
// its GPU activities (every stream; a kernel overlapping a copy counts as kernel time):
//   kernel        time at least one kernel runs
//   memcpy/memset time copies or fills run and no kernel does
//   launch gap    idle time between two activities classified by idle-by-cause's rules (core/analysis/idle.h):
//                 the launch call of the activity that ends the gap started after the GPU went idle (host wait:
//                 the GPU waited for the CPU to launch), or the gap is shorter than kernel_wait_us (launch overhead
//                 between back-to-back kernels, HTA's kernel wait)
//   other idle    the rest of the step (longer gaps whose next activity was already launched, and the time before
//                 the rank's first and after its last activity)
// A gap is classified whole and then split at step boundaries. Several ranks: the bars show the mean over the
// ranks that have the step; the table has every rank.

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/analysis/context.h"
#include "plots/chart.h"
#include "plots/plot_registry.h"
#include "plots/telemetry_plot.h"

namespace strobe::plots {
namespace {

const DoubleParam kOverheadBreakdownKernelWaitUs =
    DoubleParam{"kernel_wait_us", "Kernel wait threshold",
                "Gaps shorter than this between back-to-back activities count as launch gaps (HTA: 30 µs)", 30.0}
        .bounded(0, 1e6, 5)
        .unit("µs");

constexpr size_t kParts = 4;  // kernel, launch gap, memcpy/memset, other idle
const char* const kPartNames[kParts] = {"kernel", "launch gap", "memcpy/memset", "other idle"};

struct StepParts {
    size_t run = 0;
    int rank = 0;
    int64_t step = 0;
    int64_t dur = 0;
    int64_t part[kParts] = {0, 0, 0, 0};
};

struct OverheadPrepared final : Prepared {
    std::vector<StepParts> rows;    // by run, rank, step start
    std::vector<size_t> panelRuns;  // runs with rows, in order
    std::vector<std::string> runLabels;
    std::vector<std::string> messages;
    double kernelWaitUs = 30;
    size_t bytes() const override { return sizeof(*this) + rows.size() * sizeof(StepParts); }
};

// Length of the part of sorted, disjoint intervals inside [a, b).
int64_t clipped(const std::vector<core::Interval>& v, int64_t a, int64_t b) {
    auto it = std::upper_bound(v.begin(), v.end(), a, [](int64_t t, const core::Interval& i) { return t < i.end; });
    int64_t sum = 0;
    for (; it != v.end() && it->start < b; ++it) sum += std::max<int64_t>(0, std::min(b, it->end) - std::max(a, it->start));
    return sum;
}

// Busy intervals (all activities, kernels only) and launch gaps of one rank's activities, in start order.
struct RankBusy {
    std::vector<core::Interval> all, kernels, launchGaps;
};

RankBusy rankBusy(const core::RankWindow& w, int64_t kernelWaitNs) {
    RankBusy b;
    std::vector<core::Interval> kernels;
    int64_t groupEnd = 0;
    for (size_t i = 0; i < w.size(); ++i) {
        const core::Interval iv{w.start[i], w.end[i]};
        if (w.data->gpu.kind[w.row[i]] == core::EventKind::Kernel) kernels.push_back(iv);
        if (i > 0 && iv.start > groupEnd) {  // a new busy group (mergeSortedIntervals' rule): a gap before it
            const int64_t launch = w.runtimeStart(i);
            if ((launch != INT64_MIN && launch > groupEnd) || iv.start - groupEnd < kernelWaitNs)
                b.launchGaps.push_back({groupEnd, iv.start});
            b.all.push_back({iv.start, iv.end});
        } else if (i == 0) {
            b.all.push_back(iv);
        } else {
            b.all.back().end = std::max(b.all.back().end, iv.end);
        }
        groupEnd = i == 0 ? iv.end : std::max(groupEnd, iv.end);
    }
    b.kernels = core::mergeSortedIntervals(kernels);
    return b;
}

class OverheadBreakdownPlot final : public TypedPlot<OverheadPrepared> {
public:
    OverheadBreakdownPlot()
        : TypedPlot({"overhead-breakdown", "Overhead per step",
                     "Each profiler step's GPU time split into kernels, launch gaps, memcpy/memset and other idle, "
                     "stacked per step; one panel per run.",
                     135}) {}

    std::vector<ParamSpec> parameters(const RunSet&) const override {
        auto specs = barStyleSpecs("Show each step as 100%", false, false);
        specs.insert(specs.begin(), kOverheadBreakdownKernelWaitUs.spec());
        return specs;
    }

    core::Result<std::shared_ptr<OverheadPrepared>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                                 const core::CancelToken& cancel,
                                                                 const core::ProgressFn&) const override {
        auto p = std::make_shared<OverheadPrepared>();
        p->kernelWaitUs = kOverheadBreakdownKernelWaitUs(values);
        const auto waitNs = int64_t(p->kernelWaitUs * 1000.0);
        for (size_t run = 0; run < runs.size(); ++run) {
            if (cancel.cancelled()) return cancelledError();
            p->runLabels.push_back(runs[run].label);
            if (!runs[run].dataset) continue;
            auto ctx = core::AnalysisContext::of(runs[run].dataset);
            auto sel = ctx->select(core::WindowSpec{});
            if (!sel) return sel.error();
            const size_t before = p->rows.size();
            bool anySteps = false, anyGpu = false;
            for (const core::RankWindow& w : sel.value()->ranks) {
                if (cancel.cancelled()) return cancelledError();
                const auto& steps = ctx->steps(w.rankIndex);
                anySteps = anySteps || !steps.empty();
                anyGpu = anyGpu || !w.empty();
                if (steps.empty() || w.empty()) continue;
                const RankBusy b = rankBusy(w, waitNs);
                for (const auto& s : steps) {
                    StepParts row{run, w.rank, s.number, s.end - s.start, {}};
                    const int64_t busy = clipped(b.all, s.start, s.end);
                    row.part[0] = clipped(b.kernels, s.start, s.end);
                    row.part[1] = clipped(b.launchGaps, s.start, s.end);
                    row.part[2] = busy - row.part[0];
                    row.part[3] = std::max<int64_t>(0, row.dur - busy - row.part[1]);
                    p->rows.push_back(row);
                }
            }
            if (!anySteps) p->messages.push_back(runs[run].label + ": no ProfilerStep#N");
            else if (!anyGpu) p->messages.push_back(runs[run].label + ": no GPU activities (kernel, memcpy, memset)");
            else if (p->rows.size() == before) p->messages.push_back(runs[run].label + ": no rank has both steps and GPU activities");
            if (p->rows.size() > before) p->panelRuns.push_back(run);
        }
        return p;
    }

    std::optional<std::string> emptyMessageTyped(const OverheadPrepared& p, const ParamValues&) const override {
        if (!p.rows.empty()) return std::nullopt;
        return emptyReason(p.messages, "no profiler steps with GPU activities");
    }

    std::optional<ChartData> chartDataTyped(const OverheadPrepared& p, const ParamValues& values) const override {
        if (p.panelRuns.size() != 1) return std::nullopt;  // one chart; facets have no plain-data form
        return toChartData(chart(p, values, p.panelRuns.front()));
    }

    void drawTyped(Canvas& c, const OverheadPrepared& p, const ParamValues& values) const override {
        if (p.panelRuns.empty()) return;
        const auto panels = layout(c, p);
        for (size_t k = 0; k < panels.size(); ++k) {
            Canvas sub{c.painter, panels[k], c.dark};
            drawBarChart(sub, chart(p, values, p.panelRuns[k]));
        }
    }

    std::optional<HitInfo> hitTestTyped(const OverheadPrepared& p, const ParamValues& values, const QRectF& rect,
                                        QPointF pt) const override {
        if (p.panelRuns.empty()) return std::nullopt;
        LayoutCanvas lc(rect);
        const auto panels = layout(lc.canvas, p);
        for (size_t k = 0; k < panels.size(); ++k)
            if (panels[k].contains(pt)) return hitBarChart(chart(p, values, p.panelRuns[k]), panels[k], pt);
        return std::nullopt;
    }

    core::Table tableTyped(const OverheadPrepared& p, const ParamValues& values) const override {
        core::Table t;
        t.columns = {"run", "rank", "step", "step_ns", "kernel_ns", "launch_gap_ns", "memcpy_ns", "other_idle_ns"};
        t.messages = p.messages;
        for (const auto& r : p.rows)
            t.addRow({p.runLabels[r.run], int64_t(r.rank), r.step, r.dur, r.part[0], r.part[1], r.part[2], r.part[3]});
        if (p.rows.empty()) t.messages.push_back(*emptyMessageTyped(p, values));
        return t;
    }

private:
    std::string subtitle(const OverheadPrepared& p) const {
        return fmt::format("GPU time of each step (all streams); launch gap: idle while the next launch was not yet "
                           "issued, or shorter than {:g} µs",
                           p.kernelWaitUs);
    }

    // The panels (one per run with steps): the whole canvas for one run, else below a shared title.
    std::vector<QRectF> layout(Canvas& c, const OverheadPrepared& p) const {
        if (p.panelRuns.size() == 1) return {c.rect};
        const QRectF area = drawTitle(c, c.rect, title(), subtitle(p));
        return panelRects(area, p.panelRuns.size());
    }

    BarChart chart(const OverheadPrepared& p, const ParamValues& v, size_t run) const {
        BarChart c;
        const bool one = p.panelRuns.size() == 1;
        c.title = one ? title() : p.runLabels[run];
        c.subtitle = one ? subtitle(p) : std::string();
        c.horizontal = kHorizontal(v);
        c.percentAxis = kPercent(v);
        c.legend = legendMode(v);
        c.valueLabel = c.percentAxis ? "share of the step" : "time";
        c.bandLabel = "step";
        c.series.assign(kPartNames, kPartNames + kParts);
        c.colors = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c), QColor(0xa0, 0xa0, 0xa0)};
        std::map<int64_t, std::pair<std::vector<double>, int>> bySteps;  // step → (sums, ranks)
        for (const auto& r : p.rows) {
            if (r.run != run) continue;
            auto& [sum, n] = bySteps[r.step];
            sum.resize(kParts, 0.0);
            for (size_t k = 0; k < kParts; ++k) sum[k] += double(r.part[k]);
            ++n;
        }
        int maxRanks = 0;
        for (auto& [step, acc] : bySteps) {
            auto& [sum, n] = acc;
            maxRanks = std::max(maxRanks, n);
            c.bars.push_back(fmt::format("#{}", step));
            double total = 0;
            for (double& x : sum) total += (x /= double(n));
            if (c.percentAxis)
                for (double& x : sum) x = total > 0 ? x / total * 100.0 : 0;
            c.values.push_back(sum);
        }
        if (maxRanks > 1) c.subtitle += (c.subtitle.empty() ? "" : "; ") + fmt::format("mean over {} ranks", maxRanks);
        return c;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(OverheadBreakdownPlot)

}  // namespace strobe::plots
