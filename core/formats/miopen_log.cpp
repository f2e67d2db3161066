#include "core/formats/miopen_log.h"

#include <array>
#include <charconv>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/formats/library_log.h"
#include "core/formats/telemetry_metrics.h"

namespace strobe::core {

namespace {

// The driver's short flags and their long names, as MIOpenDriver declares them (driver/conv_driver.hpp,
// driver/bn_driver.hpp: AddInputFlag(long, short, ...)). Flags outside these tables keep their spelling.
constexpr std::array<std::pair<std::string_view, std::string_view>, 20> kMiopenConvFlags{{
    {"-n", "batchsize"},     {"-c", "in_channels"}, {"-H", "in_h"},       {"-W", "in_w"},   {"-k", "out_channels"},
    {"-y", "fil_h"},         {"-x", "fil_w"},       {"-p", "pad_h"},      {"-q", "pad_w"},  {"-u", "conv_stride_h"},
    {"-v", "conv_stride_w"}, {"-l", "dilation_h"},  {"-j", "dilation_w"}, {"-m", "mode"},   {"-g", "group_count"},
    {"-F", "forw"},          {"-t", "time"},        {"-S", "solution"},   {"-s", "search"}, {"-b", "bias"},
}};
constexpr std::array<std::pair<std::string_view, std::string_view>, 12> kMiopenBnormFlags{{
    {"-n", "batchsize"},
    {"-c", "in_channels"},
    {"-H", "in_h"},
    {"-W", "in_w"},
    {"-D", "in_d"},
    {"-m", "mode"},
    {"-F", "forw"},
    {"-b", "back"},
    {"-s", "save"},
    {"-r", "run"},
    {"-t", "time"},
    {"-i", "iter"},
}};

enum class MiopenFamily { Conv, Bnorm, Fusion, Other };

// The sub-command without its data-type suffix decides the family: conv, convfp16, convbfp16, convint8 ...
MiopenFamily miopenFamily(std::string_view sub) {
    if (sub.starts_with("conv")) return MiopenFamily::Conv;
    if (sub.starts_with("bnorm")) return MiopenFamily::Bnorm;
    if (sub.starts_with("CBAInfer") || sub.starts_with("CAInfer")) return MiopenFamily::Fusion;
    return MiopenFamily::Other;
}

std::string_view miopenLongName(MiopenFamily family, std::string_view flag) {
    if (flag.starts_with("--")) return flag.substr(2);
    if (family == MiopenFamily::Conv)
        for (const auto& [s, l] : kMiopenConvFlags)
            if (s == flag) return l;
    if (family == MiopenFamily::Bnorm)
        for (const auto& [s, l] : kMiopenBnormFlags)
            if (s == flag) return l;
    return flag;
}

bool miopenIsFlag(std::string_view tok) {
    return tok.size() >= 2 && tok[0] == '-' && !(tok[1] >= '0' && tok[1] <= '9') && tok[1] != '.';
}

bool miopenDigits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

// A line of MIOpen's logger: what precedes "MIOpen" (host and thread id with MIOPEN_ENABLE_LOGGING_MPMT) and what
// follows its prefix's ": ".
struct MiopenLine {
    std::string_view host, tid, rest;
};

std::optional<MiopenLine> miopenSplit(std::string_view line) {
    line = librarylog::trim(line);
    size_t p = line.find("MIOpen");
    while (p != std::string_view::npos && p > 0 && line[p - 1] != ' ') p = line.find("MIOpen", p + 1);
    if (p == std::string_view::npos) return std::nullopt;
    std::string_view after = line.substr(p + 6);
    if (after.starts_with("(")) {
        const size_t close = after.find(')');
        if (close == std::string_view::npos || close > 16) return std::nullopt;
        after.remove_prefix(close + 1);
    }
    const size_t colon = after.find(": ");
    const size_t bare = after.size() >= 1 && after.back() == ':' ? after.size() - 1 : std::string_view::npos;
    const size_t end = colon != std::string_view::npos ? colon : bare;
    if (end == std::string_view::npos) return std::nullopt;
    // Between the name and ": " only the elapsed time and the date may stand.
    for (char c : after.substr(0, end))
        if (std::string_view(" 0123456789.()-:").find(c) == std::string_view::npos) return std::nullopt;
    MiopenLine out;
    out.rest = end + 2 <= after.size() ? after.substr(end + 2) : std::string_view();
    const auto before = telemetry::splitWords(line.substr(0, p));
    if (before.size() >= 2 && miopenDigits(before.back())) {
        out.tid = before.back();
        out.host = before[before.size() - 2];
    }
    return out;
}

struct MiopenCommand {
    std::string name, args;
};

// A "Command [Tag] ./bin/MIOpenDriver sub flags..." rest, or an error saying what is wrong with it.
Result<MiopenCommand> miopenCommand(std::string_view rest) {
    const size_t close = rest.find(']');
    if (close == std::string_view::npos)
        return Error("an MIOpen command line without the ']' closing its logging function");
    const std::string_view tag = rest.substr(9, close - 9);
    const std::string_view command = librarylog::trim(rest.substr(close + 1));
    const auto tokens = telemetry::splitWords(command);
    if (tokens.empty() || !(tokens[0].ends_with("MIOpenDriver") || tokens[0].ends_with("MIOpenDriver.exe")))
        return Error(fmt::format("an MIOpen command line [{}] without the MIOpenDriver command", tag));
    if (tokens.size() < 2 || miopenIsFlag(tokens[1]))
        return Error(fmt::format("an MIOpen command line [{}] without the driver's sub-command", tag));
    const std::string_view sub = tokens[1];
    const MiopenFamily family = miopenFamily(sub);
    librarylog::JsonArgs args;
    std::string_view forw, back;
    for (size_t i = 2; i < tokens.size(); ++i) {
        const std::string_view flag = tokens[i];
        std::string_view value;
        if (i + 1 < tokens.size() && !miopenIsFlag(tokens[i + 1])) value = tokens[++i];
        const std::string_view name = miopenLongName(family, flag);
        if (name == "forw") forw = value;
        if (name == "back") back = value;
        if (value.empty())
            args.addRaw(name, "true");
        else
            args.add(name, value);
    }
    args.addString("logged_by", tag);
    args.addString("command", command);
    MiopenCommand out;
    out.name = std::string(sub);
    std::string_view direction;
    if (family == MiopenFamily::Bnorm) {
        direction = back == "1" ? "bwd" : forw == "1" ? "fwd train" : forw == "2" ? "fwd infer" : "";
    } else if (family != MiopenFamily::Fusion) {  // a fusion's -F is its fusion mode, not a direction
        direction = forw == "1" ? "fwd" : forw == "2" ? "bwd" : forw == "4" ? "wrw" : "";
    }
    if (!direction.empty()) out.name += fmt::format(" {}", direction);
    if (tag.starts_with("LogCmdFind")) out.name += " (find)";
    out.args = args.text();
    return out;
}

}  // namespace

int sniffMiopenLog(const SniffInput& in) {
    if (in.isDirectory || in.head.empty()) return 0;
    int score = 0;
    telemetry::forEachLine(in.head, [&](std::string_view line, int64_t) {
        if (score > 0 || line.find("MIOpenDriver") == std::string_view::npos) return;
        const auto split = miopenSplit(line);
        if (split && split->rest.starts_with("Command [") && miopenCommand(split->rest).ok()) score = 80;
    });
    return score;
}

Result<std::unique_ptr<RankData>> parseMiopenLog(std::string_view text, const std::string& path,
                                                 const SourceLoadOptions& options) {
    librarylog::CallTable table(path, kMiopenLogFormat.id, "miopen");
    int64_t other = 0, apiCalls = 0, messages = 0;
    std::string host;
    telemetry::forEachLine(text, [&](std::string_view line, int64_t lineNo) {
        if (librarylog::trim(line).empty()) return;
        const auto split = miopenSplit(line);
        if (!split) {
            ++other;
            return;
        }
        if (!split->rest.starts_with("Command [")) {
            const std::string_view rest = librarylog::trim(split->rest);
            if (rest.ends_with("{") && rest.find("miopen") != std::string_view::npos)
                ++apiCalls;
            else
                ++messages;
            return;
        }
        auto command = miopenCommand(split->rest);
        if (!command) {
            table.badLine(lineNo, command.error().message);
            return;
        }
        if (host.empty()) host = std::string(split->host);
        int64_t tid = 0;
        if (!split->tid.empty()) (void)std::from_chars(split->tid.data(), split->tid.data() + split->tid.size(), tid);
        const uint32_t track = table.track(
            std::string(split->tid),
            split->tid.empty() ? std::string("MIOpen calls") : fmt::format("MIOpen calls (thread {})", split->tid), 0,
            tid);
        table.add(track, command->name, command->args);
    });
    const int64_t calls = table.calls();
    return table.finish(
        "no MIOpen driver command ('MIOpen(HIP): Command [LogCmd...] ./bin/MIOpenDriver "
        "...', MIOPEN_ENABLE_LOGGING_CMD=1) found",
        host.empty() ? std::string("MIOpen driver commands") : fmt::format("MIOpen driver commands on {}", host),
        Platform::Amd, options,
        fmt::format("MIOpen's command log holds no times: {} driver commands are laid end to end, "
                    "1 us each, in file order; {} API call records (MIOPEN_ENABLE_LOGGING) and {} "
                    "other MIOpen messages were counted, not made calls",
                    calls, apiCalls, messages),
        other, "MIOpen's (the workload's own output)");
}

namespace {
Result<std::vector<std::unique_ptr<RankData>>> loadMiopenLog(const SourceGroup& g, const SourceLoadOptions& o,
                                                             const CancelToken&) {
    return telemetry::loadTextFile(g, o, &parseMiopenLog);
}
}  // namespace

const SourceFormat kMiopenLogFormat = {"miopen-log",
                                       "MIOpen (MIOPEN_ENABLE_LOGGING_CMD=1)",
                                       "MIOpen driver-command log (one MIOpenDriver command per call), alone or in a "
                                       "workload's output",
                                       true,
                                       &sniffMiopenLog,
                                       &loadMiopenLog};

}  // namespace strobe::core
