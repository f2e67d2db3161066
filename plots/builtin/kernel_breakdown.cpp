// Kernel breakdown: GPU time by Strobe category, or by the top-N kernels (the rest as "others"), as stacked bars
// per rank, per step or for the whole window. Time is the sum of activity durations (kernels that overlap on
// different streams each count their own time), the same figure as `strobe-cli summary`'s time by category.

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "core/engine/converted_run.h"
#include "plots/chart.h"
#include "plots/plot_registry.h"
#include "plots/sweep_axes.h"

namespace strobe::plots {
namespace {

// The shared group_by (plots/sweep_axes.h): stack kernel categories (the default) or the top-N groups of another
// grouping ("kernel", this plot's old choice, is name).
const StringParam kGroupBy = kSweepGroupBy.withDefault("category");
const EnumParam kPer =
    EnumParam{"per", "Bars", "One bar per rank, per step (all selected ranks together) or one for the whole window",
              "rank"}
        .choices({"rank", "step", "window"});
const IntParam kKernelBreakdownTopN =
    IntParam{"top_n", "Top N kernels", "With group by kernel: how many kernels get their own colour (the rest: others)",
             10}
        .bounded(1, 50, 1);
const BoolParam kKernelBreakdownIncludeMemory{"include_memory", "Memcpy/memset",
                                              "Count memcpy and memset activities too", true};

struct BreakdownPrepared final : Prepared {
    std::vector<std::string> bars;
    std::vector<std::string> series;
    std::vector<QColor> colors;
    std::vector<std::vector<int64_t>> time;   // [bar][series] ns
    std::vector<std::vector<int64_t>> count;  // [bar][series]
    std::string subtitle;
    std::vector<std::string> messages;
    size_t bytes() const override {
        size_t b = sizeof(*this) + bars.size() * 48 + series.size() * 64;
        for (const auto& v : time) b += v.capacity() * 16;
        return b;
    }
};

class KernelBreakdownPlot final : public BarPlot<BreakdownPrepared> {
public:
    KernelBreakdownPlot()
        : BarPlot({"kernel-breakdown", "Kernel breakdown",
                   "GPU time by kernel category or by the top-N kernels, stacked per rank, per step or for the whole "
                   "window.",
                   20}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        std::vector<ParamSpec> s{kGroupBy.spec(), kPer.spec(), kKernelBreakdownTopN.spec(),
                                 ranksSpec(runs, "Ranks to include (empty: all)", true, true),
                                 kKernelBreakdownIncludeMemory.spec()};
        for (auto& spec : barStyleSpecs("Show each bar as 100% (shares) instead of absolute time", false, false))
            s.push_back(spec);
        return s;
    }

    core::Result<std::shared_ptr<BreakdownPrepared>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                                  const core::CancelToken& cancel,
                                                                  const core::ProgressFn& progress) const override {
        auto out = std::make_shared<BreakdownPrepared>();
        core::SweepGroupBy by{};
        std::string groupRegex;
        if (auto st = sweepGroupBy(values, by, groupRegex, kGroupBy); !st) return st.error();
        const bool byKernel = by != core::SweepGroupBy::Category;  // series are the top-N groups
        // op, normalized and regex:R: core's grouper names each activity's group.
        std::optional<core::KernelGrouper> grouper;
        if (byKernel && by != core::SweepGroupBy::Name) grouper.emplace(by, groupRegex);
        std::string per = kPer(values);
        auto topN = size_t(kKernelBreakdownTopN(values));
        auto selected = kRanks(values);
        bool mem = kKernelBreakdownIncludeMemory(values);

        // Accumulate per (bar key, series name).
        std::vector<std::string> barLabels;
        std::map<std::pair<size_t, int64_t>, size_t> barIndex;  // (run, rank or step) → bar
        std::unordered_map<std::string, size_t> seriesIndex;
        std::vector<std::string> seriesNames;
        std::vector<std::vector<int64_t>> time, count;
        std::vector<int64_t> seriesTotal;
        auto bar = [&](size_t run, int64_t key, const std::string& label) {
            auto [it, added] = barIndex.try_emplace({run, key}, barLabels.size());
            if (added) {
                barLabels.push_back(label);
                time.emplace_back(seriesNames.size(), 0);
                count.emplace_back(seriesNames.size(), 0);
            }
            return it->second;
        };
        auto seriesOf = [&](const std::string& name) {
            auto [it, added] = seriesIndex.try_emplace(name, seriesNames.size());
            if (added) {
                seriesNames.push_back(name);
                seriesTotal.push_back(0);
                for (auto& v : time) v.push_back(0);
                for (auto& v : count) v.push_back(0);
            }
            return it->second;
        };
        if (!byKernel)
            for (size_t c = 0; c < size_t(core::KernelCategory::Count); ++c)
                seriesOf(std::string(core::toString(core::KernelCategory(c))));

        auto sumRank = [&](size_t ri, const core::RankData& r) {
            const auto& g = r.gpu;
            // Bars are made on the first activity counted, so an empty rank adds none.
            int64_t rankBar = -1;
            auto barOfRank = [&] {
                if (rankBar < 0)
                    rankBar = int64_t(per == "rank" ? bar(ri, r.rank, rankLabel(runs, ri, r.rank))
                                                    : bar(ri, 0, runs.size() > 1 ? runs[ri].label : "window"));
                return size_t(rankBar);
            };
            // Series per name id, resolved once per rank.
            std::vector<int64_t> nameSeries(byKernel ? r.strings.size() : 0, -1);
            for (size_t i = 0; i < g.size(); ++i) {
                if (!mem && g.kind[i] != core::EventKind::Kernel) continue;
                size_t b = 0;
                if (per != "step") {
                    b = barOfRank();
                } else {
                    int64_t st = activityStep(r, i);
                    if (st < 0) continue;
                    b = bar(
                        ri, st,
                        runs.size() > 1 ? fmt::format("{} / step {}", runs[ri].label, st) : fmt::format("step {}", st));
                }
                size_t s;
                if (grouper) {
                    s = seriesOf(grouper->of(r, i));
                } else if (byKernel) {
                    auto id = g.name[i];
                    if (id < nameSeries.size()) {
                        if (nameSeries[id] < 0) nameSeries[id] = int64_t(seriesOf(r.strings.str(id)));
                        s = size_t(nameSeries[id]);
                    } else {
                        s = seriesOf(r.strings.str(id));
                    }
                } else {
                    s = size_t(activityCategory(r, i));
                }
                int64_t d = std::max<int64_t>(0, g.dur[i]);
                time[b][s] += d;
                count[b][s] += 1;
                seriesTotal[s] += d;
            }
        };
        if (!forEachSelectedRank(runs, selected, cancel, progress, "sum", 0, 1, sumRank)) return cancelledError();
        // A summary-first run: its ranks that are summary only, by category per rank or for the window, from their
        // summaries (GPU time and count by category: the figures summing their activities gives). By kernel or per
        // step, only the loaded ranks count (said in the subtitle).
        size_t fromSummaries = 0;
        std::string scope;
        for (size_t ri = 0; ri < runs.size(); ++ri) {
            const core::RunSummaries* sf = runs[ri].dataset ? runs[ri].dataset->summaryFirst.get() : nullptr;
            if (!sf) continue;
            if (byKernel || per == "step") {
                scope = fmt::format("; on the loaded ranks only ({} of {})", sf->loaded.size(), sf->ranks.size());
                continue;
            }
            for (const auto& stored : sf->ranks) {
                const core::RankSummary& r = stored.rank;
                if (sf->isLoaded(r.rank) || !rankSelected(selected, r.rank)) continue;
                ++fromSummaries;
                for (size_t k = 0; k < r.timeByCategory.size(); ++k) {
                    const auto [category, ns] = r.timeByCategory[k];
                    if (!mem && (category == core::KernelCategory::Memcpy || category == core::KernelCategory::Memset))
                        continue;
                    const size_t b = per == "rank" ? bar(ri, r.rank, rankLabel(runs, ri, r.rank))
                                                   : bar(ri, 0, runs.size() > 1 ? runs[ri].label : "window");
                    const auto si = size_t(category);
                    time[b][si] += ns;
                    count[b][si] += k < r.countByCategory.size() ? int64_t(r.countByCategory[k].second) : 0;
                    seriesTotal[si] += ns;
                }
            }
        }
        if (fromSummaries > 0) scope = fmt::format("; {} ranks from their summaries", fromSummaries);
        if ((per == "step" || fromSummaries > 0) && barLabels.size() > 1) {
            // Order step bars by (run, step), rank bars by (run, rank).
            std::vector<std::pair<std::pair<size_t, int64_t>, size_t>> order(barIndex.begin(), barIndex.end());
            std::vector<std::string> l;
            std::vector<std::vector<int64_t>> t2, c2;
            for (auto& [k, idx] : order) {
                l.push_back(barLabels[idx]);
                t2.push_back(time[idx]);
                c2.push_back(count[idx]);
            }
            barLabels = std::move(l);
            time = std::move(t2);
            count = std::move(c2);
        }
        // Choose the series to show: categories with time, or the top-N kernels + others.
        std::vector<size_t> seriesOrder(seriesNames.size());
        for (size_t i = 0; i < seriesOrder.size(); ++i) seriesOrder[i] = i;
        std::stable_sort(seriesOrder.begin(), seriesOrder.end(),
                         [&](size_t a, size_t b) { return seriesTotal[a] > seriesTotal[b]; });
        std::vector<size_t> keep;
        bool others = false;
        for (size_t k = 0; k < seriesOrder.size(); ++k) {
            size_t s = seriesOrder[k];
            if (seriesTotal[s] == 0) continue;
            if (byKernel && keep.size() >= topN) {
                others = true;
                continue;
            }
            keep.push_back(s);
        }
        out->bars = barLabels;
        for (size_t k = 0; k < keep.size(); ++k) {
            out->series.push_back(seriesNames[keep[k]]);
            if (byKernel) out->colors.push_back(seriesColor(int(k)));
            else {
                core::KernelCategory c{};
                core::parseKernelCategory(seriesNames[keep[k]], c);
                out->colors.push_back(categoryColor(c));
            }
        }
        if (others) {
            out->series.push_back("others");
            out->colors.push_back(QColor(190, 190, 190));
        }
        out->time.assign(barLabels.size(), std::vector<int64_t>(out->series.size(), 0));
        out->count.assign(barLabels.size(), std::vector<int64_t>(out->series.size(), 0));
        std::vector<int64_t> slot(seriesNames.size(), int64_t(out->series.size()) - 1);
        for (size_t k = 0; k < keep.size(); ++k) slot[keep[k]] = int64_t(k);
        for (size_t b = 0; b < barLabels.size(); ++b)
            for (size_t s = 0; s < seriesNames.size(); ++s) {
                if (time[b][s] == 0 && count[b][s] == 0) continue;
                if (slot[s] < 0) continue;
                out->time[b][size_t(slot[s])] += time[b][s];
                out->count[b][size_t(slot[s])] += count[b][s];
            }
        out->subtitle = fmt::format("{} {}, {}", !byKernel ? std::string("by category")
                                    : grouper ? fmt::format("top {} groups by {}", topN, kGroupBy(values))
                                              : fmt::format("top {} kernels", topN),
                                    per == "rank" ? "per rank" : per == "step" ? "per step" : "for the whole window",
                                    mem ? "kernels + memcpy/memset, sum of durations" : "kernels, sum of durations") +
                        scope;
        if (out->bars.empty())
            out->messages.push_back(per == "step" ? "no GPU activity falls inside a ProfilerStep"
                                                  : "no GPU activities in the selection");
        return out;
    }

    core::Table tableTyped(const BreakdownPrepared& p, const ParamValues&) const override {
        core::Table t;
        t.columns = {"bar", "series", "time_ns", "count", "pct"};
        for (size_t b = 0; b < p.bars.size(); ++b) {
            int64_t total = 0;
            for (auto x : p.time[b]) total += x;
            for (size_t s = 0; s < p.series.size(); ++s) {
                if (p.count[b][s] == 0) continue;
                t.rows.push_back({p.bars[b], p.series[s], p.time[b][s], p.count[b][s],
                                  total > 0 ? double(p.time[b][s]) * 100.0 / double(total) : 0.0});
            }
        }
        t.messages = p.messages;
        return t;
    }

private:
    std::string noBarsMessage() const override { return "no GPU activity in the selection"; }

    BarChart chart(const BreakdownPrepared& p, const ParamValues& v) const override {
        BarChart c;
        c.title = title();
        c.subtitle = p.subtitle;
        c.bars = p.bars;
        c.series = p.series;
        c.colors = p.colors;
        c.horizontal = kHorizontal(v);
        c.percentAxis = kPercent(v);
        c.legend = legendMode(v);
        c.valueLabel = c.percentAxis ? "share of bar" : "GPU time";
        for (const auto& row : p.time) {
            double total = 0;
            for (auto x : row) total += double(x);
            c.values.emplace_back();
            for (auto x : row)
                c.values.back().push_back(!c.percentAxis ? double(x) : total > 0 ? double(x) / total * 100.0 : 0.0);
        }
        c.hitFields = [&p](size_t b, size_t s) {
            int64_t total = 0;
            for (auto x : p.time[b]) total += x;
            return BarChart::Fields{
                {"bar", p.bars[b]},
                {"time", formatDuration(double(p.time[b][s]))},
                {"share", formatPercent(total > 0 ? double(p.time[b][s]) / double(total) * 100 : 0)},
                {"count", std::to_string(p.count[b][s])}};
        };
        c.messages = p.messages;
        return c;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(KernelBreakdownPlot)

}  // namespace strobe::plots
