#include "core/formats/rocblas_log.h"

#include <charconv>
#include <climits>

#include <fmt/format.h>

#include "core/formats/library_log.h"
#include "core/formats/telemetry_metrics.h"

namespace strobe::core {

namespace {

constexpr std::string_view kRocblasLead = "- {rocblas_function:";
struct RocblasCall {
    std::string function;
    std::string args;  // JSON object text
    int64_t count = 1;
};

// One profile line, or nullopt when the line is not one.
std::optional<RocblasCall> rocblasLine(std::string_view line) {
    line = librarylog::trim(line);
    if (!line.starts_with(kRocblasLead) || line.back() != '}') return std::nullopt;
    std::string_view body = line.substr(3, line.size() - 4);  // inside "- {" ... "}"
    RocblasCall call;
    std::string args = "{";
    bool counted = false;
    while (!body.empty()) {
        const size_t comma = body.find(',');
        const std::string_view item = librarylog::trim(body.substr(0, comma));
        body = comma == std::string_view::npos ? std::string_view() : body.substr(comma + 1);
        if (item.empty()) continue;
        const size_t colon = item.find(':');
        if (colon == std::string_view::npos || colon == 0) return std::nullopt;
        const std::string_view key = librarylog::trim(item.substr(0, colon)), value = librarylog::trim(item.substr(colon + 1));
        if (key == "rocblas_function") {
            if (value.empty()) return std::nullopt;
            call.function = std::string(value);
            continue;
        }
        int64_t n = 0;
        const bool isCount = key == "call_count" || (key == "iters" && !counted);
        if (isCount) {
            const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
            if (ec != std::errc() || end != value.data() + value.size() || n < 0) return std::nullopt;
            call.count = n;
            counted = counted || key == "call_count";
        }
        args += fmt::format("{}{}:{}", args.size() > 1 ? "," : "", librarylog::jsonString(key), librarylog::jsonValue(value));
    }
    if (call.function.empty()) return std::nullopt;
    call.args = args + fmt::format("{}\"count\":{}}}", args.size() > 1 ? "," : "", call.count);
    return call;
}

}  // namespace

int sniffRocblasLog(const SniffInput& in) {
    if (in.isDirectory || in.head.empty()) return 0;
    int score = 0;
    telemetry::forEachLine(in.head, [&](std::string_view line, int64_t) {
        if (score == 0 && librarylog::trim(line).starts_with(kRocblasLead)) score = 80;
    });
    return score;
}

Result<std::unique_ptr<RankData>> parseRocblasLog(std::string_view text, const std::string& path,
                                                  const SourceLoadOptions& options) {
    librarylog::CallTable table(path, kRocblasLogFormat.id, "rocblas");
    int64_t other = 0, total = 0;
    const uint32_t track = table.track("", "rocBLAS calls");
    telemetry::forEachLine(text, [&](std::string_view line, int64_t) {
        if (librarylog::trim(line).empty()) return;
        const auto call = rocblasLine(line);
        if (!call) {
            ++other;
            return;
        }
        table.add(track, call->function, call->args);
        total = total > INT64_MAX - call->count ? INT64_MAX : total + call->count;
    });
    const int64_t calls = table.calls();
    return table.finish("no rocBLAS profile line ('- {rocblas_function: ..., call_count: N}') found",
                        "rocBLAS profile log", Platform::Amd, options,
                        fmt::format("rocBLAS profile logs hold no times: {} distinct calls ({} calls in all) are laid "
                                    "end to end, 1 us each, in file order; args.count is each one's call count",
                                    calls, total),
                        other, "profile lines (trace, bench, other output)");
}

namespace {
Result<std::vector<std::unique_ptr<RankData>>> loadRocblasLog(const SourceGroup& g, const SourceLoadOptions& o,
                                                              const CancelToken&) {
    return telemetry::loadTextFile(g, o, &parseRocblasLog);
}
}  // namespace

const SourceFormat kRocblasLogFormat = {"rocblas-log", "rocBLAS (ROCBLAS_LAYER=4)",
                                        "rocBLAS profile log (one line per distinct call with its call count)", false,
                                        &sniffRocblasLog, &loadRocblasLog};

}  // namespace strobe::core
