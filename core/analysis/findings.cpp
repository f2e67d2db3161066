#include "core/analysis/findings.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "core/analysis/critical_path.h"
#include "core/analysis/derived_metrics.h"
#include "core/analysis/gemm_flops.h"
#include "core/analysis/idle.h"
#include "core/analysis/launch.h"
#include "core/analysis/overlap.h"
#include "core/analysis/straggler.h"
#include "core/analysis/table.h"
#include "core/analysis/temporal.h"

namespace strobe::core {

namespace {

constexpr TimeNs kSmallKernelNs = 10000;       // small_elementwise: shorter than 10 µs
constexpr double kSmallPerStepMin = 50;        // small_elementwise: at least this many per step
constexpr double kGemmEfficiencyMax = 0.5;     // gemm_below_peak: below half of peak
constexpr double kShortKernelFractionMin = 0.5;  // launch_bound

// What the rules share: the selection and, per rank (selection order), its steps.
struct FindingsBase {
    WindowSelectionPtr sel;
    std::vector<int64_t> steps;      // S per rank (≥ 1)
    std::vector<double> stepNs;      // mean step time per rank (0 when unknown)
    std::vector<TimeNs> from, to;    // the rank's window for CPU-side events
    double runStepNs = 0;
    bool hasSteps = false;
    FindingsOptions opt;
};

// One rank's time at stake over the window, or nothing.
struct RankStake {
    std::vector<double> ns;  // per selection rank (window total, not yet per step)
};

size_t rankPos(const FindingsBase& b, int64_t rank) {
    for (size_t i = 0; i < b.sel->ranks.size(); ++i)
        if (b.sel->ranks[i].rank == rank) return i;
    return SIZE_MAX;
}

const FindingRule& ruleOf(std::string_view id) {
    for (const auto& r : findingRules())
        if (id == r.id) return r;
    return findingRules().front();
}

// A finding from per-rank window totals: ms per step = mean over ranks of total/S. nullopt when below minShare.
std::optional<Finding> makeFinding(const FindingsBase& b, std::string_view id, const std::vector<double>& totalNs) {
    if (b.runStepNs <= 0 || totalNs.empty()) return std::nullopt;
    double sum = 0;
    Finding f;
    for (size_t i = 0; i < totalNs.size(); ++i) {
        const double perStep = totalNs[i] / static_cast<double>(b.steps[i]);
        sum += perStep;
        if (perStep / b.runStepNs >= b.opt.minShare) f.ranks.push_back(b.sel->ranks[i].rank);
    }
    const double ms = sum / static_cast<double>(totalNs.size()) / 1e6;
    // 0–1: a rule can exceed the (CPU-side) step time when the GPU runs behind the steps; computeFindings says so.
    f.share = std::min(1.0, ms * 1e6 / b.runStepNs);
    if (f.share < b.opt.minShare) return std::nullopt;
    const FindingRule& r = ruleOf(id);
    f.rule = r.id;
    f.title = r.title;
    f.definition = r.definition;
    f.whatToTry = r.whatToTry;
    f.msPerStep = ms;
    f.severity = findingSeverity(f.share);
    return f;
}

double perStepMs(const FindingsBase& b, const std::vector<double>& totalNs) {
    double s = 0;
    for (size_t i = 0; i < totalNs.size(); ++i) s += totalNs[i] / static_cast<double>(b.steps[i]);
    return totalNs.empty() ? 0 : s / static_cast<double>(totalNs.size()) / 1e6;
}

// Keeps the longest `n` ranges, then orders them by rank and start.
void keepLongest(std::vector<FindingRange>& r, size_t n) {
    std::stable_sort(r.begin(), r.end(),
                     [](const FindingRange& a, const FindingRange& c) { return a.end - a.start > c.end - c.start; });
    if (r.size() > n) r.resize(n);
    std::sort(r.begin(), r.end(), [](const FindingRange& a, const FindingRange& c) {
        return a.rank != c.rank ? a.rank < c.rank : a.start < c.start;
    });
}

// a − b for merged (sorted, disjoint) interval lists.
std::vector<Interval> subtractIntervals(const std::vector<Interval>& a, const std::vector<Interval>& b) {
    std::vector<Interval> out;
    size_t j = 0;
    for (const Interval& x : a) {
        TimeNs cur = x.start;
        while (j < b.size() && b[j].end <= cur) ++j;
        size_t k = j;
        while (k < b.size() && b[k].start < x.end) {
            if (b[k].start > cur) out.push_back({cur, b[k].start});
            cur = std::max(cur, b[k].end);
            ++k;
        }
        if (cur < x.end) out.push_back({cur, x.end});
    }
    return out;
}

std::vector<FindingRange> stepRanges(const FindingsBase& b, AnalysisContext& ctx, const std::vector<int>& ranks) {
    std::vector<FindingRange> out;
    for (int rk : ranks) {
        const size_t i = rankPos(b, rk);
        if (i == SIZE_MAX) continue;
        for (const StepSpan& s : ctx.steps(b.sel->ranks[i].rankIndex)) out.push_back({rk, s.start, s.end});
        if (ctx.steps(b.sel->ranks[i].rankIndex).empty() && !b.sel->ranks[i].mergedAll.empty())
            out.push_back({rk, b.sel->ranks[i].mergedAll.front().start, b.sel->ranks[i].mergedAll.back().end});
    }
    keepLongest(out, b.opt.maxRanges);
    return out;
}

// ---- rules ----

std::optional<Finding> exposedComm(AnalysisContext& ctx, const FindingsBase& b) {
    auto t = commCompOverlap(ctx, b.sel->spec);
    if (!t) return std::nullopt;
    std::vector<double> exposed(b.sel->ranks.size(), 0), comm(exposed.size(), 0);
    for (size_t row = 0; row < t->rows.size(); ++row) {
        const size_t i = rankPos(b, static_cast<int64_t>(Table::number(t->at(row, "rank"))));
        if (i == SIZE_MAX) continue;
        comm[i] = Table::number(t->at(row, "comm_ns"));
        exposed[i] = comm[i] - Table::number(t->at(row, "overlap_ns"));
    }
    auto f = makeFinding(b, "exposed_comm", exposed);
    if (!f) return f;
    const double commMs = perStepMs(b, comm);
    f->evidence = {{"comm_ms_per_step", commMs}, {"exposed_ms_per_step", f->msPerStep},
                   {"overlap_pct", commMs > 0 ? 100.0 * (commMs - f->msPerStep) / commMs : 0.0}};
    for (const RankWindow& w : b.sel->ranks)
        for (const Interval& x : subtractIntervals(w.merged(HtaType::Communication), w.merged(HtaType::Computation)))
            f->ranges.push_back({w.rank, x.start, x.end});
    keepLongest(f->ranges, b.opt.maxRanges);
    return f;
}

std::optional<Finding> launchBound(AnalysisContext& ctx, const FindingsBase& b) {
    auto idle = idleBreakdown(ctx, b.sel->spec);
    auto launch = launchOverhead(ctx, b.sel->spec);
    if (!idle || !launch) return std::nullopt;
    std::vector<double> hostWait(b.sel->ranks.size(), 0);
    for (size_t row = 0; row < idle->rows.size(); ++row) {
        const size_t i = rankPos(b, static_cast<int64_t>(Table::number(idle->at(row, "rank"))));
        if (i == SIZE_MAX || Table::text(idle->at(row, "cause")) != "host_wait") continue;
        hostWait[i] = std::max(hostWait[i], Table::number(idle->at(row, "idle_ns")));
    }
    double p50Sum = 0, p50N = 0;
    for (size_t row = 0; row < launch->rows.size(); ++row)
        if (Table::text(launch->at(row, "category")) == "all")
            p50Sum += Table::number(launch->at(row, "launch_p50_ns")), p50N += 1;
    // Kernels that ran for less time than the CPU spent in the call that launched them.
    double kernels = 0, shortKernels = 0, callNs = 0;
    for (const RankWindow& w : b.sel->ranks) {
        for (size_t k = 0; k < w.size(); ++k) {
            if (w.data->gpu.kind[w.row[k]] != EventKind::Kernel) continue;
            kernels += 1;
            if (w.runtime[k] < 0) continue;
            const TimeNs call = w.data->slices.dur[static_cast<size_t>(w.runtime[k])];
            callNs += static_cast<double>(call);
            if (w.end[k] - w.start[k] < call) shortKernels += 1;
        }
    }
    const double fraction = kernels > 0 ? shortKernels / kernels : 0;
    if (fraction < kShortKernelFractionMin) return std::nullopt;
    auto f = makeFinding(b, "launch_bound", hostWait);
    if (!f) return f;
    f->evidence = {{"host_wait_ms_per_step", f->msPerStep},
                   {"kernels_shorter_than_launch_call_pct", 100.0 * fraction},
                   {"mean_launch_call_us", kernels > 0 ? callNs / kernels / 1e3 : 0.0},
                   {"launch_delay_p50_us", p50N > 0 ? p50Sum / p50N / 1e3 : 0.0}};
    f->ranges = stepRanges(b, ctx, f->ranks);
    return f;
}

// CPU slices of a rank whose name satisfies `pick` (decided once per name), starting in the rank's window.
template <class Pick>
std::vector<uint32_t> slicesNamed(const FindingsBase& b, size_t i, Pick&& pick) {
    const RankData& r = *b.sel->ranks[i].data;
    std::unordered_map<StrId, bool> memo;
    std::vector<uint32_t> out;
    for (size_t s = 0; s < r.slices.size(); ++s) {
        if (r.slices.ts[s] < b.from[i] || r.slices.ts[s] >= b.to[i]) continue;
        auto [it, inserted] = memo.emplace(r.slices.name[s], false);
        if (inserted) it->second = pick(r.strings.view(r.slices.name[s]), r.slices.kind[s]);
        if (it->second) out.push_back(static_cast<uint32_t>(s));
    }
    return out;
}

std::optional<Finding> dataloaderStall(AnalysisContext& ctx, const FindingsBase& b) {
    std::vector<double> stall(b.sel->ranks.size(), 0), loader(stall.size(), 0);
    std::vector<FindingRange> ranges;
    for (size_t i = 0; i < b.sel->ranks.size(); ++i) {
        const RankWindow& w = b.sel->ranks[i];
        const RankData& r = *w.data;
        auto rows = slicesNamed(b, i, [](std::string_view n, EventKind k) {
            return n.find("DataLoader") != std::string_view::npos && k != EventKind::Runtime && k != EventKind::Driver;
        });
        std::vector<Interval> iv;
        for (uint32_t s : rows) iv.push_back({r.slices.ts[s], r.slices.ts[s] + r.slices.dur[s]});
        std::sort(iv.begin(), iv.end(), [](const Interval& a, const Interval& c) {
            return a.start != c.start ? a.start < c.start : a.end < c.end;
        });
        const auto merged = mergeSortedIntervals(iv);
        loader[i] = static_cast<double>(totalLength(merged));
        stall[i] = loader[i] - static_cast<double>(intersectionLength(merged, w.mergedAll));
        for (const Interval& x : merged) ranges.push_back({w.rank, x.start, x.end});
    }
    auto f = makeFinding(b, "dataloader_stall", stall);
    if (!f) return f;
    f->evidence = {{"dataloader_ms_per_step", perStepMs(b, loader)}, {"gpu_idle_ms_per_step", f->msPerStep}};
    keepLongest(ranges, b.opt.maxRanges);
    f->ranges = std::move(ranges);
    (void)ctx;
    return f;
}

bool isSyncCall(std::string_view n) {
    static const std::vector<std::string_view> kNames = {
        "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaMemcpy",
        "hipDeviceSynchronize",  "hipStreamSynchronize",  "hipEventSynchronize",  "hipMemcpy"};
    return std::find(kNames.begin(), kNames.end(), n) != kNames.end();
}

std::optional<Finding> hostSync(AnalysisContext& ctx, const FindingsBase& b) {
    std::vector<double> total(b.sel->ranks.size(), 0), calls(total.size(), 0), items(total.size(), 0);
    std::vector<FindingRange> ranges;
    for (size_t i = 0; i < b.sel->ranks.size(); ++i) {
        const RankData& r = *b.sel->ranks[i].data;
        for (uint32_t s : slicesNamed(b, i, [](std::string_view n, EventKind k) {
                 return (k == EventKind::Runtime || k == EventKind::Driver) && isSyncCall(n);
             })) {
            total[i] += static_cast<double>(r.slices.dur[s]);
            calls[i] += 1;
            ranges.push_back({b.sel->ranks[i].rank, r.slices.ts[s], r.slices.ts[s] + r.slices.dur[s]});
        }
        items[i] = static_cast<double>(
            slicesNamed(b, i, [](std::string_view n, EventKind k) { return k == EventKind::CpuOp && n == "aten::item"; })
                .size());
    }
    auto f = makeFinding(b, "host_sync", total);
    if (!f) return f;
    f->evidence = {{"sync_ms_per_step", f->msPerStep},
                   {"sync_calls_per_step", perStepMs(b, calls) * 1e6},
                   {"item_calls_per_step", perStepMs(b, items) * 1e6}};
    keepLongest(ranges, b.opt.maxRanges);
    f->ranges = std::move(ranges);
    (void)ctx;
    return f;
}

std::optional<Finding> pageableH2d(AnalysisContext& ctx, const FindingsBase& b) {
    std::vector<double> total(b.sel->ranks.size(), 0), count(total.size(), 0), bytes(total.size(), 0);
    std::vector<FindingRange> ranges;
    for (size_t i = 0; i < b.sel->ranks.size(); ++i) {
        const RankWindow& w = b.sel->ranks[i];
        const RankData& r = *w.data;
        for (size_t k = 0; k < w.size(); ++k) {
            const uint32_t g = w.row[k];
            if (r.gpu.kind[g] != EventKind::Memcpy) continue;
            if (r.strings.view(r.gpu.name[g]) != "Memcpy HtoD (Pageable -> Device)") continue;
            total[i] += static_cast<double>(w.end[k] - w.start[k]);
            count[i] += 1;
            bytes[i] += static_cast<double>(r.gpu.bytes.size() > g ? r.gpu.bytes[g] : 0);
            ranges.push_back({w.rank, w.start[k], w.end[k]});
        }
    }
    auto f = makeFinding(b, "pageable_h2d", total);
    if (!f) return f;
    f->evidence = {{"copy_ms_per_step", f->msPerStep},
                   {"copies_per_step", perStepMs(b, count) * 1e6},
                   {"bytes_per_step", perStepMs(b, bytes) * 1e6}};
    keepLongest(ranges, b.opt.maxRanges);
    f->ranges = std::move(ranges);
    (void)ctx;
    return f;
}

std::optional<Finding> straggler(AnalysisContext& ctx, const FindingsBase& b) {
    if (b.sel->ranks.size() < 2) return std::nullopt;
    auto t = stragglerAnalysis(ctx, b.sel->spec, "summary");
    if (!t) return std::nullopt;
    size_t worst = SIZE_MAX;
    double caused = 0, timesLast = 0;
    for (size_t row = 0; row < t->rows.size(); ++row) {
        const double c = Table::number(t->at(row, "caused_wait_ns"));
        const size_t i = rankPos(b, static_cast<int64_t>(Table::number(t->at(row, "rank"))));
        if (i != SIZE_MAX && c > caused) {
            caused = c;
            worst = i;
            timesLast = Table::number(t->at(row, "times_last"));
        }
    }
    if (worst == SIZE_MAX) return std::nullopt;
    // Every rank is charged the mean wait of the others (a run-level figure).
    const double others = static_cast<double>(b.sel->ranks.size() - 1);
    std::vector<double> stake(b.sel->ranks.size(), caused / others);
    auto f = makeFinding(b, "straggler", stake);
    if (!f) return f;
    f->ranks = {b.sel->ranks[worst].rank};
    f->evidence = {{"straggler_rank", static_cast<double>(b.sel->ranks[worst].rank)},
                   {"others_waited_ms_per_step", caused / static_cast<double>(b.steps[worst]) / 1e6},
                   {"mean_wait_per_other_rank_ms_per_step", f->msPerStep},
                   {"times_last", timesLast}};
    f->ranges = stepRanges(b, ctx, f->ranks);
    return f;
}

std::optional<Finding> smallElementwise(AnalysisContext& ctx, const FindingsBase& b) {
    std::vector<double> total(b.sel->ranks.size(), 0), count(total.size(), 0);
    for (size_t i = 0; i < b.sel->ranks.size(); ++i) {
        const RankWindow& w = b.sel->ranks[i];
        const RankData& r = *w.data;
        for (size_t k = 0; k < w.size(); ++k) {
            const uint32_t g = w.row[k];
            if (r.gpu.kind[g] != EventKind::Kernel || r.gpu.category.size() <= g) continue;
            if (r.gpu.category[g] != KernelCategory::Elementwise || r.gpu.dur[g] >= kSmallKernelNs) continue;
            total[i] += static_cast<double>(w.end[k] - w.start[k]);
            count[i] += 1;
        }
    }
    const double perStep = perStepMs(b, count) * 1e6;
    if (perStep < kSmallPerStepMin) return std::nullopt;
    auto f = makeFinding(b, "small_elementwise", total);
    if (!f) return f;
    f->evidence = {{"small_kernels_per_step", perStep}, {"small_kernel_ms_per_step", f->msPerStep}};
    f->ranges = stepRanges(b, ctx, f->ranks);
    return f;
}

std::optional<Finding> rankImbalance(AnalysisContext& ctx, const FindingsBase& b) {
    if (b.sel->ranks.size() < 2) return std::nullopt;
    auto t = temporalBreakdown(ctx, b.sel->spec);
    if (!t) return std::nullopt;
    std::vector<double> perStep(b.sel->ranks.size(), 0);
    for (size_t row = 0; row < t->rows.size(); ++row) {
        const size_t i = rankPos(b, static_cast<int64_t>(Table::number(t->at(row, "rank"))));
        if (i != SIZE_MAX) perStep[i] = Table::number(t->at(row, "compute_ns")) / static_cast<double>(b.steps[i]);
    }
    double mean = 0;
    for (double v : perStep) mean += v;
    mean /= static_cast<double>(perStep.size());
    const size_t worst = static_cast<size_t>(std::max_element(perStep.begin(), perStep.end()) - perStep.begin());
    // The excess of the busiest rank, charged to the run (the others wait for it at the next collective).
    std::vector<double> stake(perStep.size(), 0);
    for (size_t i = 0; i < stake.size(); ++i) stake[i] = (perStep[worst] - mean) * static_cast<double>(b.steps[i]);
    auto f = makeFinding(b, "rank_imbalance", stake);
    if (!f) return f;
    f->ranks = {b.sel->ranks[worst].rank};
    f->evidence = {{"busiest_rank", static_cast<double>(b.sel->ranks[worst].rank)},
                   {"busiest_compute_ms_per_step", perStep[worst] / 1e6},
                   {"mean_compute_ms_per_step", mean / 1e6}};
    f->ranges = stepRanges(b, ctx, f->ranks);
    return f;
}

// GPU idle at step boundaries: per pair of consecutive steps, the first GPU activity launched in the later step
// starts after the last one launched in the earlier step ends (an activity belongs to the step whose span holds its
// launching call's start, or its own start without one). The ProfilerStep spans themselves tile the loop (the
// profiler closes one step where it opens the next), so what runs between steps shows up as the GPU waiting here.
std::optional<Finding> interStepGaps(AnalysisContext& ctx, const FindingsBase& b) {
    if (!b.hasSteps) return std::nullopt;
    std::vector<double> total(b.sel->ranks.size(), 0);
    std::vector<FindingRange> ranges;
    double gaps = 0;
    for (size_t i = 0; i < b.sel->ranks.size(); ++i) {
        const RankWindow& w = b.sel->ranks[i];
        const auto& st = ctx.steps(w.rankIndex);
        if (st.size() < 2) continue;
        std::vector<TimeNs> first(st.size(), INT64_MAX), last(st.size(), INT64_MIN);
        for (size_t k = 0; k < w.size(); ++k) {
            const TimeNs launched = w.runtimeStart(k);
            const TimeNs t = launched == INT64_MIN ? w.start[k] : launched;
            auto it = std::upper_bound(st.begin(), st.end(), t,
                                       [](TimeNs v, const StepSpan& s) { return v < s.start; });
            if (it == st.begin() || t >= std::prev(it)->end) continue;
            const size_t s = static_cast<size_t>(std::prev(it) - st.begin());
            first[s] = std::min(first[s], w.start[k]);
            last[s] = std::max(last[s], w.end[k]);
        }
        for (size_t s = 1; s < st.size(); ++s) {
            if (last[s - 1] == INT64_MIN || first[s] == INT64_MAX || first[s] <= last[s - 1]) continue;
            total[i] += static_cast<double>(first[s] - last[s - 1]);
            gaps += 1;
            ranges.push_back({w.rank, last[s - 1], first[s]});
        }
    }
    auto f = makeFinding(b, "inter_step_gaps", total);
    if (!f) return f;
    f->evidence = {{"gap_ms_per_step", f->msPerStep}, {"gaps", gaps}};
    keepLongest(ranges, b.opt.maxRanges);
    f->ranges = std::move(ranges);
    return f;
}

std::optional<Finding> gemmBelowPeak(const FindingsBase& b, std::vector<std::string>& messages) {
    if (!b.hasSteps) return std::nullopt;
    static const auto archs = loadArchConstants();
    if (!archs) return std::nullopt;
    std::vector<double> stake(b.sel->ranks.size(), 0);
    double flopsSum = 0, kernelSum = 0, idealSum = 0, peakSeen = 0;
    size_t used = 0;
    for (size_t i = 0; i < b.sel->ranks.size(); ++i) {
        const RankWindow& w = b.sel->ranks[i];
        const RankData& r = *w.data;
        std::map<std::string, double> byType;
        double flops = 0;
        for (const StepGemmFlops& s : gemmFlopsPerStep(r)) {
            if (s.fromOpShapes) continue;
            flops += s.flops;
            byType[s.dtype] += s.flops;
        }
        double gemmNs = 0;
        for (size_t k = 0; k < w.size(); ++k) {
            const uint32_t g = w.row[k];
            if (r.gpu.kind[g] == EventKind::Kernel && r.gpu.category.size() > g &&
                r.gpu.category[g] == KernelCategory::Gemm)
                gemmNs += static_cast<double>(w.end[k] - w.start[k]);
        }
        if (flops <= 0 || gemmNs <= 0 || r.info.devices.empty()) continue;
        const auto top = std::max_element(byType.begin(), byType.end(),
                                          [](const auto& a, const auto& c) { return a.second < c.second; });
        const ArchConstants* arch = findArch(archs.value(), r.info.devices.front());
        const auto peak = arch ? peakTflops(*arch, top->first) : std::nullopt;
        if (!peak || *peak <= 0) {
            messages.push_back(fmt::format("gemm_below_peak: rank {}: no peak for GPU '{}' and data type '{}'", w.rank,
                                           r.info.devices.front().name, top->first));
            continue;
        }
        const double idealNs = flops / (*peak * 1e3);  // TFLOP/s = 1e3 FLOP/ns
        stake[i] = std::max(0.0, gemmNs - idealNs);
        flopsSum += flops / static_cast<double>(b.steps[i]);
        kernelSum += gemmNs / static_cast<double>(b.steps[i]);
        idealSum += idealNs / static_cast<double>(b.steps[i]);
        peakSeen = *peak;
        ++used;
    }
    if (used == 0 || kernelSum <= 0 || idealSum / kernelSum >= kGemmEfficiencyMax) return std::nullopt;
    auto f = makeFinding(b, "gemm_below_peak", stake);
    if (!f) return f;
    const double n = static_cast<double>(used);
    f->evidence = {{"gemm_kernel_ms_per_step", kernelSum / n / 1e6},
                   {"gemm_tflop_per_step", flopsSum / n / 1e12},
                   {"achieved_tflops", flopsSum / kernelSum / 1e3},
                   {"peak_tflops", peakSeen},
                   {"share_of_peak", idealSum / kernelSum}};
    return f;
}

FindingsBase makeBase(AnalysisContext& ctx, const FindingsOptions& opt, WindowSelectionPtr sel) {
    FindingsBase b;
    b.opt = opt;
    b.sel = std::move(sel);
    for (const RankWindow& w : b.sel->ranks) b.hasSteps = b.hasSteps || !ctx.steps(w.rankIndex).empty();
    double sum = 0;
    size_t n = 0;
    for (const RankWindow& w : b.sel->ranks) {
        const auto& st = ctx.steps(w.rankIndex);
        double ns = 0;
        if (!st.empty()) {
            for (const StepSpan& s : st) ns += static_cast<double>(s.end - s.start);
            ns /= static_cast<double>(st.size());
            b.from.push_back(st.front().start);
            b.to.push_back(st.back().end);
        } else {
            if (!w.mergedAll.empty()) ns = static_cast<double>(w.mergedAll.back().end - w.mergedAll.front().start);
            b.from.push_back(INT64_MIN);
            b.to.push_back(INT64_MAX);
        }
        b.steps.push_back(std::max<int64_t>(1, static_cast<int64_t>(st.size())));
        b.stepNs.push_back(ns);
        if (ns > 0) sum += ns, ++n;
    }
    b.runStepNs = n > 0 ? sum / static_cast<double>(n) : 0;
    return b;
}

std::string_view pathClassOf(std::string_view rule) {
    static const std::map<std::string_view, std::string_view> kClass = {
        {"exposed_comm", "communication"},     {"launch_bound", "launch_latency"}, {"host_sync", "sync_wait"},
        {"gemm_below_peak", "kernel:gemm"},    {"small_elementwise", "kernel:elementwise"},
        {"pageable_h2d", "kernel:memcpy"},     {"dataloader_stall", "cpu_op"}};
    auto it = kClass.find(rule);
    return it == kClass.end() ? std::string_view() : it->second;
}

void markCriticalPath(AnalysisContext& ctx, const FindingsBase& b, FindingsResult& out) {
    std::string reason;
    std::optional<CriticalPathResult> cp;
    size_t events = 0;
    for (const auto& r : ctx.dataset().ranks) events += r->slices.size() + r->gpu.size();
    if (!b.opt.criticalPath) {
        reason = "critical path not asked for";
    } else if (events > b.opt.criticalPathMaxEvents) {
        reason = fmt::format("critical path not computed: {} events (limit {})", events, b.opt.criticalPathMaxEvents);
    } else if (!b.hasSteps || b.sel->ranks.empty() || ctx.steps(b.sel->ranks.front().rankIndex).empty()) {
        reason = "critical path not computed: no ProfilerStep";
    } else {
        CpRequest req;
        req.step = ctx.steps(b.sel->ranks.front().rankIndex).front().number;
        auto r = criticalPath(ctx, req);
        if (r) cp = std::move(r.value());
        else reason = "critical path failed: " + r.error().message;
    }
    for (Finding& f : out.findings) {
        const std::string_view cls = pathClassOf(f.rule);
        if (!cp) {
            f.criticalPathReason = reason;
        } else if (cls.empty()) {
            f.criticalPathReason = "the rule has no class on the critical path (a cross-rank or between-step figure)";
        } else {
            TimeNs ns = 0;
            for (const auto& [name, t] : cp->classes)
                if (name == cls) ns += t;
            // On the path when its class holds at least 1 % of the path's length.
            const bool on = cp->lengthNs > 0 && static_cast<double>(ns) >= 0.01 * static_cast<double>(cp->lengthNs);
            f.onCriticalPath = on;
            f.criticalPathReason = fmt::format("{}: {:.3f} ms of the {:.3f} ms path of {} ({})", cls,
                                               static_cast<double>(ns) / 1e6, static_cast<double>(cp->lengthNs) / 1e6,
                                               cp->window, on ? "shortening it can shorten the step"
                                                              : "under 1 % of the path: shortening it alone will not");
        }
    }
}

}  // namespace

const std::vector<FindingRule>& findingRules() {
    static const std::vector<FindingRule> kRules = {
        {"exposed_comm", "Communication not overlapped with computation",
         "merged COMMUNICATION kernel time minus its overlap with merged COMPUTATION time (overlap analysis, HTA)",
         "overlap collectives with compute (DDP bucketing, FSDP prefetch, async collectives); fewer or larger "
         "collectives; check the interconnect (NCCL/RCCL channels, topology)"},
        {"launch_bound", "GPU idle waiting for the CPU (launch-bound)",
         "idle analysis' host_wait time on the stream with the most of it, when at least half the kernels ran "
         "shorter than the runtime call that launched them",
         "CUDA/HIP graphs (torch.compile mode=reduce-overhead), fuse small kernels, larger batches, less Python "
         "work between launches"},
        {"dataloader_stall", "Data-loader stalls",
         "time of CPU slices named *DataLoader* (merged) during which no GPU activity ran",
         "DataLoader num_workers > 0, pin_memory=True, persistent_workers, prefetch_factor; move decoding off the "
         "training process"},
        {"host_sync", "Host synchronisations inside the step",
         "durations of cuda/hip Device-, Stream-, EventSynchronize and blocking cudaMemcpy/hipMemcpy calls in the "
         "window",
         "remove .item(), .cpu(), print of tensors and explicit synchronize from the step; use non_blocking copies; "
         "log metrics every N steps"},
        {"pageable_h2d", "Host-to-device copies from pageable memory",
         "durations of GPU memcpys named 'Memcpy HtoD (Pageable -> Device)' in the window",
         "pin host memory (pin_memory=True, tensor.pin_memory()) and copy with non_blocking=True"},
        {"straggler", "A straggler rank the others waited for",
         "straggler analysis' caused_wait_ns of the rank with the most, divided by the number of other ranks",
         "look at what the straggler does before the collective (data loading, extra work on rank 0, a slower GPU "
         "or link); balance the work"},
        {"gemm_below_peak", "GEMMs far below the GPU's peak",
         "GEMM kernel time minus the time the steps' GEMM FLOPs (record_shapes) take at the GPU's peak for the data "
         "type, when the achieved share of peak is below 50 %",
         "bf16/fp16 or tf32 instead of fp32, dimensions multiple of 8/16, larger GEMMs (batch), tuned GEMM "
         "libraries (hipBLASLt/cuBLASLt tuning, TunableOp)"},
        {"small_elementwise", "Many small element-wise kernels",
         "total time of elementwise kernels shorter than 10 us, when there are at least 50 per step",
         "fuse them: torch.compile, fused optimizers (foreach/fused=True), fused activations and norms"},
        {"rank_imbalance", "Work imbalanced across ranks",
         "temporal analysis' compute time of the busiest rank minus the mean over ranks",
         "balance the data and model shards (sequence lengths, embedding tables, pipeline stages)"},
        {"inter_step_gaps", "Idle gaps between steps",
         "GPU idle between consecutive ProfilerSteps: the first GPU activity launched in a step starts after the last "
         "one launched in the step before ends (the time between, when positive)",
         "look at what the CPU does between the last launch of a step and the first of the next (data loading, "
         "optimizer or metric work on the CPU, logging, checkpointing, evaluation): overlap it with the GPU (prefetch, "
         "asynchronous checkpoints) or move it out of the step loop"},
    };
    return kRules;
}

const char* findingSeverity(double share) {
    if (share >= 0.10) return "high";
    if (share >= 0.03) return "medium";
    return "low";
}

Result<FindingsResult> computeFindings(AnalysisContext& ctx, const FindingsOptions& options) {
    bool anySteps = false;
    for (size_t i = 0; i < ctx.rankCount(); ++i) anySteps = anySteps || !ctx.steps(i).empty();
    WindowSpec spec;
    spec.kind = anySteps ? WindowKind::Steps : WindowKind::All;
    auto sel = ctx.select(spec);
    if (!sel) return sel.error();
    FindingsBase b = makeBase(ctx, options, sel.value());
    FindingsResult out;
    out.window = anySteps ? "steps" : "all";
    out.stepMs = b.runStepNs / 1e6;
    out.steps = b.steps.empty() ? 0 : b.steps.front();
    if (!anySteps) out.messages.push_back("no ProfilerStep in the run: the whole trace counts as one step");
    if (b.runStepNs <= 0) {
        out.messages.push_back("no GPU activity and no step: nothing to rank");
        return out;
    }
    using Rule = std::optional<Finding> (*)(AnalysisContext&, const FindingsBase&);
    for (Rule rule : {&exposedComm, &launchBound, &dataloaderStall, &hostSync, &pageableH2d, &straggler,
                      &smallElementwise, &rankImbalance, &interStepGaps})
        if (auto f = rule(ctx, b)) out.findings.push_back(std::move(*f));
    if (auto f = gemmBelowPeak(b, out.messages)) out.findings.push_back(std::move(*f));
    for (const Finding& f : out.findings)
        if (f.msPerStep > out.stepMs)
            out.messages.push_back(fmt::format(
                "{}: {:.3f} ms per step is more than the step ({:.3f} ms): the GPU work launched in the steps runs "
                "past them (share shown as 1)",
                f.rule, f.msPerStep, out.stepMs));
    std::stable_sort(out.findings.begin(), out.findings.end(),
                     [](const Finding& a, const Finding& c) { return a.msPerStep > c.msPerStep; });
    markCriticalPath(ctx, b, out);
    return out;
}

namespace {
std::string jsonNumber(double v) {
    if (!std::isfinite(v)) return "null";
    return fmt::format("{}", v);
}
}  // namespace

std::string findingsJson(const FindingsResult& r) {
    std::string s = fmt::format("{{\"schema\": 1, \"window\": {}, \"step_ms\": {}, \"steps\": {}, \"findings\": [",
                                jsonQuote(r.window), jsonNumber(r.stepMs), r.steps);
    for (size_t i = 0; i < r.findings.size(); ++i) {
        const Finding& f = r.findings[i];
        s += fmt::format("{}\n  {{\"rule\": {}, \"severity\": {}, \"ms_per_step\": {}, \"share\": {}, \"evidence\": {{",
                         i ? "," : "", jsonQuote(f.rule), jsonQuote(f.severity), jsonNumber(f.msPerStep),
                         jsonNumber(f.share));
        for (size_t k = 0; k < f.evidence.size(); ++k)
            s += fmt::format("{}{}: {}", k ? ", " : "", jsonQuote(f.evidence[k].first), jsonNumber(f.evidence[k].second));
        s += fmt::format("}}, \"ranks\": [{}], \"ranges\": [", fmt::join(f.ranks, ", "));
        for (size_t k = 0; k < f.ranges.size(); ++k)
            s += fmt::format("{}{{\"rank\": {}, \"start_ns\": {}, \"end_ns\": {}}}", k ? ", " : "", f.ranges[k].rank,
                             f.ranges[k].start, f.ranges[k].end);
        s += fmt::format("], \"title\": {}, \"definition\": {}, \"what_to_try\": {}, \"on_critical_path\": {}, "
                         "\"critical_path_reason\": {}}}",
                         jsonQuote(f.title), jsonQuote(f.definition), jsonQuote(f.whatToTry),
                         f.onCriticalPath ? (*f.onCriticalPath ? "true" : "false") : "null",
                         jsonQuote(f.criticalPathReason));
    }
    s += "\n], \"messages\": [";
    for (size_t i = 0; i < r.messages.size(); ++i) s += (i ? ", " : "") + jsonQuote(r.messages[i]);
    s += "]}\n";
    return s;
}

}  // namespace strobe::core
