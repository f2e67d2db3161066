#pragma once
// KinetoEventParser: turns one chunk of Kineto trace events ("[" {event}, ... "]", cut at event boundaries by
// the loader) into rows of a RankData's tables. One parser per loading thread, each with its own RankData
// (string pool, tracks, tables): the loader concatenates them in file order afterwards.
//
// Policy for odd events (all counted, each kind reported with the first few event indices):
//  - X without dur or with a negative dur: kept with dur 0, warning.
//  - a wrongly-typed ts/pid/tid/ph, or an array element that is not an object: skipped, warning.
//  - args that is not an object: ignored for that event, warning.
//  - a link or attribute value Strobe reads (flow "id"; args "External id", "correlation", "Sequence number",
//    "device", "stream", "bytes", "grid", "block", "shared memory", "registers per thread") of the wrong type or
//    out of range: that value is ignored (left in the residual args text), the event kept, warning. Integers may
//    be written as numbers or as strings holding one (decimal or 0x-hex); ids and counts are never negative.
//  - phases other than X/B/E/i/I/s/t/f/M/C: kept as slices with their phase character (info).
//  - args keys that Strobe turns into columns are not repeated in the residual args text; "Ev Idx",
//    "Record function id", "Python id" and "Python parent id" are dropped: they are the profiler's internal
//    per-event counters (unique on every event, so they would make every args text unique and multiply the
//    memory of the loaded data), and the merge rebuilds the call tree from the intervals.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include <simdjson.h>

#include "core/io/error.h"
#include "core/model/dataset.h"

namespace strobe::core::kineto {

// Where one chunk's rows start in a parser's tables, and how many array elements it held.
struct ChunkRecord {
    uint64_t seq = 0;
    uint64_t elements = 0;
    size_t slices = 0, gpu = 0, flows = 0, counters = 0;  // first row of this chunk in each table
    size_t diagBegin = 0, diagEnd = 0;                    // diagnostics whose eventIndex is chunk-local
};

class KinetoEventParser {
public:
    // `expectedBytes` (the text size, if known) sizes the interning cache.
    KinetoEventParser(RankData& out, std::string fileName, uint64_t expectedBytes = 0);
    KinetoEventParser(const KinetoEventParser&) = delete;
    KinetoEventParser& operator=(const KinetoEventParser&) = delete;

    // Parses buf[0, len) ("[" events "]"); buf must stay readable up to `capacity` >= len + SIMDJSON_PADDING.
    // `textOffset` is the offset of buf[0] in the whole text. Rows are appended; `rec` is filled. A syntax
    // error returns an Error whose eventIndex is local to the chunk (the caller adds the chunk's base).
    // Invalid UTF-8 is replaced by '?' in place (with a warning naming the first place) and the chunk parsed.
    Status parseChunk(char* buf, size_t len, size_t capacity, uint64_t textOffset, ChunkRecord& rec);

    // Moves counters into out.stats (events, metadata, skipped, eventsByCategory). Call once at the end.
    void finish();

    enum class Warn : uint8_t { MissingDur, NegativeDur, BadField, NotObject, BadArgs, BadUtf8, BadValue, Count };
    // Detailed diagnostics per kind and parser: the first kListedPerKind distinct messages (a message repeated word
    // for word is listed once); every occurrence is counted.
    static constexpr size_t kListedPerKind = 5;
    using WarnCounts = std::array<uint64_t, static_cast<size_t>(Warn::Count)>;
    const WarnCounts& warnCounts() const { return m_warnCounts; }
    const std::array<uint64_t, 256>& phaseCounts() const { return m_phaseCounts; }
    static std::string_view describe(Warn kind);
    // The kind of each diagnostic this parser added to its RankData, in the same order.
    const std::vector<Warn>& diagnosticKinds() const { return m_diagKinds; }

private:
    struct ArgEntry {
        std::string_view key;  // as written (escaped), without quotes
        std::string_view raw;  // the value as written
        bool container = false;  // an array or object (may hold whitespace)
    };
    struct Fields;

    struct Event;
    struct CategoryInfo;

    simdjson::error_code parseEvent(simdjson::ondemand::object& obj, uint64_t offset, uint64_t localIndex);
    // emit: the checked event goes to its table, in named steps.
    void emit(const Fields& f, uint64_t offset, uint64_t localIndex);
    bool readIdentity(const Fields& f, Event& ev);  // ph, pid/tid → track, name, cat; false: skipped (reported)
    bool readTimes(const Fields& f, Event& ev);     // ts, dur and their range; false: skipped (reported)
    bool skip(const Event& ev, std::string message);
    void emitMetadata(const Event& ev);
    void emitFlow(const Fields& f, const Event& ev, StrId cat);
    void emitCounter(const Event& ev);
    void emitGpu(const Event& ev, const CategoryInfo& cat);
    void emitSlice(const Event& ev, const CategoryInfo& cat);
    template <class F>
    void takeArgs(const Event& ev, F&& take);  // marks m_argUsed from take(key, raw, ignore)

    void warn(Warn kind, uint64_t offset, uint64_t localIndex, std::string message);
    // Reports an unusable link/attribute value (Warn::BadValue); always returns false. Error path only.
    [[gnu::cold]] [[gnu::noinline]] bool ignoreValue(std::string_view key, std::string_view raw,
                                                     std::string_view expected, const Event& ev,
                                                     std::string_view context = {},
                                                     std::string_view note = " (the event is kept without it)");

    StrId intern(std::string_view s);
    StrId internToken(std::string_view stringToken, bool& ok);  // raw "..." token → id (unescaping if needed)
    bool trackFor(std::string_view pidTok, std::string_view tidTok, uint32_t& track);
    bool parseIdToken(std::string_view tok, int64_t& id);
    uint32_t categoryIndex(std::string_view catContent, bool hasCat);
    StrId residualArgs(const std::vector<ArgEntry>& args, const std::vector<uint8_t>& used);
    ProcessMeta& processFor(uint32_t track);
    ThreadMeta& threadFor(uint32_t track);

    // The columns being filled, bound once per chunk (they are owned vectors while loading).
    template <class T>
    using Vec = std::vector<T>*;
    struct SliceSinks {
        Vec<TimeNs> ts, dur;
        Vec<StrId> name, cat;
        Vec<EventKind> kind;
        Vec<char> phase;
        Vec<uint32_t> track;
        Vec<int64_t> externalId, correlation, sequence;
        Vec<StrId> args;
    };
    struct GpuSinks {
        Vec<TimeNs> ts, dur;
        Vec<StrId> name, cat;
        Vec<EventKind> kind;
        Vec<uint32_t> track;
        Vec<int16_t> device;
        Vec<int32_t> stream;
        Vec<int32_t> queue;
        Vec<int64_t> correlation, externalId;
        Vec<int32_t> gridX, gridY, gridZ, blockX, blockY, blockZ, registers, sharedMemory;
        Vec<int64_t> bytes;
        Vec<StrId> args;
    };
    struct FlowSinks {
        Vec<int64_t> id;
        Vec<TimeNs> ts;
        Vec<uint32_t> track;
        Vec<char> phase;
        Vec<StrId> cat, name;
        Vec<uint8_t> bindEnclosing;
    };
    struct CounterSinks {
        Vec<TimeNs> ts;
        Vec<uint32_t> track;
        Vec<StrId> name, series;
        Vec<double> value;
    };
    void bindSinks();
    SliceSinks m_s{};
    GpuSinks m_g{};
    FlowSinks m_f{};
    CounterSinks m_c{};

    RankData& m_out;
    std::string m_file;
    simdjson::ondemand::parser m_parser;

    // Interning: a direct-mapped cache of recent strings in front of the pool's own index.
    struct CacheSlot {
        uint64_t hash = 0;
        StrId id = 0;
        bool used = false;
    };
    std::vector<CacheSlot> m_cache;

    // Categories seen: content, id, kind and count (a handful per trace; linear search after a last-hit check).
    struct CategoryInfo {
        std::string text;
        StrId id = 0;
        EventKind kind = EventKind::Unknown;
        uint64_t count = 0;
    };
    std::vector<CategoryInfo> m_categories;
    size_t m_lastCategory = SIZE_MAX;

    // Tracks keyed by the raw pid and tid tokens; a few recent ones are checked first.
    std::unordered_map<std::string, uint32_t> m_trackIndex;
    std::string m_trackKey;
    struct RecentTrack {
        std::string pid, tid;
        uint32_t track = 0;
    };
    std::array<RecentTrack, 4> m_recentTracks;
    size_t m_recentNext = 0;

    std::map<std::pair<int64_t, StrId>, uint32_t> m_processByPid;  // (pid, pidStr) → index in out.processes
    std::unordered_map<uint32_t, uint32_t> m_threadByTrack;   // track → index in out.threads

    // Reused per-event scratch.
    std::vector<ArgEntry> m_args;
    std::vector<uint8_t> m_argUsed;
    std::string m_residual;
    std::string m_scratch;

    uint64_t m_events = 0;
    uint64_t m_metadata = 0;
    uint64_t m_skipped = 0;
    WarnCounts m_warnCounts{};
    std::array<std::vector<std::string>, static_cast<size_t>(Warn::Count)> m_listed;  // messages listed, per kind
    std::vector<Warn> m_diagKinds;
    std::array<uint64_t, 256> m_phaseCounts{};
};

}  // namespace strobe::core::kineto
