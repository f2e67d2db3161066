#include "plots/step_times.h"

#include "core/analysis/sweep_compare.h"

#include <algorithm>
#include <map>

namespace strobe::plots {

std::vector<std::pair<int64_t, double>> endToEndStepTimes(const core::Dataset& run, int64_t skip) {
    std::map<int64_t, std::pair<int64_t, int64_t>> span;  // step number -> (min start, max end) over ranks
    for (const auto& r : run.ranks)
        for (size_t s = 0; s < r->steps.size(); ++s) {
            auto [it, fresh] = span.try_emplace(r->steps.number[s], r->steps.start[s], r->steps.end[s]);
            if (!fresh) {
                it->second.first = std::min(it->second.first, r->steps.start[s]);
                it->second.second = std::max(it->second.second, r->steps.end[s]);
            }
        }
    std::vector<std::pair<int64_t, double>> out;
    int64_t dropped = 0;
    for (const auto& [number, se] : span)
        if (dropped++ >= skip) out.emplace_back(number, double(se.second - se.first));
    return out;
}

std::string configurationLabel(const core::RunEntry& run) {
    return run.parameters.empty() ? run.label : core::configurationKey(run.parameters);
}

}  // namespace strobe::plots
