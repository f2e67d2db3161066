#include "core/formats/tensile_log.h"

#include <charconv>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/formats/library_log.h"
#include "core/formats/telemetry_metrics.h"

namespace strobe::core {

namespace {

constexpr std::string_view kTensileRunning = "Running kernel:";
constexpr std::string_view kTensileLaunch = "Kernel ";

// A Tensile kernel name: one word, in Tensile's naming (Cijk_..., Dijk_..., or with a macro tile "_MT").
bool tensileKernelName(std::string_view name) {
    if (name.empty() || name.find_first_of(" \t") != std::string_view::npos) return false;
    return name.starts_with("Cij") || name.starts_with("Dij") || name.find("_MT") != std::string_view::npos;
}

struct TensileCall {
    std::string kernel;
    std::vector<std::pair<std::string, std::string>> sizes;  // size_0 ... as printed
    bool launched = false;                                   // a "Kernel <name>" block was attached
};

// "[first..last] name: 00 04 00 00 (1024)": the argument's name and value (the value in parentheses, else the
// bytes read little-endian), or nullopt when the line is not an argument line.
std::optional<std::pair<std::string_view, std::string>> tensileArgument(std::string_view line) {
    line = librarylog::trim(line);
    if (!line.starts_with("[")) return std::nullopt;
    const size_t close = line.find("] ");
    const size_t colon = line.find(':');
    if (close == std::string_view::npos || colon == std::string_view::npos || colon < close) return std::nullopt;
    const std::string_view name = librarylog::trim(line.substr(close + 2, colon - close - 2));
    std::string_view rest = librarylog::trim(line.substr(colon + 1));
    if (name.empty()) return std::nullopt;
    if (rest.ends_with(")")) {
        const size_t open = rest.rfind('(');
        if (open != std::string_view::npos)
            return std::make_pair(name, std::string(rest.substr(open + 1, rest.size() - open - 2)));
    }
    uint64_t value = 0;
    int shift = 0;
    while (!rest.empty()) {
        const size_t sp = rest.find(' ');
        const std::string_view byte = rest.substr(0, sp);
        rest = sp == std::string_view::npos ? std::string_view() : librarylog::trim(rest.substr(sp));
        unsigned b = 0;
        const auto [end, ec] = std::from_chars(byte.data(), byte.data() + byte.size(), b, 16);
        if (ec != std::errc() || end != byte.data() + byte.size() || b > 0xff || shift >= 64) return std::nullopt;
        value |= static_cast<uint64_t>(b) << shift;
        shift += 8;
    }
    if (shift == 0) return std::nullopt;
    return std::make_pair(name, std::to_string(value));
}

}  // namespace

int sniffTensileLog(const SniffInput& in) {
    if (in.isDirectory || in.head.empty()) return 0;
    int score = 0;
    telemetry::forEachLine(in.head, [&](std::string_view line, int64_t) {
        line = librarylog::trim(line);
        if (score == 0 && line.starts_with(kTensileRunning) &&
            tensileKernelName(librarylog::trim(line.substr(kTensileRunning.size()))))
            score = 80;
    });
    return score;
}

Result<std::unique_ptr<RankData>> parseTensileLog(std::string_view text, const std::string& path,
                                                  const SourceLoadOptions& options) {
    librarylog::CallTable table(path, kTensileLogFormat.id, "tensile");
    std::vector<TensileCall> calls;
    TensileCall* block = nullptr;  // the call whose "Kernel <name>" block is being read
    int64_t other = 0;
    telemetry::forEachLine(text, [&](std::string_view raw, int64_t lineNo) {
        const std::string_view line = librarylog::trim(raw);
        if (line.empty()) return;
        if (line.starts_with(kTensileRunning)) {
            const std::string_view name = librarylog::trim(line.substr(kTensileRunning.size()));
            block = nullptr;
            if (!tensileKernelName(name)) {
                table.badLine(
                    lineNo,
                    fmt::format("a Tensile 'Running kernel:' line without a kernel name ('{}')", name.substr(0, 80)));
                return;
            }
            calls.push_back({std::string(name), {}, false});
            return;
        }
        if (line.starts_with(kTensileLaunch) &&
            tensileKernelName(librarylog::trim(line.substr(kTensileLaunch.size())))) {
            const std::string_view name = librarylog::trim(line.substr(kTensileLaunch.size()));
            if (calls.empty() || calls.back().launched || calls.back().kernel != name)
                calls.push_back({std::string(name), {}, false});
            calls.back().launched = true;
            block = &calls.back();
            return;
        }
        if (block != nullptr) {
            if (auto arg = tensileArgument(line)) {
                if (arg->first.starts_with("size")) block->sizes.emplace_back(std::string(arg->first), arg->second);
                return;
            }
            if (line.starts_with("l")) return;  // the launch sizes line of the block
            block = nullptr;
        }
        ++other;
    });
    const uint32_t track = table.track("", "Tensile kernels");
    int64_t withSizes = 0;
    for (const TensileCall& c : calls) {
        librarylog::JsonArgs args;
        args.addString("kernel", c.kernel);
        for (const auto& [k, v] : c.sizes) args.add(k, v);
        withSizes += c.sizes.empty() ? 0 : 1;
        table.add(track, c.kernel, args.text());
    }
    const int64_t n = table.calls();
    return table.finish("no Tensile kernel selection ('Running kernel: Cijk_...', TENSILE_DB=0x8000) found",
                        "Tensile kernel selections", Platform::Amd, options,
                        fmt::format("Tensile's kernel log holds no times: {} kernel selections are laid end to end, 1 "
                                    "us each, in file order; {} carry their problem sizes (TENSILE_DB bit 0x40)",
                                    n, withSizes),
                        other, "Tensile's kernel lines (other debug output, the workload's own)");
}

namespace {
Result<std::vector<std::unique_ptr<RankData>>> loadTensileLog(const SourceGroup& g, const SourceLoadOptions& o,
                                                              const CancelToken&) {
    return telemetry::loadTextFile(g, o, &parseTensileLog);
}
}  // namespace

const SourceFormat kTensileLogFormat = {"tensile-log",
                                        "Tensile (TENSILE_DB=0x8000)",
                                        "Tensile kernel-selection log (one 'Running kernel:' line per solved "
                                        "problem), alone or in a workload's output",
                                        true,
                                        &sniffTensileLog,
                                        &loadTensileLog};

}  // namespace strobe::core
