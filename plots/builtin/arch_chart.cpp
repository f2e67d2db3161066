// Architecture chart: for the top kernels by GPU time, how much of the GPU's peak each used — MFMA/tensor-core
// utilisation, VALU utilisation, LDS activity, L2 hit rate and HBM bandwidth as a share of the architecture's peak
// (resources/arch_constants.yaml, found by the GPU's name) — as grouped horizontal bars, one group per kernel.
// Values are the derived metrics of resources/derived_metrics.yaml (means over the kernel's dispatches); where the
// data is rocprof-compute's analysis database or an ncu details page, that tool's own percentage is used instead.
// Metrics the data has no counters for are left out, and named.

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "plots/analysis_plot.h"
#include "plots/chart.h"
#include "plots/counter_metrics.h"
#include "plots/plot_registry.h"

namespace strobe::plots {
namespace {

const IntParam kTopN =
    IntParam{"top_n", "Kernels", "How many kernels (largest total time first)", 10}.bounded(1, 60, 1).drawOnly();

struct ArchMetric {
    const char* label;
    const char* column;
    const char* derived;                 // resources/derived_metrics.yaml
    std::vector<const char*> fallbacks;  // the tools' own percentages (rocprof-compute database, ncu details page)
};
const std::vector<ArchMetric>& archMetrics() {
    static const std::vector<ArchMetric> all{
        {"MFMA / tensor core", "mfma_pct", "mfma_busy_pct", {"2.1.12 MFMA Utilization: Avg"}},
        {"VALU", "valu_pct", "valu_active_pct", {"2.1.11 VALU Utilization: Avg"}},
        {"LDS", "lds_pct", "lds_active_pct", {"12.1.0 Utilization: Avg"}},
        {"L2 hit", "l2_hit_pct", "l2_hit_pct", {"2.1.22 L2 Cache Hit Rate: Avg", "L2 Hit Rate [%]"}},
        {"HBM bandwidth", "hbm_bw_pct", "hbm_bandwidth_pct", {"DRAM Throughput [%]"}},
    };
    return all;
}

struct KernelRow {
    size_t run = 0;
    std::string name;
    int64_t dispatches = 0, totalNs = 0;
    std::vector<std::pair<double, int64_t>> sums;  // per shown metric: (sum, count)
};

struct ArchPrepared final : Prepared {
    std::vector<size_t> shown;              // indices into archMetrics()
    std::vector<std::string> sources;       // per shown metric: the counter or metric it was read from
    std::vector<KernelRow> kernels;         // every kernel with a value, by total time (largest first)
    std::vector<std::string> runLabels;
    std::vector<std::string> messages;
    std::string leftOut;                    // labels of the metrics the data has no counters for
    size_t bytes() const override { return sizeof(*this) + kernels.size() * 160; }
};

class ArchChartPlot final : public BarPlot<ArchPrepared> {
public:
    ArchChartPlot()
        : BarPlot(
              {"arch-chart", "Architecture chart",
               "Per kernel (top N by time): MFMA/tensor-core and VALU utilisation, LDS, L2 hit rate and HBM bandwidth "
               "as % of the GPU's peak, grouped bars.",
               98}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        return {ranksSpec(runs), kTopN.spec(), kLegend.spec()};
    }

    core::Result<std::shared_ptr<ArchPrepared>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                             const core::CancelToken& cancel,
                                                             const core::ProgressFn&) const override {
        auto p = std::make_shared<ArchPrepared>();
        for (const auto& r : runs) p->runLabels.push_back(r.label);
        p->messages = counterMessages(runs);
        const auto ranks = kRanks(values);
        std::map<std::pair<size_t, std::string>, size_t> index;
        std::vector<std::string> missing;
        for (size_t m = 0; m < archMetrics().size(); ++m) {
            const ArchMetric& am = archMetrics()[m];
            std::vector<KernelValue> vals;
            std::string source = am.derived;
            vals = kernelValues(runs, ranks, source, cancel);
            for (size_t f = 0; vals.empty() && f < am.fallbacks.size(); ++f)
                vals = kernelValues(runs, ranks, source = am.fallbacks[f], cancel);
            if (cancel.cancelled()) return cancelledError();
            if (vals.empty()) {
                missing.push_back(fmt::format("{} ({})", am.label, am.derived));
                continue;
            }
            const size_t col = p->shown.size();
            p->shown.push_back(m);
            p->sources.push_back(source);
            for (auto& k : p->kernels) k.sums.emplace_back(0.0, 0);
            for (const auto& v : vals) {
                const auto& r = *runs[v.run].dataset->rank(v.rank);
                auto [it, added] = index.try_emplace({v.run, std::string(r.strings.view(r.gpu.name[v.gpuRow]))},
                                                     p->kernels.size());
                if (added) {
                    KernelRow k;
                    k.run = v.run;
                    k.name = it->first.second;
                    k.sums.assign(col + 1, {0.0, 0});
                    p->kernels.push_back(std::move(k));
                }
                auto& s = p->kernels[it->second].sums[col];
                s.first += v.value;
                s.second += 1;
            }
        }
        addTimes(runs, ranks, *p);
        std::stable_sort(p->kernels.begin(), p->kernels.end(),
                         [](const KernelRow& a, const KernelRow& b) { return a.totalNs > b.totalNs; });
        if (!missing.empty() && !p->shown.empty()) {
            p->messages.push_back("left out, the data has no counters for them: " + join(missing));
            for (const auto& m : missing) p->leftOut += (p->leftOut.empty() ? "" : ", ") + m.substr(0, m.find(" ("));
        }
        else if (!missing.empty())
            p->messages.push_back("none of " + join(missing) + " can be computed from the data's counters");
        addArchMessages(runs, *p);
        return p;
    }

    core::Table tableTyped(const ArchPrepared& p, const ParamValues&) const override {
        core::Table t;
        t.columns = {"run", "kernel", "dispatches", "total_ns"};
        for (size_t m : p.shown) t.columns.push_back(archMetrics()[m].column);
        t.messages = p.messages;
        for (size_t i = 0; i < p.shown.size(); ++i)
            t.messages.push_back(fmt::format("{}: {}", archMetrics()[p.shown[i]].column, p.sources[i]));
        for (const auto& k : p.kernels) {
            std::vector<core::Cell> row{p.runLabels[k.run], k.name, k.dispatches, k.totalNs};
            for (const auto& [sum, n] : k.sums) {
                if (n > 0) row.emplace_back(sum / double(n));
                else row.emplace_back(std::monostate{});
            }
            t.addRow(std::move(row));
        }
        return t;
    }

private:
    static std::string join(const std::vector<std::string>& v) {
        std::string out;
        for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
        return out;
    }

    // Dispatches and total time of each kernel (every dispatch of the name in the selected ranks).
    static void addTimes(const RunSet& runs, const std::vector<int>& ranks, ArchPrepared& p) {
        std::map<std::pair<size_t, std::string>, KernelRow*> byName;
        for (auto& k : p.kernels) byName[{k.run, k.name}] = &k;
        for (size_t run = 0; run < runs.size(); ++run) {
            if (!runs[run].dataset) continue;
            for (const auto& rp : runs[run].dataset->ranks) {
                if (!rankSelected(ranks, rp->rank)) continue;
                for (size_t i = 0; i < rp->gpu.size(); ++i) {
                    if (rp->gpu.kind[i] != core::EventKind::Kernel) continue;
                    auto it = byName.find({run, std::string(rp->strings.view(rp->gpu.name[i]))});
                    if (it == byName.end()) continue;
                    it->second->dispatches += 1;
                    it->second->totalNs += rp->gpu.dur[i];
                }
            }
        }
    }

    static void addArchMessages(const RunSet& runs, ArchPrepared& p) {
        std::set<std::string> unknown;
        for (const auto& run : runs)
            if (run.dataset)
                for (const auto& rp : run.dataset->ranks)
                    if (rp->kernelCounters.size() > 0 && !archOf(*rp))
                        unknown.insert(rp->info.gpuName().empty() ? "(unnamed)" : rp->info.gpuName());
        for (const auto& g : unknown)
            p.messages.push_back(fmt::format("no architecture constants for GPU '{}' (resources/arch_constants.yaml): "
                                             "metrics that need its peak are not computed",
                                             g));
    }

    std::string noBarsMessage() const override { return "no kernel has any of the architecture metrics"; }

    BarChart chart(const ArchPrepared& p, const ParamValues& v) const override {
        BarChart c;
        c.title = title();
        const size_t n = std::min<size_t>(p.kernels.size(), size_t(kTopN(v)));
        c.subtitle = fmt::format("top {} of {} kernels by total time; % of the GPU's peak (means over dispatches){}", n,
                                 p.kernels.size(), p.leftOut.empty() ? "" : "; no counters for: " + p.leftOut);
        c.stacked = false;
        c.horizontal = true;
        c.percentAxis = true;
        c.durationAxis = false;
        c.valueLabel = "% of peak";
        c.legend = legendMode(v);
        c.messages = p.messages;
        for (size_t i = 0; i < p.shown.size(); ++i) {
            c.series.push_back(archMetrics()[p.shown[i]].label);
            c.colors.push_back(seriesColor(int(p.shown[i])));
        }
        const bool many = p.runLabels.size() > 1;
        std::vector<const KernelRow*> rows;
        for (size_t i = 0; i < n; ++i) rows.push_back(&p.kernels[i]);
        for (const auto* k : rows) {
            c.bars.push_back(many ? p.runLabels[k->run] + " · " + k->name : k->name);
            std::vector<double> vals;
            for (const auto& [sum, cnt] : k->sums) vals.push_back(cnt ? std::clamp(sum / double(cnt), 0.0, 100.0) : 0.0);
            c.values.push_back(std::move(vals));
        }
        c.hitFields = [rows, &p](size_t bar, size_t series) {
            BarChart::Fields f;
            const KernelRow& k = *rows[bar];
            f.emplace_back("kernel", k.name);
            f.emplace_back("dispatches", std::to_string(k.dispatches));
            f.emplace_back("total time", formatDuration(double(k.totalNs)));
            const auto [sum, cnt] = k.sums[series];
            f.emplace_back(archMetrics()[p.shown[series]].label,
                           cnt ? formatPercent(sum / double(cnt)) : std::string("no value"));
            f.emplace_back("from", p.sources[series]);
            return f;
        };
        return c;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(ArchChartPlot)

}  // namespace strobe::plots
