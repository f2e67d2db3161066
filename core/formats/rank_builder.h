#pragma once
// RankBuilder: what every non-Kineto loader needs to append rows to a RankData's raw columns (derived columns are
// left for core/merge's mergeRank): tracks by (pid, tid), process names, GPU activities and slices with every raw
// column filled, so that each table's columns keep one length. Times are ns on the source's own clock.

#include <cstdint>
#include <functional>
#include <array>
#include <map>
#include <memory>
#include <string_view>
#include <utility>

#include "core/model/dataset.h"

namespace strobe::core {

struct GpuRow {
    TimeNs ts = 0;
    TimeNs dur = 0;
    std::string_view name;
    std::string_view cat;
    EventKind kind = EventKind::Kernel;
    int16_t device = 0;
    int32_t stream = 0;
    int32_t queue = -1;  // the HSA queue (rocprof sources), -1: none
    int64_t correlation = kNone;
    int32_t grid[3] = {0, 0, 0};
    int32_t block[3] = {0, 0, 0};
    int32_t registers = 0;
    int32_t sharedMemory = 0;
    int64_t bytes = 0;
};

struct SliceRow {
    TimeNs ts = 0;
    TimeNs dur = 0;
    std::string_view name;
    std::string_view cat;
    EventKind kind = EventKind::Unknown;
    int64_t pid = 0;
    int64_t tid = 0;
    int64_t correlation = kNone;
    std::string_view args;  // JSON object text, "" when none
};

class RankBuilder {
public:
    explicit RankBuilder(RankData& r) : m_r(r) {}
    RankData& rank() { return m_r; }
    StrId intern(std::string_view s) { return m_r.strings.intern(s); }
    uint32_t track(int64_t pid, int64_t tid);
    void nameProcess(int64_t pid, std::string_view name);
    // Appends a GPU activity (track: pid = device, tid = stream, like Kineto's GPU tracks); returns its row.
    // Times are clamped into Strobe's valid range (kMaxTimeNs, kMaxDurationNs; a negative duration becomes 0).
    uint32_t addGpu(const GpuRow& g);
    uint32_t addSlice(const SliceRow& s);
    void addCounter(uint32_t gpuRow, std::string_view name, double value);
    void addSample(TimeNs ts, int16_t device, std::string_view metric, double value);
    void warn(Location where, std::string message);

    // appendRankPart into this builder's rank, the part's tracks through track().
    uint32_t appendPart(RankData& part);

private:
    // intern() through a small direct-mapped cache of ids (checked by content, so a view into a reused buffer is
    // safe): a loader's rows repeat a few categories and kernel names, and the pool's hash-table probe was a tenth
    // of a large CSV's load. The pool's order of first appearance, and so every id, is unchanged.
    StrId internCached(std::string_view s);

    RankData& m_r;
    std::map<std::pair<int64_t, int64_t>, uint32_t> m_tracks;
    std::map<int64_t, bool> m_named;
    int64_t m_lastPid = 0, m_lastTid = 0;  // the last track looked up (rows of a table mostly share one)
    uint32_t m_lastTrack = UINT32_MAX;
    static constexpr size_t kInternSlots = 256;
    std::array<StrId, kInternSlots> m_internSlots{};  // + 1: 0 is an empty slot
};

// The rows a loader read from a later part of the same source on another thread (a chunk of a large CSV, a table
// read on a second connection) appended after `into`'s rows as if one reader had read them all: the part's strings
// join `into`'s pool in the part's order of first appearance (so every id is what a sequential read gives), its
// tracks through `trackOf` (which finds or adds the track in `into`, in the loader's own way), its GPU rows and
// slices follow with strings and tracks renumbered (moved, not copied, into a table that is still empty), its
// diagnostics are added. The part holds GPU rows and slices only; they are emptied. Returns the row the part's
// first GPU row got.
uint32_t appendRankPart(RankData& into, RankData& part, const std::function<uint32_t(const Track&)>& trackOf);

// The row as the table stores it: strings interned in `rank`, on `track`; times as given.
GpuRecord gpuRecord(RankData& rank, const GpuRow& g, uint32_t track);

// ts and dur clamped into Strobe's valid range (types.h): |ts| <= kMaxTimeNs, 0 <= dur <= kMaxDurationNs.
std::pair<TimeNs, TimeNs> clampInterval(int64_t start, int64_t end);

}  // namespace strobe::core
