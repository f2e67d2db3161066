// libFuzzer target: Kineto JSON text through the real loader, merge and classification.
// The first byte picks a small chunk size so that event-boundary cutting across chunks is exercised.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/formats/kineto_json.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    strobe::core::KinetoLoadOptions opt;
    static constexpr size_t kChunks[] = {64, 257, 4096, 1u << 20};
    opt.chunkBytes = kChunks[data[0] & 3];
    opt.threads = (data[0] & 4) ? 2 : 1;
    std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
    auto r = strobe::core::loadKinetoText(text, "fuzz.json", opt);
    if (r.ok()) strobe::fuzz::exerciseRank(*r.value());
    else strobe::fuzz::checkError(r.error());
    return 0;
}
