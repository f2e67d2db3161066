#include "plots/counter_metrics.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "plots/chart.h"

namespace strobe::plots {

const MetricLibrary& metricLibrary() {
    static const MetricLibrary lib = [] {
        MetricLibrary l;
        auto set = core::DerivedMetricSet::loadDefault();
        if (set) l.set = std::move(*set);
        else l.errors.push_back(set.error().toString());
        auto archs = core::loadArchConstants();
        if (archs) l.archs = std::move(*archs);
        else l.errors.push_back(archs.error().toString());
        return l;
    }();
    return lib;
}

const core::ArchConstants* archOf(const core::RankData& rank) {
    if (rank.info.devices.empty()) return nullptr;
    return core::findArch(metricLibrary().archs, rank.info.devices.front());
}

namespace {

// Counter names of a rank, each also without ncu's " [unit]" suffix (formulas use the bare name).
std::set<std::string, std::less<>> counterNamesOf(const core::RankData& r) {
    std::set<core::StrId> ids(r.kernelCounters.name.begin(), r.kernelCounters.name.end());
    std::set<std::string, std::less<>> out;
    for (core::StrId id : ids) {
        std::string n(r.strings.view(id));
        out.insert(n);
        if (auto p = n.rfind(" ["); p != std::string::npos && n.back() == ']') out.insert(n.substr(0, p));
    }
    return out;
}

}  // namespace

std::vector<std::string> availableMetrics(const RunSet& runs) {
    const auto& lib = metricLibrary();
    std::vector<bool> derived(lib.set.metrics().size(), false);
    std::set<std::string> raw;
    for (const auto& run : runs) {
        if (!run.dataset) continue;
        for (const auto& rp : run.dataset->ranks) {
            if (rp->kernelCounters.size() == 0) continue;
            auto known = counterNamesOf(*rp);
            for (const auto& id : std::set<core::StrId>(rp->kernelCounters.name.begin(), rp->kernelCounters.name.end()))
                raw.insert(std::string(rp->strings.view(id)));
            known.insert({"duration_ns", "grid_size", "block_size"});
            if (const auto* arch = archOf(*rp))
                for (const auto& [k, v] : arch->values) known.insert(k);
            for (size_t m = 0; m < lib.set.metrics().size(); ++m) {
                const auto& metric = lib.set.metrics()[m];
                const bool ok = std::any_of(metric.formulas.begin(), metric.formulas.end(), [&](const auto& f) {
                    return std::all_of(f.names().begin(), f.names().end(),
                                       [&](const std::string& n) { return known.count(n) > 0; });
                });
                if (ok) {
                    derived[m] = true;
                    known.insert(metric.name);
                }
            }
        }
    }
    std::vector<std::string> out;
    for (size_t m = 0; m < derived.size(); ++m)
        if (derived[m]) out.push_back(lib.set.metrics()[m].name);
    for (const auto& r : raw)
        if (!lib.set.find(r)) out.push_back(r);
    return out;
}

std::vector<std::string> metricChoices(const RunSet& runs) {
    std::vector<std::string> out{kAutoMetric};
    // Without runs (strobe-cli checks --set before loading, plot lists): every metric of the table.
    if (runs.empty())
        for (const auto& m : metricLibrary().set.metrics()) out.push_back(m.name);
    for (auto& m : availableMetrics(runs)) out.push_back(std::move(m));
    return out;
}

std::string resolveMetric(const std::string& chosen, const std::vector<std::string>& available,
                          const std::vector<std::string>& preferred) {
    if (chosen != kAutoMetric && !chosen.empty()) return chosen;
    for (const auto& p : preferred)
        if (std::find(available.begin(), available.end(), p) != available.end()) return p;
    return available.empty() ? std::string() : available.front();
}

std::string metricLabel(const std::string& name) {
    if (const auto* m = metricLibrary().set.find(name); m && !m->unit.empty()) return fmt::format("{} ({})", name, m->unit);
    return name;
}

bool metricIsPercent(const std::string& name) {
    if (const auto* m = metricLibrary().set.find(name)) return m->unit == "%";
    return name.size() > 4 && (name.substr(name.size() - 4) == " [%]" || name.substr(name.size() - 4) == "_pct");
}

std::vector<KernelValue> kernelValues(const RunSet& runs, const std::vector<int>& ranks, const std::string& metric,
                                      const core::CancelToken& cancel) {
    std::vector<KernelValue> out;
    if (metric.empty()) return out;
    const auto& lib = metricLibrary();
    for (size_t run = 0; run < runs.size(); ++run) {
        if (!runs[run].dataset) continue;
        for (const auto& rp : runs[run].dataset->ranks) {
            if (cancel.cancelled()) return out;
            if (rp->kernelCounters.size() == 0 || !rankSelected(ranks, rp->rank)) continue;
            for (const auto& [row, v] : core::kernelMetricValues(*rp, lib.set, archOf(*rp), metric))
                if (std::isfinite(v) && row < rp->gpu.size()) out.push_back({run, rp->rank, row, v});
        }
    }
    return out;
}

std::vector<std::string> counterMessages(const RunSet& runs) {
    std::vector<std::string> out = metricLibrary().errors;
    for (const auto& run : runs) {
        bool any = false;
        if (run.dataset)
            for (const auto& rp : run.dataset->ranks) any = any || rp->kernelCounters.size() > 0;
        if (!any)
            out.push_back(run.label + ": no hardware counters (open a rocprofv3 counter collection, rocprof pmc, "
                                      "rocprof-compute or ncu output)");
    }
    return out;
}

}  // namespace strobe::plots
