// libFuzzer target: the JSON family of source formats other than Kineto (which has fuzz_kineto_json): every registry
// format whose id says json. The first byte selects the loader (see fuzz_formats.h).
#include "tests/fuzz/fuzz_formats.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return strobe::fuzz::fuzzFormats(data, size, ".json", [](std::string_view id) {
        return id.find("json") != std::string_view::npos && id != "kineto";
    });
}
