#pragma once
// Joining hardware counters collected by another tool or collection pass than the kernel trace: a rocprofv3 counter
// collection or an `ncu --csv` report opened next to the PyTorch profiler traces of the same run. Ids do not join
// across tools, so each dispatch that carries counters is matched to the trace kernel of the same name on the same
// device with the same instance index (its k-th dispatch of that name on that device, in time order, is the
// trace's k-th). Matched counters move onto the trace's kernels (RankData::kernelCounters of the trace rank);
// unmatched ones stay where they were, and the result names them: nothing is dropped silently.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "core/model/dataset.h"

namespace strobe::core {

struct CounterJoinResult {
    size_t dispatches = 0;  // dispatches of `from` that carry counters
    size_t matched = 0;     // of those, joined to a trace kernel
    std::map<std::string, size_t> unmatched;  // kernel name → dispatches left unmatched
    std::vector<int> traceRanks;              // ranks (RankData::rank) that received counters
    double matchRate() const { return dispatches ? double(matched) / double(dispatches) : 0.0; }
};

// Moves the counters of `from` onto the kernels of `traces` by (name, device, instance). A device is joined to
// the one trace rank that has kernels on it; when several do, to the one whose processes include the pid of
// `from`'s kernels, else not at all (counted as unmatched). Each receiving rank's stats.joinMatchRate is set to
// the share of `from`'s dispatches on its devices that matched.
CounterJoinResult joinCountersByInstance(RankData& from, const std::vector<RankData*>& traces);

}  // namespace strobe::core
