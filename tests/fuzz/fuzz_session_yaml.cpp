// libFuzzer target: session files (YAML written by the workbench, edited by users, shared by colleagues).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/engine/session.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    auto r = strobe::core::sessionFromYaml(text, "fuzz-session.yaml");
    if (!r.ok()) {
        strobe::fuzz::checkError(r.error());
        return 0;
    }
    // What was accepted must write back and read again.
    std::string again = strobe::core::sessionToYaml(r.value());
    auto r2 = strobe::core::sessionFromYaml(again, "fuzz-session-roundtrip.yaml");
    if (!r2.ok()) std::abort();
    return 0;
}
