#include "core/model/clock_shifts.h"

#include <optional>

#include <fmt/format.h>

namespace strobe::core {

std::vector<TimeNs> clockShifts(const Dataset& ds) {
    const auto all = ds.allSources();
    std::vector<TimeNs> out(all.size(), 0);
    std::optional<TimeNs> first;
    bool differ = false;
    for (const RankData* r : all) {
        if (!r || (r->gpu.size() == 0 && r->slices.size() == 0 && r->samples.size() == 0)) continue;
        if (!r->info.clock.anchored) return out;
        if (!first) first = r->info.clock.toRealtimeNs;
        differ = differ || r->info.clock.toRealtimeNs != *first;
    }
    if (!differ) return out;
    for (size_t i = 0; i < all.size(); ++i)
        if (all[i] && all[i]->info.clock.anchored) out[i] = all[i]->info.clock.toRealtimeNs - *first;
    return out;
}

std::string clockAlignmentText(const Dataset& ds, const std::vector<TimeNs>& shifts) {
    std::string moved;
    for (size_t i = 0; i < ds.ranks.size() && i < shifts.size(); ++i)
        if (ds.ranks[i] && shifts[i] != 0)
            moved += fmt::format("{}rank {} {:+.3f} ms", moved.empty() ? "" : ", ", ds.ranks[i]->rank,
                                 static_cast<double>(shifts[i]) / 1e6);
    if (moved.empty())
        return ds.ranks.size() > 1 ? "clocks: every rank on its own recorded clock, no shift (one clock domain)"
                                   : "clocks: the rank's own recorded clock";
    return "clocks: ranks moved onto the first rank's realtime anchor (" + moved + ")";
}

}  // namespace strobe::core
