// libFuzzer target: load-cache files through LoadCache::readFile, the reader the run loader uses on reopen.
// Every input is resealed first (LoadCache::reseal recomputes the checksums its header and directory point at),
// so what gets fuzzed is the structure behind the checksums: offsets, counts, element sizes, names, the string
// offsets, metadata, column lengths and row references. A file that loads is walked and every analysis runs on
// it, so a check the reader lacks shows up as an out-of-bounds read here.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/analysis/registry.h"
#include "core/engine/load_cache.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

std::string scratchFile() {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir != nullptr && *dir != 0 ? dir : "/tmp") + "/strobe-fuzz-cache-" +
           std::to_string(::getpid()) + ".bin";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::string path = scratchFile();
    std::string image(reinterpret_cast<const char*>(data), size);
    strobe::core::LoadCache::reseal(image);
    {
        std::FILE* f = std::fopen(path.c_str(), "wb");
        if (f == nullptr) std::abort();
        if (!image.empty() && std::fwrite(image.data(), 1, image.size(), f) != image.size()) std::abort();
        std::fclose(f);
    }
    strobe::core::LoadCache cache(std::filesystem::path(path).parent_path());
    strobe::core::CacheLookup lookup{};
    auto r = cache.readFile(path, nullptr, 0, &lookup);
    if (!r.ok()) {
        strobe::fuzz::checkError(r.error());
        if (lookup == strobe::core::CacheLookup::Hit) std::abort();  // an error must say why
        return 0;
    }
    if (lookup != strobe::core::CacheLookup::Hit) std::abort();
    strobe::fuzz::walkRank(*r.value());
    auto ds = std::make_shared<strobe::core::Dataset>();
    ds->ranks.push_back(r.value());
    strobe::fuzz::runEveryAnalysis(ds);
    return 0;
}
