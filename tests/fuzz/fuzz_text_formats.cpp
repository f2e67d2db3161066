// libFuzzer target: the text-log family of source formats (issue 11). The first byte selects the parser:
// 0 nvidia-smi dmon, 1 nccl-tests stdout, 2 ncu --csv (text before the table, details or raw page),
// 3 rocm-smi concise table, 4 rocm-smi --json, 5 amd-smi metric --json. What loads is merged, validated and walked;
// an error must say something.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/formats/amd_smi.h"
#include "core/formats/nccl_tests_log.h"
#include "core/formats/ncu_csv.h"
#include "core/formats/nvidia_smi_dmon.h"
#include "core/model/validate.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace strobe::core;
    if (size == 0) return 0;
    using Parser = Result<std::unique_ptr<RankData>> (*)(std::string_view, const std::string&, const SourceLoadOptions&);
    static constexpr Parser kParsers[] = {&parseNvidiaSmiDmon, &parseNcclTestsLog,  &parseNcuCsv,
                                          &parseRocmSmiConcise, &parseRocmSmiJson, &parseAmdSmiMetricJson};
    const Parser parse = kParsers[data[0] % (sizeof(kParsers) / sizeof(kParsers[0]))];
    std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
    auto r = parse(text, "fuzz.txt", {});
    if (!r.ok()) {
        strobe::fuzz::checkError(r.error());
        return 0;
    }
    RankData& rank = *r.value();
    // Merged (the derived columns filled), what a loader produced must pass the structural checks.
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
    volatile double sink = 0;
    for (size_t i = 0; i < rank.samples.size(); ++i)
        sink = sink + rank.samples.value[i] + double(rank.strings.view(rank.samples.metric[i]).size());
    for (size_t i = 0; i < rank.kernelCounters.size(); ++i)
        sink = sink + rank.kernelCounters.value[i] + double(rank.gpu.ts[rank.kernelCounters.gpuRow[i]]);
    (void)sink;
    return 0;
}
