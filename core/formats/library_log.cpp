#include "core/formats/library_log.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "core/formats/telemetry_metrics.h"

namespace strobe::core::librarylog {

namespace {
// More bad lines than this are summed up in one diagnostic, so that a garbled file does not bury the rest.
constexpr int64_t kBadLinesNamed = 20;
}  // namespace

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

std::string jsonString(std::string_view v) {
    std::string out = "\"";
    for (char c : v) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) < 0x20)
            out += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        else
            out += c;
    }
    return out + "\"";
}

std::string jsonValue(std::string_view v) {
    double d = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
    // JSON numbers: no leading '+', no leading zeros ("007"), no "inf"/"nan" (from_chars accepts some of them).
    const bool plain = !v.empty() && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) &&
        !(v.size() > 1 && v[0] == '0' && v[1] >= '0' && v[1] <= '9') &&
        !(v.size() > 2 && v[0] == '-' && v[1] == '0' && v[2] >= '0' && v[2] <= '9') &&
        v.find_first_of("xXpP") == std::string_view::npos && v.back() != '.';
    if (plain && ec == std::errc() && end == v.data() + v.size() && std::isfinite(d)) return std::string(v);
    return jsonString(v);
}

void JsonArgs::addRaw(std::string_view key, const std::string& json) {
    if (!m_text.empty()) m_text += ',';
    m_text += jsonString(key);
    m_text += ':';
    m_text += json;
}

CallTable::CallTable(const std::string& path, std::string_view formatId, std::string_view category)
    : m_rank(telemetry::newRank(path, formatId)), m_path(path) {
    m_cat = m_rank->strings.intern(category);
}

uint32_t CallTable::track(const std::string& key, std::string_view threadName, int64_t pid, int64_t tid) {
    auto it = m_tracks.find(key);
    if (it != m_tracks.end()) return it->second;
    const auto index = static_cast<uint32_t>(m_rank->tracks.size());
    Track t;
    t.pid = pid;
    t.tid = tid;
    m_rank->tracks.push_back(t);
    m_rank->threads.push_back(ThreadMeta{index, m_rank->strings.intern(threadName), static_cast<int32_t>(index)});
    m_tracks.emplace(key, index);
    return index;
}

void CallTable::add(uint32_t track, std::string_view name, const std::string& argsJson) {
    auto& s = m_rank->slices;
    int64_t& next = m_next[track];
    s.ts.push_back(next * kCallSliceNs);
    s.dur.push_back(kCallSliceNs);
    s.name.push_back(m_rank->strings.intern(name));
    s.cat.push_back(m_cat);
    s.kind.push_back(EventKind::Unknown);
    s.phase.push_back('X');
    s.track.push_back(track);
    s.externalId.push_back(kNone);
    s.correlation.push_back(kNone);
    s.sequence.push_back(kNone);
    s.args.push_back(m_rank->strings.intern(argsJson));
    ++next;
    ++m_calls;
}

void CallTable::badLine(int64_t lineNo, const std::string& why) {
    ++m_badLines;
    if (m_badLines > kBadLinesNamed) return;
    Location at{m_path};
    at.line = lineNo;
    m_rank->diagnostics.push_back({Severity::Warning, at, why});
}

Result<std::unique_ptr<RankData>> CallTable::finish(std::string_view noCalls, std::string_view processName,
                                                    Platform platform, const SourceLoadOptions& options,
                                                    const std::string& noTimes, int64_t other, std::string_view what) {
    if (m_calls == 0) return Error(Location{m_path}, std::string(noCalls));
    if (m_badLines > kBadLinesNamed)
        m_rank->diagnostics.push_back({Severity::Warning, Location{m_path},
                                       fmt::format("{} more lines could not be read (the first {} are named above)",
                                                   m_badLines - kBadLinesNamed, kBadLinesNamed)});
    ProcessMeta proc;
    proc.pid = m_rank->tracks.empty() ? 0 : m_rank->tracks[0].pid;
    proc.name = m_rank->strings.intern(processName);
    m_rank->processes.push_back(proc);
    m_rank->info.platform = platform;
    telemetry::setClock(m_rank->info, ClockDomain::Relative, options, {});
    m_rank->diagnostics.push_back({Severity::Info, Location{m_path}, noTimes});
    if (other > 0)
        m_rank->diagnostics.push_back(
            {Severity::Info, Location{m_path}, fmt::format("{} lines that are not {} were skipped", other, what)});
    m_rank->stats.events = static_cast<uint64_t>(m_rank->slices.size());
    return std::move(m_rank);
}

}  // namespace strobe::core::librarylog
