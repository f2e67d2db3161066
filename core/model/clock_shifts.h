#pragma once
// The run's clock alignment as drawn and analysed across its sources: per source, the ns that place its raw times on
// the run's one axis (the timeline draws by it, the critical path across ranks computes on it).

#include <string>
#include <vector>

#include "core/model/dataset.h"

namespace strobe::core {

// Per source of `ds` (ds.allSources(): the ranks, then the hosts' telemetry), the ns added to its raw times: when
// every source with timed rows is anchored to realtime and their offsets differ (a PyTorch >= 2.4 trace, relative
// to its baseTimeNanoseconds, beside realtime telemetry or the CPU sampler), each is moved by its offset less the
// first such source's, so that the first keeps its own times; otherwise (offsets equal, or a clock not anchored)
// every source stays on its raw times (all 0).
std::vector<TimeNs> clockShifts(const Dataset& ds);

// One line saying how the ranks of `ds` are aligned: "ranks on their own recorded clocks (no shift)" or the shift
// of each rank moved.
std::string clockAlignmentText(const Dataset& ds, const std::vector<TimeNs>& shifts);

}  // namespace strobe::core
