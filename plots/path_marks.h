#pragma once
// Where a critical path (core/analysis/critical_path.h) is on a timeline, for the GUI to outline it (issue 26):
// widget-free, implemented beside the timeline's flows (plots/builtin/timeline_flows.cpp).

#include <cstdint>
#include <string>
#include <vector>

#include "plots/plot.h"

namespace strobe::plots {

// One segment of a critical path (core::CpSegment with its strings owned): the rank, the event's name ("" for a gap:
// idle, launch latency), its bound-by class and its span on the run's aligned clock (absolute ns, as the analysis
// reports it).
struct PathSegment {
    int rank = -1;
    std::string name;
    std::string boundBy;
    int64_t start = 0;
    int64_t end = 0;
};

// The items a path's segments run through, each ItemRef's start/end narrowed to the segment's part of the item, and
// the edges where the path changes lane, from the end of one segment to the start of the next (`what`: "cross-rank"
// or "cross-lane"), drawn as flows are.
struct PathMarks {
    std::vector<ItemRef> items;   // one per placed segment, in path order
    std::vector<size_t> segment;  // per item: its index in the path
    std::vector<FlowLink> edges;  // the whole path only (none when kept to one class)
    size_t events = 0;            // segments (of the class asked for) that name an event
    size_t unplaced = 0;          // of those, not found among the lanes (a rank or lane kind left out)
    size_t crossRank = 0;         // edges between ranks
};

// Where `path` (of run `run`, its index in the RunSet) is on the GPU timeline prepared as `prepared`: each segment
// that names an event is found in its rank's CPU or stream lanes (hidden ones included) as the item that covers its
// span and has its name; consecutive placed segments in different lanes are joined by an edge. `boundBy` non-empty
// keeps that class's segments only. Another plot's prepared data gives the empty answer.
PathMarks pathMarks(const Prepared& prepared, size_t run, const std::vector<PathSegment>& path,
                    const std::string& boundBy);

}  // namespace strobe::plots
