#include "core/formats/rccl_log.h"

#include <array>
#include <charconv>
#include <climits>
#include <map>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "core/formats/library_log.h"
#include "core/formats/telemetry_metrics.h"

namespace strobe::core {

namespace {

constexpr std::string_view kRcclInfo = " NCCL INFO ";
constexpr std::string_view kRcclOpCount = ": opCount ";

struct RcclDatatype {
    std::string_view name;
    int64_t bytes;
};
// ncclDataType_t in nccl.h / rccl.h, by value: ncclInt8 0 ... ncclBfloat16 9, ncclFloat8e4m3 10, ncclFloat8e5m2 11.
constexpr std::array<RcclDatatype, 12> kRcclDatatypes{{{"int8", 1},
                                                       {"uint8", 1},
                                                       {"int32", 4},
                                                       {"uint32", 4},
                                                       {"int64", 8},
                                                       {"uint64", 8},
                                                       {"float16", 2},
                                                       {"float32", 4},
                                                       {"float64", 8},
                                                       {"bfloat16", 2},
                                                       {"float8e4m3", 1},
                                                       {"float8e5m2", 1}}};
// ncclRedOp_t: ncclSum 0, ncclProd 1, ncclMax 2, ncclMin 3, ncclAvg 4.
constexpr std::array<std::string_view, 5> kRcclOps{{"sum", "prod", "max", "min", "avg"}};

template <class T>
std::optional<T> rcclNumber(std::string_view s, int base = 10) {
    T v{};
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
}

struct RcclPrefix {
    std::string_view host;
    int64_t pid = 0, tid = 0, device = -1;
};

// "host:pid:tid [dev]" (what precedes " NCCL INFO "; a timestamp before it is ignored).
std::optional<RcclPrefix> rcclPrefix(std::string_view before) {
    const auto words = telemetry::splitWords(before);
    if (words.size() < 2) return std::nullopt;
    std::string_view dev = words.back(), who = words[words.size() - 2];
    if (dev.size() < 3 || dev.front() != '[' || dev.back() != ']') return std::nullopt;
    RcclPrefix p;
    const auto d = rcclNumber<int64_t>(dev.substr(1, dev.size() - 2));
    const size_t c2 = who.rfind(':');
    const size_t c1 = c2 == std::string_view::npos || c2 == 0 ? std::string_view::npos : who.rfind(':', c2 - 1);
    if (!d || c1 == std::string_view::npos) return std::nullopt;
    const auto pid = rcclNumber<int64_t>(who.substr(c1 + 1, c2 - c1 - 1));
    const auto tid = rcclNumber<int64_t>(who.substr(c2 + 1));
    if (!pid || !tid) return std::nullopt;
    p.host = who.substr(0, c1);
    p.pid = *pid;
    p.tid = *tid;
    p.device = *d;
    return p;
}

struct RcclCall {
    std::string op, args;
    RcclPrefix where;
};

// A collective line's text after " NCCL INFO ", or an error saying what is missing.
Result<RcclCall> rcclCall(std::string_view body, const RcclPrefix& where) {
    const size_t colon = body.find(kRcclOpCount);
    const std::string_view op = librarylog::trim(body.substr(0, colon));
    if (op.empty() || op.find(' ') != std::string_view::npos)
        return Error("a collective line without its operation name");
    std::map<std::string, std::string_view, std::less<>> kv;
    const auto words = telemetry::splitWords(body.substr(colon + 2));
    for (size_t i = 0; i < words.size(); ++i) {
        const std::string_view w = words[i];
        if (w.size() > 2 && w.front() == '[' && w.back() == ']' && w.find('=') != std::string_view::npos) {
            const size_t eq = w.find('=');
            kv[std::string(w.substr(1, eq - 1))] = w.substr(eq + 1, w.size() - eq - 2);
            continue;
        }
        if (i + 1 >= words.size()) return Error(fmt::format("{}: '{}' has no value (a truncated line?)", op, w));
        kv[std::string(w)] = words[++i];
    }
    for (const char* key : {"opCount", "count", "datatype"})
        if (!kv.contains(key)) return Error(fmt::format("{}: no {} (a truncated line?)", op, key));
    const auto opCount = rcclNumber<uint64_t>(kv.find("opCount")->second, 16);
    const auto count = rcclNumber<int64_t>(kv.find("count")->second);
    const auto dtype = rcclNumber<int64_t>(kv.find("datatype")->second);
    if (!opCount || !count || !dtype || *count < 0)
        return Error(fmt::format("{}: opCount, count or datatype is not a number", op));
    librarylog::JsonArgs args;
    args.addRaw("opCount", std::to_string(*opCount));
    args.addRaw("count", std::to_string(*count));
    const bool known = *dtype >= 0 && *dtype < static_cast<int64_t>(kRcclDatatypes.size());
    args.addString(
        "datatype",
        known ? kRcclDatatypes[static_cast<size_t>(*dtype)].name : std::string_view(kv.find("datatype")->second));
    args.addRaw("datatype_id", std::to_string(*dtype));
    if (known) {
        const int64_t size = kRcclDatatypes[static_cast<size_t>(*dtype)].bytes;
        if (*count <= INT64_MAX / size) args.addRaw("bytes", std::to_string(*count * size));
    }
    if (auto it = kv.find("op"); it != kv.end()) {
        const auto redop = rcclNumber<int64_t>(it->second);
        if (redop && *redop >= 0 && *redop < static_cast<int64_t>(kRcclOps.size()))
            args.addString("reduce_op", kRcclOps[static_cast<size_t>(*redop)]);
        else
            args.add("reduce_op", it->second);
    }
    const bool p2p = op == "Send" || op == "Recv";
    if (auto it = kv.find("root"); it != kv.end()) args.add(p2p ? "peer" : "root", it->second);
    for (const char* key : {"nranks", "comm", "stream", "sendbuff", "recvbuff", "task", "globalrank"})
        if (auto it = kv.find(key); it != kv.end()) args.add(key, it->second);
    args.addRaw("device", std::to_string(where.device));
    return RcclCall{std::string(op), args.text(), where};
}

}  // namespace

int sniffRcclLog(const SniffInput& in) {
    if (in.isDirectory || in.head.empty()) return 0;
    int score = 0;
    telemetry::forEachLine(in.head, [&](std::string_view line, int64_t) {
        if (score > 0) return;
        const size_t info = line.find(kRcclInfo);
        if (info != std::string_view::npos && line.find(kRcclOpCount, info) != std::string_view::npos &&
            rcclPrefix(line.substr(0, info)))
            score = 80;
    });
    return score;
}

Result<std::unique_ptr<RankData>> parseRcclLog(std::string_view text, const std::string& path,
                                               const SourceLoadOptions& options) {
    librarylog::CallTable table(path, kRcclLogFormat.id, "rccl");
    int64_t other = 0;
    Platform platform = Platform::Unknown;
    std::string host;
    int64_t pid = -1;
    bool manyProcesses = false;
    telemetry::forEachLine(text, [&](std::string_view raw, int64_t lineNo) {
        const std::string_view line = librarylog::trim(raw);
        if (line.empty()) return;
        const size_t info = line.find(kRcclInfo);
        if (info == std::string_view::npos || line.find(kRcclOpCount, info) == std::string_view::npos) {
            if (info != std::string_view::npos && platform == Platform::Unknown) {
                if (line.find("RCCL version") != std::string_view::npos || line.find("+hip") != std::string_view::npos)
                    platform = Platform::Amd;
                else if (line.find("+cuda") != std::string_view::npos)
                    platform = Platform::Nvidia;
            }
            ++other;
            return;
        }
        const auto where = rcclPrefix(line.substr(0, info));
        if (!where) {
            table.badLine(lineNo, "a collective line without its 'host:pid:tid [device]' prefix");
            return;
        }
        auto call = rcclCall(line.substr(info + kRcclInfo.size()), *where);
        if (!call) {
            table.badLine(lineNo, call.error().message);
            return;
        }
        if (pid < 0) {
            pid = where->pid;
            host = std::string(where->host);
        } else if (where->pid != pid || where->host != host) {
            manyProcesses = true;
        }
        const uint32_t track =
            table.track(fmt::format("{}:{}:{}", where->host, where->pid, where->device),
                        fmt::format("GPU {} (pid {})", where->device, where->pid), where->pid, where->device);
        table.add(track, call->op, call->args);
    });
    const int64_t calls = table.calls();
    return table.finish(
        "no collective call ('host:pid:tid [dev] NCCL INFO AllReduce: opCount ...', "
        "NCCL_DEBUG=INFO with NCCL_DEBUG_SUBSYS=COLL) found",
        manyProcesses ? fmt::format("RCCL/NCCL calls ({} and other processes)", host)
                      : fmt::format("RCCL/NCCL calls on {} (pid {})", host, pid),
        platform, options,
        fmt::format("RCCL/NCCL debug logs hold no times: {} collective calls are laid end to end per "
                    "device, 1 us each, in file order",
                    calls),
        other, "collective calls (INIT and other subsystems)");
}

namespace {
Result<std::vector<std::unique_ptr<RankData>>> loadRcclLog(const SourceGroup& g, const SourceLoadOptions& o,
                                                           const CancelToken&) {
    return telemetry::loadTextFile(g, o, &parseRcclLog);
}
}  // namespace

const SourceFormat kRcclLogFormat = {"rccl-log",
                                     "RCCL/NCCL (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=COLL)",
                                     "RCCL/NCCL debug log of collective calls (one line per call)",
                                     true,
                                     &sniffRcclLog,
                                     &loadRcclLog};

}  // namespace strobe::core
