// libFuzzer target: library-call logs (issue 23): rocBLAS's profile log (ROCBLAS_LAYER=4), what the rocblas-log
// tool captures. What loads is merged, validated and walked; an error must say something.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/formats/rocblas_log.h"
#include "core/model/validate.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace strobe::core;
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto r = parseRocblasLog(text, "fuzz.log", {});
    if (!r.ok()) {
        strobe::fuzz::checkError(r.error());
        return 0;
    }
    RankData& rank = *r.value();
    static const ClassificationRules rules = [] {
        auto c = ClassificationRules::loadDefault();
        return c.ok() ? std::move(c.value()) : ClassificationRules{};
    }();
    auto merged = mergeRank(rank, rules);
    if (!merged.ok()) {
        strobe::fuzz::checkError(merged.error());
        return 0;
    }
    if (!validateRankData(rank).ok()) std::abort();
    strobe::fuzz::walkRank(rank);
    return 0;
}
