// Navigation over the GPU timeline's lanes (widget-free): name search, statistics of one name, what happened in
// a time range, and the activity density of the whole run for the overview strip. Lanes are used generically:
// every kind of lane is searched by its items' names (laneItemName).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plots/builtin/timeline_model.h"
#include "plots/plot.h"

namespace strobe::plots::timeline {

// The name of item `k` of `lane`: the kernel / memcpy name (streams), "ProfilerStep#N" (steps), the band's name
// (phases, layers), else the name of the CPU-side slice it comes from (annotations and any lane whose `src`
// indexes the rank's slices).
std::string laneItemName(const TimelinePrepared& p, const Lane& lane, size_t k);

// Items of `lanes` (indices into p.lanes) whose name matches, ordered by start (then lane, then index).
core::Result<std::vector<ItemRef>> findInLanes(const TimelinePrepared& p, const std::vector<int>& lanes,
                                               const FindQuery& query);

// Statistics of every item named like `item` in its run, over the lanes of the same kind.
std::optional<NameStats> statsOfName(const TimelinePrepared& p, const ItemRef& item);

// GPU time in [start, end) over the stream lanes among `lanes`, clipped to the range: per category and the
// `topN` names with the most clipped time (ties by name).
RangeSummary summarize(const TimelinePrepared& p, const std::vector<int>& lanes, int64_t start, int64_t end,
                       size_t topN);

// The flows through `item` (timeline_flows.cpp): a kernel's runtime call and operator; what an operator (with the
// operators nested in it) or a runtime call launched. At most `cap` links, in kernel order; ends in lanes the
// prepared model lacks (filtered out) are left out.
std::vector<FlowLink> flowsThrough(const TimelinePrepared& p, const ItemRef& item, size_t cap);

// Items of `lanes` (every kind but telemetry) that intersect [start, end), ordered by start.
std::vector<ItemRef> itemsIntersecting(const TimelinePrepared& p, const std::vector<int>& lanes, int64_t start,
                                       int64_t end);
// The events list's row of `item`.
EventRow eventRowOf(const TimelinePrepared& p, const ItemRef& item);

// Regex-escaped `name`, anchored (^…$): a name filter that keeps exactly that name.
std::string exactNameRegex(const std::string& name);

}  // namespace strobe::plots::timeline
