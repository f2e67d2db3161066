// STUB — replaced by the merge work.
#include "core/merge/merge.h"

namespace strobe::core {

Status mergeRank(RankData&, const ClassificationRules&, const CancelToken& cancel) {
    if (cancel.cancelled()) return Error("cancelled");
    return Ok{};
}

}  // namespace strobe::core
