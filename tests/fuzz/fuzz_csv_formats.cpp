// libFuzzer target: the CSV family of source formats (every registry format whose id says csv, and rocprof v1's
// results CSV). The first byte selects the loader (see fuzz_formats.h).
#include "tests/fuzz/fuzz_formats.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return strobe::fuzz::fuzzFormats(data, size, ".csv", [](std::string_view id) {
        return id.find("csv") != std::string_view::npos || id == "rocprof-v1";
    });
}
