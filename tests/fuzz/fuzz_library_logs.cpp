// libFuzzer target: library-call logs (issue 23), what the rocblas-log, miopen-log, tensile-log and rccl-log tools
// capture: rocBLAS's profile log, MIOpen's driver commands, Tensile's kernel selections, RCCL/NCCL's collective
// calls. Every input goes through all four readers (the logs share workload.log with other output, so each reader
// must also survive the others' lines). What loads is merged, validated and walked; an error must say something.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/formats/miopen_log.h"
#include "core/formats/rccl_log.h"
#include "core/formats/rocblas_log.h"
#include "core/formats/tensile_log.h"
#include "core/model/validate.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace strobe::core;
    std::string_view text(reinterpret_cast<const char*>(data), size);
    static const ClassificationRules rules = [] {
        auto c = ClassificationRules::loadDefault();
        return c.ok() ? std::move(c.value()) : ClassificationRules{};
    }();
    for (auto parse : {&parseRocblasLog, &parseMiopenLog, &parseTensileLog, &parseRcclLog}) {
        auto r = parse(text, "fuzz.log", {});
        if (!r.ok()) {
            strobe::fuzz::checkError(r.error());
            continue;
        }
        RankData& rank = *r.value();
        auto merged = mergeRank(rank, rules);
        if (!merged.ok()) {
            strobe::fuzz::checkError(merged.error());
            continue;
        }
        if (!validateRankData(rank).ok()) std::abort();
        strobe::fuzz::walkRank(rank);
    }
    return 0;
}
