#pragma once
// The merge, done once per load: fills the derived columns of a RankData (links GPU activity ↔ runtime call ↔
// CPU op, stream/device/step for each kernel, the annotation hierarchy, classification).

#include "core/analysis/classify.h"
#include "core/engine/progress.h"
#include "core/io/error.h"
#include "core/model/dataset.h"

namespace strobe::core {

// Sorts nothing the loader ordered; O(n log n). Adds warnings (e.g. duplicate correlation ids) to
// rank.diagnostics. Returns an Error only when cancelled.
Status mergeRank(RankData& rank, const ClassificationRules& rules, const CancelToken& cancel = {});

}  // namespace strobe::core
