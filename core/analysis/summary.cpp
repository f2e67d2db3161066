// STUB — replaced by the summary work.
#include "core/analysis/summary.h"

namespace strobe::core {

RankSummary summarizeRank(const RankData& rank, size_t) {
    RankSummary s;
    s.rank = rank.rank;
    s.path = rank.path;
    return s;
}

}  // namespace strobe::core
