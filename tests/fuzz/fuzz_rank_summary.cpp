// libFuzzer target: per-rank summary files (issue 29: strobe-cli convert writes them, summary reads them) through
// decodeRankSummary, the reader `summary` uses. Every input is resealed first (its payload size and checksum made
// to match), so what gets fuzzed is the field structure behind them: lengths, counts and enum values. A file that
// decodes must encode back to the same bytes, and an error must name the file and a byte offset.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/engine/rank_summary.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string image(reinterpret_cast<const char*>(data), size);
    strobe::core::resealRankSummary(image);
    auto r = strobe::core::decodeRankSummary(image, "fuzz.strobe-summary");
    if (!r.ok()) {
        strobe::fuzz::checkError(r.error());
        if (r.error().where.file != "fuzz.strobe-summary" || r.error().where.byteOffset < 0) std::abort();
        return 0;
    }
    if (strobe::core::encodeRankSummary(r.value()) != image) std::abort();
    return 0;
}
