#pragma once
// The merge, done once per load: fills the derived columns of a RankData.
//
//   slices.byTrack / parent / depth   per-track order (ts asc, dur desc) and the nesting of every slice
//   slices.launchedGpu                 for runtime/driver calls: the first GPU activity they launched
//   gpu.byTrack                        per-track (device stream) order of GPU activities
//   gpu.runtime                        launching runtime/driver call (correlation id, else ac2g flows)
//   gpu.cpuOp                          the CPU op (or user annotation) that launched it
//   gpu.step / steps                   ProfilerStep#N ranges and the step of each GPU activity
//   gpu.annotation                     innermost gpu_user_annotation on the same stream containing it
//   gpu.category / collective / copyDirection   classification (one rule match per distinct name)
//
// The rules behind each (tie-breaks, fallbacks) are documented at the top of merge.cpp; interval queries over
// the result are in core/merge/annotation_index.h.

#include "core/io/error.h"
#include "core/io/progress.h"
#include "core/model/classification.h"
#include "core/model/dataset.h"

namespace strobe::core {

// Recomputes every derived column (running it again gives the same columns); raw columns are never reordered. O(n log n) worst case, O(n)
// when each thread's events come in time order. Adds warnings (duplicate correlation ids, partially overlapping
// slices) to rank.diagnostics. Returns an Error when cancelled or when the raw columns have inconsistent
// lengths (a loader bug), naming rank.path.
Status mergeRank(RankData& rank, const ClassificationRules& rules, const CancelToken& cancel = {});

}  // namespace strobe::core
