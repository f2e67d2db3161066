#include "core/formats/kineto_event_parser.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "core/formats/kineto_text.h"

namespace strobe::core::kineto {

namespace od = simdjson::ondemand;

namespace {

constexpr size_t kMinCacheSlots = 1024;   // powers of two
constexpr size_t kMaxCacheSlots = 65536;

// `raw` points just past a key's opening quote; true when the key is exactly `lit`.
template <size_t N>
inline bool keyIs(const char* raw, const char (&lit)[N]) {
    return std::memcmp(raw, lit, N - 1) == 0 && raw[N - 1] == '"';
}

// Length of a key's escaped content: up to the closing quote.
inline size_t keyLength(const char* raw) {
    size_t i = 0;
    while (raw[i] != '"') i += raw[i] == '\\' ? 2 : 1;
    return i;
}

// raw_json_token() keeps the whitespace that follows a value when the next structural character is the
// closing brace: trim it.
inline std::string_view token(od::value& v) {
    std::string_view t = v.raw_json_token();
    while (!t.empty() && isJsonSpace(t.back())) t.remove_suffix(1);
    return t;
}

// key == literal, with a constant-length compare the compiler inlines.
template <size_t N>
inline bool eq(std::string_view key, const char (&lit)[N]) {
    return key.size() == N - 1 && __builtin_memcmp(key.data(), lit, N - 1) == 0;
}

inline bool hasBackslash(std::string_view s) { return !s.empty() && std::memchr(s.data(), '\\', s.size()) != nullptr; }

inline bool isGpuKind(EventKind k) { return k == EventKind::Kernel || k == EventKind::Memcpy || k == EventKind::Memset; }

// "[512, 1, 1]" → three integers; `result` is only written when all three are read.
bool parseDim3(std::string_view raw, int32_t (&result)[3]) {
    int32_t out[3] = {0, 0, 0};
    size_t i = 0;
    auto skipWs = [&] {
        while (i < raw.size() && isJsonSpace(raw[i])) ++i;
    };
    skipWs();
    if (i >= raw.size() || raw[i] != '[') return false;
    ++i;
    for (int k = 0; k < 3; ++k) {
        skipWs();
        size_t start = i;
        while (i < raw.size() && raw[i] != ',' && raw[i] != ']' && !isJsonSpace(raw[i])) ++i;
        int64_t v = 0;
        if (!parseInteger(raw.substr(start, i - start), v) || v < INT32_MIN || v > INT32_MAX) return false;
        out[k] = static_cast<int32_t>(v);
        skipWs();
        if (i >= raw.size()) return false;
        if (k < 2) {
            if (raw[i] != ',') return false;
            ++i;
        }
    }
    if (raw[i] != ']') return false;
    std::memcpy(result, out, sizeof out);
    return true;
}

inline bool tokenIsString(std::string_view tok) { return !tok.empty() && tok.front() == '"'; }

// The whole text of an array or object value: raw_json_token() gives only its opening bracket.
simdjson::error_code containerText(od::value& v, bool isArray, std::string_view& raw) {
    if (isArray) {
        od::array a;
        if (auto e = v.get_array().get(a)) return e;
        return a.raw_json().get(raw);
    }
    od::object o;
    if (auto e = v.get_object().get(o)) return e;
    return o.raw_json().get(raw);
}

// ts/dur: a number or a string holding one.
inline bool timeFromToken(std::string_view tok, int64_t& ns) {
    std::string_view content;
    if (tokenIsString(tok)) {
        if (!stringContent(tok, content)) return false;
        return parseMicrosToNs(content, ns);
    }
    return parseMicrosToNs(tok, ns);
}

// An id or count arg: an integer in [0, max], written as a number or a string holding one. `out` is left alone
// otherwise (the caller then reports the value and keeps its default).
template <class T>
inline bool countFromRaw(std::string_view raw, T& out, int64_t max = std::numeric_limits<T>::max()) {
    int64_t v = 0;
    if (!parseIntegerToken(raw, v) || v < 0 || v > max) return false;
    out = static_cast<T>(v);
    return true;
}

// What the rejected values were expected to be, as the warnings say it.
constexpr std::string_view kExpectCount = "a non-negative integer";
constexpr std::string_view kExpectDevice = "an integer from 0 to 32767";
constexpr std::string_view kExpectInt32 = "an integer from 0 to 2147483647";
constexpr std::string_view kExpectDim3 = "an array of 3 integers";
constexpr std::string_view kExpectString = "a string";
constexpr std::string_view kExpectSortIndex = "an integer from -2147483648 to 2147483647";

std::string shortToken(std::string_view tok) {
    if (tok.empty()) return "nothing";
    if (tok.front() == '{') return "an object";
    if (tok.front() == '[') return "an array";
    return std::string(tok.size() > 40 ? tok.substr(0, 40) : tok);
}

}  // namespace

struct KinetoEventParser::Fields {
    std::string_view ph, cat, name, ts, dur, pid, tid, id, bp;  // raw tokens, empty when absent
    bool argsBad = false;
};

// An event whose common fields passed the checks: what every table needs.
struct KinetoEventParser::Event {
    uint64_t offset = 0, localIndex = 0;  // where it is, for warnings
    char ph = '?';
    uint32_t track = 0;
    StrId name = kEmptyStr;
    std::string_view catContent;  // escaped, without quotes
    TimeNs ts = 0, dur = 0;
};

KinetoEventParser::KinetoEventParser(RankData& out, std::string fileName, uint64_t expectedBytes)
    : m_out(out), m_file(std::move(fileName)) {
    size_t slots = kMinCacheSlots;
    while (slots < kMaxCacheSlots && slots * 1024 < expectedBytes) slots *= 2;  // ~1 slot per KB of text
    m_cache.resize(slots);
}

std::string_view KinetoEventParser::describe(Warn kind) {
    switch (kind) {
    case Warn::MissingDur: return "X events without dur (kept with dur 0)";
    case Warn::NegativeDur: return "X events with a negative dur (kept with dur 0)";
    case Warn::BadField: return "events with a wrongly-typed field (skipped)";
    case Warn::NotObject: return "traceEvents entries that are not objects (skipped)";
    case Warn::BadArgs: return "events whose args is not an object (args ignored)";
    case Warn::BadUtf8: return "parts of the file with invalid UTF-8 (replaced by '?')";
    case Warn::BadValue: return "ids or attributes with a wrong type or out of range (ignored, events kept)";
    default: return "events";
    }
}

void KinetoEventParser::warn(Warn kind, uint64_t offset, uint64_t localIndex, std::string message) {
    const auto k = static_cast<size_t>(kind);
    ++m_warnCounts[k];
    // The first few distinct messages of each kind are listed; a message already listed is only counted.
    auto& listed = m_listed[k];
    if (listed.size() >= kListedPerKind || std::find(listed.begin(), listed.end(), message) != listed.end()) return;
    listed.push_back(message);
    Location where{m_file};
    where.byteOffset = static_cast<int64_t>(offset);
    where.eventIndex = static_cast<int64_t>(localIndex);
    m_out.diagnostics.push_back({Severity::Warning, std::move(where), std::move(message)});
    m_diagKinds.push_back(kind);
}

bool KinetoEventParser::ignoreValue(std::string_view key, std::string_view raw, std::string_view expected,
                                    const Event& ev, std::string_view context, std::string_view note) {
    if (m_listed[static_cast<size_t>(Warn::BadValue)].size() >= kListedPerKind) {
        ++m_warnCounts[static_cast<size_t>(Warn::BadValue)];  // counted; not worth formatting a message nobody sees
        return false;
    }
    warn(Warn::BadValue, ev.offset, ev.localIndex,
         fmt::format("{}expected \"{}\" to be {}, got {}: ignored{}", context, key, expected, describeJsonValue(raw),
                     note));
    return false;
}

StrId KinetoEventParser::intern(std::string_view s) {
    if (s.empty()) return kEmptyStr;
    const uint64_t h = StringPool::hash(s);
    CacheSlot& slot = m_cache[h & (m_cache.size() - 1)];
    if (slot.used && slot.hash == h && m_out.strings.view(slot.id) == s) return slot.id;
    const StrId id = m_out.strings.intern(s);
    slot = {h, id, true};
    return id;
}

StrId KinetoEventParser::internToken(std::string_view tok, bool& ok) {
    std::string_view content;
    if (!stringContent(tok, content)) {
        ok = false;
        return kEmptyStr;
    }
    if (!hasBackslash(content)) return intern(content);
    if (!unescapeJson(content, m_scratch)) {
        ok = false;
        return kEmptyStr;
    }
    return intern(m_scratch);
}

uint32_t KinetoEventParser::categoryIndex(std::string_view content, bool hasCat) {
    (void)hasCat;
    if (m_lastCategory != SIZE_MAX && m_categories[m_lastCategory].text == content) return static_cast<uint32_t>(m_lastCategory);
    for (size_t i = 0; i < m_categories.size(); ++i) {
        if (m_categories[i].text == content) {
            m_lastCategory = i;
            return static_cast<uint32_t>(i);
        }
    }
    CategoryInfo info;
    info.text = std::string(content);
    std::string_view text = content;
    if (hasBackslash(content) && unescapeJson(content, m_scratch)) text = m_scratch;
    info.id = m_out.strings.intern(text);
    info.kind = eventKindFromCategory(text);
    m_categories.push_back(std::move(info));
    m_lastCategory = m_categories.size() - 1;
    return static_cast<uint32_t>(m_lastCategory);
}

bool KinetoEventParser::trackFor(std::string_view pidTok, std::string_view tidTok, uint32_t& track) {
    if (!pidTok.empty()) {
        for (const auto& r : m_recentTracks) {
            if (r.pid == pidTok && r.tid == tidTok) {
                track = r.track;
                return true;
            }
        }
    }
    m_trackKey.assign(pidTok);
    m_trackKey.push_back('\x1f');
    m_trackKey.append(tidTok);
    auto it = m_trackIndex.find(m_trackKey);
    if (it != m_trackIndex.end()) {
        track = it->second;
    } else {
        Track t;
        bool ok = true;
        if (tokenIsString(pidTok)) t.pidStr = internToken(pidTok, ok);
        else if (!pidTok.empty() && !parseInteger(pidTok, t.pid)) ok = false;
        if (tokenIsString(tidTok)) t.tidStr = internToken(tidTok, ok);
        else if (!tidTok.empty() && !parseInteger(tidTok, t.tid)) ok = false;
        if (!ok) return false;
        track = static_cast<uint32_t>(m_out.tracks.size());
        m_out.tracks.push_back(t);
        m_trackIndex.emplace(m_trackKey, track);
    }
    RecentTrack& slot = m_recentTracks[m_recentNext];
    m_recentNext = (m_recentNext + 1) % m_recentTracks.size();
    slot.pid.assign(pidTok);  // an empty pid never matches (the loop above is skipped for it)
    slot.tid.assign(tidTok);
    slot.track = track;
    return true;
}

bool KinetoEventParser::parseIdToken(std::string_view tok, int64_t& id) {
    if (tok.empty()) {
        id = kNone;
        return true;
    }
    if (parseIntegerToken(tok, id)) return id >= 0;  // kNone (-1) marks "no id"
    std::string_view content;
    if (!stringContent(tok, content)) return false;
    // Any other string id: a stable 63-bit hash of its text.
    id = static_cast<int64_t>(StringPool::hash(content) & static_cast<uint64_t>(INT64_MAX));
    return true;
}

ProcessMeta& KinetoEventParser::processFor(uint32_t track) {
    const Track& t = m_out.tracks[track];
    auto key = std::make_pair(t.pid, t.pidStr);
    auto it = m_processByPid.find(key);
    if (it != m_processByPid.end()) return m_out.processes.at(it->second);
    ProcessMeta p;
    p.pid = t.pid;
    p.pidStr = t.pidStr;
    m_processByPid.emplace(key, static_cast<uint32_t>(m_out.processes.size()));
    m_out.processes.push_back(p);
    return m_out.processes.at(m_out.processes.size() - 1);
}

ThreadMeta& KinetoEventParser::threadFor(uint32_t track) {
    auto it = m_threadByTrack.find(track);
    if (it != m_threadByTrack.end()) return m_out.threads.at(it->second);
    ThreadMeta t;
    t.track = track;
    m_threadByTrack.emplace(track, static_cast<uint32_t>(m_out.threads.size()));
    m_out.threads.push_back(t);
    return m_out.threads.at(m_out.threads.size() - 1);
}

StrId KinetoEventParser::residualArgs(const std::vector<ArgEntry>& args, const std::vector<uint8_t>& used) {
    m_residual.clear();
    for (size_t i = 0; i < args.size(); ++i) {
        if (used[i]) continue;
        m_residual.push_back(m_residual.empty() ? '{' : ',');
        m_residual.push_back('"');
        m_residual.append(args[i].key);
        m_residual.append("\":");
        if (args[i].container) appendCompactJson(args[i].raw, m_residual);
        else m_residual.append(args[i].raw);
    }
    if (m_residual.empty()) return kEmptyStr;
    m_residual.push_back('}');
    return intern(m_residual);
}

simdjson::error_code KinetoEventParser::parseEvent(od::object& obj, uint64_t offset, uint64_t localIndex) {
    Fields f;
    m_args.clear();
    for (auto fieldResult : obj) {
        od::field field;
        if (auto e = std::move(fieldResult).get(field)) return e;
        const char* k = field.key().raw();
        od::value& v = field.value();
        switch (k[0]) {
        case 'p':
            if (keyIs(k, "ph")) f.ph = token(v);
            else if (keyIs(k, "pid")) f.pid = token(v);
            break;
        case 't':
            if (keyIs(k, "ts")) f.ts = token(v);
            else if (keyIs(k, "tid")) f.tid = token(v);
            break;
        case 'c':
            if (keyIs(k, "cat")) f.cat = token(v);
            break;
        case 'n':
            if (keyIs(k, "name")) f.name = token(v);
            break;
        case 'd':
            if (keyIs(k, "dur")) f.dur = token(v);
            break;
        case 'i':
            if (keyIs(k, "id")) {
                f.id = token(v);
                // An array or object id is unusable: its whole text is taken only for the warning (rare).
                if (!f.id.empty() && (f.id.front() == '[' || f.id.front() == '{'))
                    if (auto e = containerText(v, f.id.front() == '[', f.id)) return e;
            }
            break;
        case 'b':
            if (keyIs(k, "bp")) f.bp = token(v);
            break;
        case 'a':
            if (keyIs(k, "args")) {
                od::object a;
                auto e = v.get_object().get(a);
                if (e == simdjson::INCORRECT_TYPE) {
                    f.argsBad = true;
                    break;
                }
                if (e) return e;
                for (auto argResult : a) {
                    od::field af;
                    if (auto e2 = std::move(argResult).get(af)) return e2;
                    const char* kr = af.key().raw();
                    od::value& av = af.value();
                    od::json_type t{};
                    if (auto e3 = av.type().get(t)) return e3;
                    const bool container = t == od::json_type::array || t == od::json_type::object;
                    std::string_view raw;
                    if (container) {
                        if (auto e4 = containerText(av, t == od::json_type::array, raw)) return e4;
                    } else {
                        raw = token(av);
                    }
                    m_args.push_back({std::string_view(kr, keyLength(kr)), raw, container});
                }
            }
            break;
        default: break;
        }
    }
    emit(f, offset, localIndex);
    return simdjson::SUCCESS;
}

// Refuses an event: counted as skipped, reported (BadField). Always returns false.
bool KinetoEventParser::skip(const Event& ev, std::string message) {
    ++m_skipped;
    warn(Warn::BadField, ev.offset, ev.localIndex, std::move(message));
    return false;
}

// Step 1: phase, track, name and category. False when the event is skipped (reported).
bool KinetoEventParser::readIdentity(const Fields& f, Event& ev) {
    if (!f.ph.empty()) {
        std::string_view content;
        if (!stringContent(f.ph, content) || content.empty())
            return skip(ev, fmt::format("expected \"ph\" to be a one-letter string, got {}", shortToken(f.ph)));
        ev.ph = content[0];
    }
    if (!trackFor(f.pid, f.tid, ev.track))
        return skip(ev, fmt::format("expected \"pid\" and \"tid\" to be numbers or strings, got {} and {}",
                                    shortToken(f.pid), shortToken(f.tid)));
    if (!f.name.empty()) {
        bool ok = true;
        ev.name = internToken(f.name, ok);
        if (!ok) return skip(ev, fmt::format("expected \"name\" to be a string, got {}", shortToken(f.name)));
    }
    if (!f.cat.empty() && !stringContent(f.cat, ev.catContent))
        return skip(ev, fmt::format("expected \"cat\" to be a string, got {}", shortToken(f.cat)));
    return true;
}

// Step 2: ts (every phase but M) and dur (X; other phases that carry one keep a valid one). False when skipped.
bool KinetoEventParser::readTimes(const Fields& f, Event& ev) {
    const char ph = ev.ph;
    if (ph != 'M' && (f.ts.empty() || !timeFromToken(f.ts, ev.ts)))
        return skip(ev, f.ts.empty() ? std::string("expected a \"ts\" field (µs)")
                                     : fmt::format("expected \"ts\" to be a number of µs, got {}", shortToken(f.ts)));
    if (ph == 'X') {
        if (f.dur.empty()) {
            warn(Warn::MissingDur, ev.offset, ev.localIndex, "X event without \"dur\": kept with dur 0");
        } else if (!timeFromToken(f.dur, ev.dur)) {
            return skip(ev, fmt::format("expected \"dur\" to be a number of µs, got {}", shortToken(f.dur)));
        } else if (ev.dur < 0) {
            warn(Warn::NegativeDur, ev.offset, ev.localIndex,
                 fmt::format("negative \"dur\" {}: kept with dur 0", shortToken(f.dur)));
            ev.dur = 0;
        }
    } else if (!f.dur.empty() && ph != 'i' && ph != 'I' && ph != 'B' && ph != 'E') {
        if (!timeFromToken(f.dur, ev.dur) || ev.dur < 0) ev.dur = 0;
    }
    // Times far outside any real clock would overflow ends and differences downstream: refused here, once.
    if (ev.ts < -kMaxTimeNs || ev.ts > kMaxTimeNs || ev.dur > kMaxTimeNs - ev.ts)
        return skip(ev, fmt::format("\"ts\" {} / \"dur\" {} µs lie outside the representable time range (±{} µs)",
                                    shortToken(f.ts), f.dur.empty() ? std::string("0") : shortToken(f.dur),
                                    kMaxTimeNs / 1000));
    if (ev.dur > kMaxDurationNs)
        return skip(ev, fmt::format("\"dur\" {} µs is longer than {} µs (19.5 hours): not a profiled event",
                                    shortToken(f.dur), kMaxDurationNs / 1000));
    return true;
}

void KinetoEventParser::emit(const Fields& f, uint64_t offset, uint64_t localIndex) {
    Event ev;
    ev.offset = offset;
    ev.localIndex = localIndex;
    if (!readIdentity(f, ev) || !readTimes(f, ev)) return;
    if (f.argsBad) warn(Warn::BadArgs, offset, localIndex, "expected \"args\" to be an object: ignored");

    CategoryInfo& cat = m_categories[categoryIndex(ev.catContent, !f.cat.empty())];
    ++cat.count;
    ++m_events;
    ++m_phaseCounts[static_cast<unsigned char>(ev.ph)];
    m_argUsed.assign(m_args.size(), 0);

    switch (ev.ph) {
    case 'M': return emitMetadata(ev);
    case 's':
    case 't':
    case 'f': return emitFlow(f, ev, cat.id);
    case 'C': return emitCounter(ev);
    default: break;
    }
    // X of GPU categories go to the GPU table; everything else is a slice: X of CPU-side categories,
    // gpu_user_annotation, instants, B/E and other phases.
    if (ev.ph == 'X' && isGpuKind(cat.kind)) emitGpu(ev, cat);
    else emitSlice(ev, cat);
}

// Metadata: process and thread names, labels and sort indices. A value of the wrong type is reported and ignored
// (whatever an earlier event set stays).
void KinetoEventParser::emitMetadata(const Event& ev) {
    ++m_metadata;
    const std::string_view metaName = m_out.strings.view(ev.name);
    auto context = [&] { return fmt::format("\"{}\" metadata: ", metaName); };
    auto argString = [&](std::string_view key, StrId& out) {
        for (const auto& a : m_args) {
            if (a.key != key) continue;
            bool good = true;
            const StrId id = internToken(a.raw, good);
            if (good) out = id;
            else ignoreValue(key, a.raw, kExpectString, ev, context(), "");
        }
    };
    auto argInt = [&](std::string_view key, int32_t& out) {
        for (const auto& a : m_args) {
            if (a.key != key) continue;
            int64_t v = 0;
            if (parseIntegerToken(a.raw, v) && v >= INT32_MIN && v <= INT32_MAX) out = static_cast<int32_t>(v);
            else ignoreValue(key, a.raw, kExpectSortIndex, ev, context(), "");
        }
    };
    if (eq(metaName, "process_name")) argString("name", processFor(ev.track).name);
    else if (eq(metaName, "process_labels")) argString("labels", processFor(ev.track).labels);
    else if (eq(metaName, "process_sort_index")) argInt("sort_index", processFor(ev.track).sortIndex);
    else if (eq(metaName, "thread_name")) argString("name", threadFor(ev.track).name);
    else if (eq(metaName, "thread_sort_index")) argInt("sort_index", threadFor(ev.track).sortIndex);
    // A merged multi-rank trace (TraceLens TraceFusion) names each pid's rank in its metadata events' args.
    for (const auto& a : m_args) {
        int64_t v = 0;
        if (a.key == "rank" && !a.container && parseIntegerToken(a.raw, v) && v >= 0 && v <= INT32_MAX)
            processFor(ev.track).rank = static_cast<int32_t>(v);
    }
}

void KinetoEventParser::emitFlow(const Fields& f, const Event& ev, StrId cat) {
    int64_t id = kNone;
    if (!parseIdToken(f.id, id)) {
        id = kNone;
        ignoreValue("id", f.id, "a non-negative integer or a string", ev);
    }
    m_f.id->push_back(id);
    m_f.ts->push_back(ev.ts);
    m_f.track->push_back(ev.track);
    m_f.phase->push_back(ev.ph);
    m_f.cat->push_back(cat);
    m_f.name->push_back(ev.name);
    m_f.bindEnclosing->push_back(f.bp == "\"e\"" ? 1 : 0);
}

// Counters: one row per args member holding a number (or a string holding one); any other value is reported.
void KinetoEventParser::emitCounter(const Event& ev) {
    for (const auto& a : m_args) {
        double value = 0;
        std::string_view content;
        const bool number = tokenIsString(a.raw) ? stringContent(a.raw, content) && parseDouble(content, value)
                                                 : !a.container && parseDouble(a.raw, value);
        if (!number) {
            ignoreValue(a.key, a.raw, "a number", ev,
                        fmt::format("counter \"{}\": ", m_out.strings.view(ev.name)), " (the other series are kept)");
            continue;
        }
        StrId series = kEmptyStr;
        if (hasBackslash(a.key) && unescapeJson(a.key, m_scratch))
            series = intern(m_scratch);
        else
            series = intern(a.key);
        m_c.ts->push_back(ev.ts);
        m_c.track->push_back(ev.track);
        m_c.name->push_back(ev.name);
        m_c.series->push_back(series);
        m_c.value->push_back(value);
    }
}

// `take(key, raw, ignore)` says whether an arg went into a column (or is dropped on purpose); ignore(expected)
// reports a value of the wrong type, and such an arg is used up too. The others stay for the residual args.
template <class F>
void KinetoEventParser::takeArgs(const Event& ev, F&& take) {
    for (size_t i = 0; i < m_args.size(); ++i) {
        const std::string_view key = m_args[i].key, raw = m_args[i].raw;
        auto ignore = [&](std::string_view expected) { return ignoreValue(key, raw, expected, ev); };
        m_argUsed[i] = take(key, raw, ignore) ? 1 : 0;
    }
}

void KinetoEventParser::emitGpu(const Event& ev, const CategoryInfo& cat) {
    const Track& tr = m_out.tracks[ev.track];
    int64_t device = tr.pidStr == kEmptyStr ? tr.pid : -1;
    int64_t stream = tr.tidStr == kEmptyStr ? tr.tid : -1;
    int64_t correlation = kNone, externalId = kNone, bytes = 0;
    int32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
    int32_t registers = 0, shared = 0;
    takeArgs(ev, [&](std::string_view key, std::string_view raw, auto ignore) {
        bool used = false;
        switch (key.size()) {
        case 4:
            if (eq(key, "grid")) used = parseDim3(raw, grid) || ignore(kExpectDim3);
            break;
        case 5:
            if (eq(key, "block")) used = parseDim3(raw, block) || ignore(kExpectDim3);
            else if (eq(key, "bytes")) used = countFromRaw(raw, bytes) || ignore(kExpectCount);
            break;
        case 6:
            if (eq(key, "device")) used = countFromRaw(raw, device, INT16_MAX) || ignore(kExpectDevice);
            else if (eq(key, "stream")) used = countFromRaw(raw, stream, INT32_MAX) || ignore(kExpectInt32);
            break;
        case 11:
            if (eq(key, "correlation")) used = countFromRaw(raw, correlation) || ignore(kExpectCount);
            else if (eq(key, "External id") || eq(key, "external id"))
                used = countFromRaw(raw, externalId) || ignore(kExpectCount);
            break;
        case 13:
            if (eq(key, "shared memory")) used = countFromRaw(raw, shared) || ignore(kExpectInt32);
            break;
        case 20:
            if (eq(key, "registers per thread")) used = countFromRaw(raw, registers) || ignore(kExpectInt32);
            break;
        default: break;
        }
        return used;
    });
    m_g.ts->push_back(ev.ts);
    m_g.dur->push_back(ev.dur);
    m_g.name->push_back(ev.name);
    m_g.cat->push_back(cat.id);
    m_g.kind->push_back(cat.kind);
    m_g.track->push_back(ev.track);
    m_g.device->push_back(static_cast<int16_t>(device));
    m_g.stream->push_back(static_cast<int32_t>(stream));
    m_g.queue->push_back(-1);
    m_g.correlation->push_back(correlation);
    m_g.externalId->push_back(externalId);
    m_g.gridX->push_back(grid[0]);
    m_g.gridY->push_back(grid[1]);
    m_g.gridZ->push_back(grid[2]);
    m_g.blockX->push_back(block[0]);
    m_g.blockY->push_back(block[1]);
    m_g.blockZ->push_back(block[2]);
    m_g.registers->push_back(registers);
    m_g.sharedMemory->push_back(shared);
    m_g.bytes->push_back(bytes);
    m_g.args->push_back(residualArgs(m_args, m_argUsed));
}

void KinetoEventParser::emitSlice(const Event& ev, const CategoryInfo& cat) {
    int64_t externalId = kNone, correlation = kNone, sequence = kNone;
    takeArgs(ev, [&](std::string_view key, std::string_view raw, auto ignore) {
        bool used = false;
        switch (key.size()) {
        case 6: used = eq(key, "Ev Idx"); break;  // dropped: the profiler's own event counter
        case 9: used = eq(key, "Python id"); break;  // dropped: see header
        case 11:
            if (eq(key, "External id") || eq(key, "external id"))
                used = countFromRaw(raw, externalId) || ignore(kExpectCount);
            else if (eq(key, "correlation"))
                used = countFromRaw(raw, correlation) || ignore(kExpectCount);
            break;
        case 15:
            if (eq(key, "Sequence number")) used = countFromRaw(raw, sequence) || ignore(kExpectCount);
            break;
        case 16: used = eq(key, "Python parent id"); break;
        case 18: used = eq(key, "Record function id"); break;
        default: break;
        }
        return used;
    });
    m_s.ts->push_back(ev.ts);
    m_s.dur->push_back(ev.dur);
    m_s.name->push_back(ev.name);
    m_s.cat->push_back(cat.id);
    m_s.kind->push_back(cat.kind);
    m_s.phase->push_back(ev.ph);
    m_s.track->push_back(ev.track);
    m_s.externalId->push_back(externalId);
    m_s.correlation->push_back(correlation);
    m_s.sequence->push_back(sequence);
    m_s.args->push_back(residualArgs(m_args, m_argUsed));
}

void KinetoEventParser::bindSinks() {
    SliceTable& s = m_out.slices;
    m_s = {&s.ts.mut(), &s.dur.mut(), &s.name.mut(), &s.cat.mut(), &s.kind.mut(), &s.phase.mut(), &s.track.mut(),
           &s.externalId.mut(), &s.correlation.mut(), &s.sequence.mut(), &s.args.mut()};
    GpuTable& g = m_out.gpu;
    m_g = {&g.ts.mut(), &g.dur.mut(), &g.name.mut(), &g.cat.mut(), &g.kind.mut(), &g.track.mut(), &g.device.mut(),
           &g.stream.mut(), &g.queue.mut(), &g.correlation.mut(), &g.externalId.mut(), &g.gridX.mut(), &g.gridY.mut(),
           &g.gridZ.mut(), &g.blockX.mut(), &g.blockY.mut(), &g.blockZ.mut(), &g.registers.mut(),
           &g.sharedMemory.mut(), &g.bytes.mut(), &g.args.mut()};
    FlowTable& f = m_out.flows;
    m_f = {&f.id.mut(), &f.ts.mut(), &f.track.mut(), &f.phase.mut(), &f.cat.mut(), &f.name.mut(),
           &f.bindEnclosing.mut()};
    CounterTable& c = m_out.counters;
    m_c = {&c.ts.mut(), &c.track.mut(), &c.name.mut(), &c.series.mut(), &c.value.mut()};
}

namespace {

// Replaces every byte of an invalid UTF-8 sequence in s[0, n) by '?'. Returns how many bytes were replaced and
// the first one's position. Structural characters are ASCII, so the JSON structure is unchanged.
size_t repairUtf8(char* s, size_t n, size_t& first) {
    size_t replaced = 0;
    first = n;
    size_t i = 0;
    auto bad = [&](size_t at, size_t count) {
        for (size_t k = 0; k < count && at + k < n; ++k) s[at + k] = '?';
        if (first == n) first = at;
        replaced += count;
    };
    while (i < n) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            ++i;
            continue;
        }
        size_t len = 0;
        uint32_t min = 0;
        if (c >= 0xC2 && c <= 0xDF) len = 2, min = 0x80;
        else if (c >= 0xE0 && c <= 0xEF) len = 3, min = 0x800;
        else if (c >= 0xF0 && c <= 0xF4) len = 4, min = 0x10000;
        if (len == 0 || i + len > n) {
            bad(i, 1);
            ++i;
            continue;
        }
        uint32_t cp = c & (0xFF >> (len + 1));
        bool ok = true;
        for (size_t k = 1; k < len; ++k) {
            const auto cc = static_cast<unsigned char>(s[i + k]);
            if ((cc & 0xC0) != 0x80) {
                ok = false;
                break;
            }
            cp = (cp << 6) | (cc & 0x3F);
        }
        if (!ok || cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            bad(i, 1);
            ++i;
            continue;
        }
        i += len;
    }
    return replaced;
}

// The chunk-local index of the array element that contains position `pos` (scalar scan; error paths only).
uint64_t elementIndexAt(const char* s, size_t pos) {
    uint64_t index = 0;
    int64_t depth = 0;
    bool inString = false, escape = false;
    for (size_t i = 1; i < pos; ++i) {  // s[0] is the chunk's '['
        const char c = s[i];
        if (inString) {
            if (escape) escape = false;
            else if (c == '\\') escape = true;
            else if (c == '"') inString = false;
            continue;
        }
        if (c == '"') inString = true;
        else if (c == '{' || c == '[') ++depth;
        else if (c == '}' || c == ']') --depth;
        else if (c == ',' && depth == 0) ++index;
    }
    return index;
}

}  // namespace

Status KinetoEventParser::parseChunk(char* buf, size_t len, size_t capacity, uint64_t textOffset,
                                     ChunkRecord& rec) {
    bindSinks();
    rec.slices = m_out.slices.size();
    rec.gpu = m_out.gpu.size();
    rec.flows = m_out.flows.size();
    rec.counters = m_out.counters.size();
    rec.diagBegin = m_out.diagnostics.size();
    rec.elements = 0;
    auto fail = [&](simdjson::error_code e, uint64_t offset, uint64_t index) -> Status {
        rec.diagEnd = m_out.diagnostics.size();
        Location where{m_file};
        where.byteOffset = static_cast<int64_t>(offset);
        where.eventIndex = static_cast<int64_t>(index);
        return Error(where, fmt::format("expected a valid JSON event object: {}", simdjson::error_message(e)));
    };
    od::document doc;
    auto e0 = m_parser.iterate(buf, len, capacity).get(doc);
    if (e0 == simdjson::UTF8_ERROR) {
        size_t first = 0;
        const size_t replaced = repairUtf8(buf, len, first);
        if (replaced > 0) {
            warn(Warn::BadUtf8, textOffset + first, elementIndexAt(buf, first),
                 fmt::format("invalid UTF-8 ({} bytes in this part of the file replaced by '?')", replaced));
            e0 = m_parser.iterate(buf, len, capacity).get(doc);
        }
    }
    if (e0) return fail(e0, textOffset, 0);
    od::array arr;
    if (auto e = doc.get_array().get(arr)) return fail(e, textOffset, 0);
    uint64_t index = 0;
    for (auto elem : arr) {
        od::value v;
        if (auto e = std::move(elem).get(v)) {
            const char* at = nullptr;
            const bool known = doc.current_location().get(at) == simdjson::SUCCESS && at >= buf && at < buf + len;
            return fail(e, textOffset + (known ? static_cast<uint64_t>(at - buf) : 0), index);
        }
        const std::string_view tok = token(v);
        const uint64_t offset = textOffset + static_cast<uint64_t>(tok.data() - buf);
        od::object obj;
        auto e = v.get_object().get(obj);
        if (e == simdjson::INCORRECT_TYPE) {
            ++m_skipped;
            warn(Warn::NotObject, offset, index,
                 fmt::format("expected an event object in traceEvents, got {}", shortToken(tok)));
            ++index;
            continue;
        }
        if (e) return fail(e, offset, index);
        if (auto pe = parseEvent(obj, offset, index)) return fail(pe, offset, index);
        ++index;
    }
    rec.elements = index;
    rec.diagEnd = m_out.diagnostics.size();
    return Ok{};
}

void KinetoEventParser::finish() {
    m_out.stats.events += m_events;
    m_out.stats.metadataEvents += m_metadata;
    m_out.stats.skippedEvents += m_skipped;
    for (const auto& c : m_categories) m_out.stats.eventsByCategory.emplace_back(c.id, c.count);
}

}  // namespace strobe::core::kineto
