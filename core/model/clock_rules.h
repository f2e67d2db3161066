#pragma once
// The clock rules of a run that combines sources (DESIGN.md, issue 11): sources may be drawn on one time axis only
// when they are on the same clock domain, or when every one of them is anchored to realtime (TraceInfo::clock:
// Kineto is realtime by construction; nsys carries its session start; others are anchored by the run manifest
// (issue 10) or an explicit --clock-offset). Otherwise the overlay is refused, saying which sources disagree and how
// to anchor them.

#include <vector>

#include "core/io/error.h"
#include "core/model/dataset.h"

namespace strobe::core {

// Whether times on clocks `a` and `b` can share one axis: both anchored to realtime, or one clock domain, or either
// Unknown (written before clocks were recorded: nothing to judge by).
bool clocksRelate(const ClockInfo& a, const ClockInfo& b);

// Ok when the ranks' times can share one axis (every one anchored, or all on one clock domain; a rank whose clock
// is Unknown — written before clocks were recorded — is not judged); an Error naming two sources whose clocks cannot be related otherwise.
// Ranks with no timed rows (nothing to draw) are ignored.
Status checkClockOverlay(const std::vector<const RankData*>& ranks);
Status checkClockOverlay(const Dataset& ds);

// The time of rank `r`'s row on the shared axis: realtime ns when the rank is anchored, else its own time.
inline TimeNs overlayTime(const RankData& r, TimeNs t) {
    return r.info.clock.anchored ? t + r.info.clock.toRealtimeNs : t;
}

}  // namespace strobe::core
