#pragma once
// Shared by the per-family format fuzz targets (fuzz_csv_formats, fuzz_json_formats): the input's first byte picks
// one of the registry's formats of the family (so formats added to the registry later join automatically; 0xFF:
// the one detection picks, which is how the seeds are written), the rest is written to a file and loaded through
// the registry's loader, then every rank is merged and walked.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/formats/source_detect.h"
#include "core/formats/source_format.h"
#include "tests/fuzz/fuzz_common.h"

namespace strobe::fuzz {

template <class InFamily>
int fuzzFormats(const uint8_t* data, size_t size, const char* suffix, InFamily inFamily) {
    if (size == 0) return 0;
    static std::vector<const core::SourceFormat*> family = [&] {
        std::vector<const core::SourceFormat*> v;
        for (const core::SourceFormat* f : core::sourceFormats())
            if (inFamily(std::string_view(f->id))) v.push_back(f);
        return v;
    }();
    if (family.empty()) return 0;
    static const std::string path = [&] {
        const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        return std::string(dir) + "/strobe_fuzz_" + std::to_string(getpid()) + suffix;
    }();
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
    }
    const core::SourceFormat* format = family[data[0] % family.size()];
    if (data[0] == 0xFF) {
        auto sniffed = core::readSniffInput(path);
        const core::SourceFormat* best = sniffed ? core::bestFormat(sniffed->input) : nullptr;
        if (best != nullptr && inFamily(std::string_view(best->id))) format = best;
    }
    core::SourceGroup group{format->id, path, {path}, {}};
    auto ranks = format->load(group, {}, {});
    if (!ranks) {
        checkError(ranks.error());
        return 0;
    }
    for (auto& r : ranks.value()) exerciseRank(*r);
    return 0;
}

}  // namespace strobe::fuzz
