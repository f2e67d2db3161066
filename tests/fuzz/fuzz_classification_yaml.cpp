// libFuzzer target: user-supplied classification rules (YAML with regular expressions).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/model/classification.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    auto r = strobe::core::ClassificationRules::fromYamlText(text, "fuzz.yaml");
    if (!r.ok()) {
        strobe::fuzz::checkError(r.error());
        return 0;
    }
    // Classify a few realistic names with whatever rules were accepted.
    static const char* names[] = {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                                  "Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN",
                                  "Memcpy HtoD (Pinned -> Device)", ""};
    for (const char* n : names) (void)r.value().classify(n, strobe::core::EventKind::Kernel);
    return 0;
}
