#include "core/formats/rocblas_log.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "core/formats/telemetry_metrics.h"

namespace strobe::core {

namespace {

constexpr std::string_view kRocblasLead = "- {rocblas_function:";
constexpr TimeNs kRocblasSliceNs = 1000;

std::string_view rocblasTrim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

std::string rocblasJsonValue(std::string_view v) {
    double d = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
    if (!v.empty() && ec == std::errc() && end == v.data() + v.size() && std::isfinite(d)) return std::string(v);
    std::string out = "\"";
    for (char c : v) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        else out += c;
    }
    return out + "\"";
}

struct RocblasCall {
    std::string function;
    std::string args;  // JSON object text
    int64_t count = 1;
};

// One profile line, or nullopt when the line is not one.
std::optional<RocblasCall> rocblasLine(std::string_view line) {
    line = rocblasTrim(line);
    if (!line.starts_with(kRocblasLead) || line.back() != '}') return std::nullopt;
    std::string_view body = line.substr(3, line.size() - 4);  // inside "- {" ... "}"
    RocblasCall call;
    std::string args = "{";
    bool counted = false;
    while (!body.empty()) {
        const size_t comma = body.find(',');
        const std::string_view item = rocblasTrim(body.substr(0, comma));
        body = comma == std::string_view::npos ? std::string_view() : body.substr(comma + 1);
        if (item.empty()) continue;
        const size_t colon = item.find(':');
        if (colon == std::string_view::npos || colon == 0) return std::nullopt;
        const std::string_view key = rocblasTrim(item.substr(0, colon)), value = rocblasTrim(item.substr(colon + 1));
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
        args += fmt::format("{}{}:{}", args.size() > 1 ? "," : "", rocblasJsonValue(key), rocblasJsonValue(value));
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
        if (score == 0 && rocblasTrim(line).starts_with(kRocblasLead)) score = 80;
    });
    return score;
}

Result<std::unique_ptr<RankData>> parseRocblasLog(std::string_view text, const std::string& path,
                                                  const SourceLoadOptions& options) {
    auto rank = telemetry::newRank(path, kRocblasLogFormat.id);
    int64_t calls = 0, other = 0, total = 0;
    const StrId cat = rank->strings.intern("rocblas");
    auto& s = rank->slices;
    telemetry::forEachLine(text, [&](std::string_view line, int64_t) {
        if (rocblasTrim(line).empty()) return;
        const auto call = rocblasLine(line);
        if (!call) {
            ++other;
            return;
        }
        s.ts.push_back(calls * kRocblasSliceNs);
        s.dur.push_back(kRocblasSliceNs);
        s.name.push_back(rank->strings.intern(call->function));
        s.cat.push_back(cat);
        s.kind.push_back(EventKind::Unknown);
        s.phase.push_back('X');
        s.track.push_back(0);
        s.externalId.push_back(kNone);
        s.correlation.push_back(kNone);
        s.sequence.push_back(kNone);
        s.args.push_back(rank->strings.intern(call->args));
        ++calls;
        total = total > INT64_MAX - call->count ? INT64_MAX : total + call->count;
    });
    if (calls == 0)
        return Error(Location{path}, "no rocBLAS profile line ('- {rocblas_function: ..., call_count: N}') found");
    Track t;
    t.pid = 0;
    t.tid = 0;
    rank->tracks.push_back(t);
    rank->threads.push_back(ThreadMeta{0, rank->strings.intern("rocBLAS calls"), 0});
    ProcessMeta proc;
    proc.name = rank->strings.intern("rocBLAS profile log");
    rank->processes.push_back(proc);
    rank->info.platform = Platform::Amd;
    telemetry::setClock(rank->info, ClockDomain::Relative, options, {});
    rank->diagnostics.push_back({Severity::Info, Location{path},
                                 fmt::format("rocBLAS profile logs hold no times: {} distinct calls ({} calls in all) "
                                             "are laid end to end, 1 us each, in file order; args.count is each one's "
                                             "call count", calls, total)});
    if (other > 0)
        rank->diagnostics.push_back({Severity::Info, Location{path},
                                     fmt::format("{} lines that are not profile lines (trace, bench, other output) were "
                                                 "skipped", other)});
    rank->stats.events = static_cast<uint64_t>(rank->slices.size());
    return rank;
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
