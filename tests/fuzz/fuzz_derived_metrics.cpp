// libFuzzer target: user-supplied derived-metric tables (YAML with formulas, core/analysis/derived_metrics.h),
// parsed and then evaluated on a small rank with counters (division by zero, missing names, deep nesting).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/analysis/derived_metrics.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

strobe::core::RankData makeRank() {
    using namespace strobe::core;
    RankData r;
    for (int k = 0; k < 3; ++k) {
        GpuRecord g;
        g.name = r.strings.intern(k == 2 ? "gemm" : "vcopy");
        g.ts = 1000 * k;
        g.dur = k;  // one zero duration
        g.grid[0] = 256;
        g.block[0] = 64;
        r.gpu.appendRaw(g);
        for (const char* c : {"SQ_WAVES", "GRBM_GUI_ACTIVE", "TCC_HIT_sum", "TCC_MISS_sum"}) {
            r.kernelCounters.gpuRow.push_back(uint32_t(k));
            r.kernelCounters.name.push_back(r.strings.intern(c));
            r.kernelCounters.value.push_back(k == 1 ? 0.0 : 1000.0 * (k + 1));
        }
    }
    return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const strobe::core::RankData rank = makeRank();
    std::string text(reinterpret_cast<const char*>(data), size);
    auto set = strobe::core::DerivedMetricSet::fromYamlText(text, "fuzz.yaml");
    if (!set.ok()) {
        strobe::fuzz::checkError(set.error());
        return 0;
    }
    auto values = strobe::core::computeDerivedMetrics(rank, set.value(), nullptr);
    for (const auto& d : values.diagnostics) strobe::fuzz::checkError(strobe::core::Error(d.where, d.message));
    for (const auto& m : set.value().metrics())
        (void)strobe::core::kernelMetricValues(rank, set.value(), nullptr, m.name);
    return 0;
}
