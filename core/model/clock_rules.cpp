#include "core/model/clock_rules.h"

#include <fmt/format.h>

namespace strobe::core {

namespace {

bool timed(const RankData& r) { return r.gpu.size() + r.slices.size() + r.samples.size() + r.counters.size() > 0; }

std::string describe(const RankData& r) {
    return fmt::format("{} ({}, clock {}{})", r.path.empty() ? r.info.path : r.path, r.info.format,
                       clockDomainName(r.info.clock.domain), r.info.clock.anchored ? ", anchored" : ", not anchored");
}

}  // namespace

bool clocksRelate(const ClockInfo& a, const ClockInfo& b) {
    if (a.anchored && b.anchored) return true;  // both map onto realtime
    if (a.domain == b.domain) return true;      // one clock (two unanchored boot-time sources: one machine assumed)
    return a.domain == ClockDomain::Unknown || b.domain == ClockDomain::Unknown;
}

Status checkClockOverlay(const std::vector<const RankData*>& ranks) {
    const RankData* first = nullptr;
    for (const RankData* r : ranks) {
        if (r == nullptr || !timed(*r)) continue;
        if (first == nullptr) {
            first = r;
            continue;
        }
        if (clocksRelate(first->info.clock, r->info.clock)) continue;
        return Error(fmt::format(
            "refusing to overlay sources on different clocks: {} and {}. Their times cannot be related: give "
            "--clock-offset NS (nanoseconds added to the unanchored source's times to reach Unix-epoch time; in the "
            "workbench, the run's menu > Clock offset...), or a run manifest with clock anchors",
            describe(*first), describe(*r)));
    }
    return Ok{};
}

Status checkClockOverlay(const Dataset& ds) {
    return checkClockOverlay(ds.allSources());  // the ranks and the hosts' telemetry
}

}  // namespace strobe::core
