// libFuzzer target: the YAML files users and collectors write — session files (written by the workbench, edited by
// users, shared by colleagues) and the clocks of a run manifest (written by strobe-cli collect, read when a run
// directory is opened to anchor its sources' clocks).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/engine/session.h"
#include "core/formats/source_format.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

// readManifestClocks reads a file: the input goes to one file per fuzzing process.
void manifestClocks(const std::string& text) {
    struct TempFile {
        std::string path = "/tmp/strobe-fuzz-manifest-" + std::to_string(getpid()) + ".yaml";
        ~TempFile() { std::remove(path.c_str()); }
    };
    static const TempFile file;
    const std::string& path = file.path;
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return;
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    auto r = strobe::core::readManifestClocks(path);
    if (!r.ok()) {
        strobe::fuzz::checkError(r.error());
        if (r.error().where.file != path) std::abort();  // the error names the manifest
        return;
    }
    if (r.value() && r.value()->path != path) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    manifestClocks(text);
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
