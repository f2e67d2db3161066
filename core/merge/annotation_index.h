#pragma once
// Interval queries over a merged rank: "which slices contain time t on track k", innermost first, by binary
// search over the per-track order the merge stores (SliceTable::byTrack, GpuTable::byTrack) and the parent
// links it derived (SliceTable::parent). Building an index is O(tracks · log n + n / 64) (a sample of start
// times every 64 slices keeps the first search in cache); every query is O(log n + depth). The index only reads
// the RankData, which must outlive it; build it once per rank and share it (queries are const and thread-safe).
// For one query per GPU activity or per slice, prefer a sweep over slicesOn()/gpuOn() (both in time order).
//
// Semantics: a slice contains t when ts <= t < ts + dur (zero-length slices contain nothing). Slices on one
// track are assumed to nest; where a trace has partial overlaps the merge attached the later slice to the
// nearest slice that wholly contains it (and warned), so queries stay consistent with SliceTable::parent.

#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

#include "core/model/dataset.h"

namespace strobe::core {

// A set of EventKinds, for queries that only want, e.g., CPU ops and user annotations.
class KindMask {
public:
    constexpr KindMask() = default;
    constexpr KindMask(std::initializer_list<EventKind> kinds) {
        for (auto k : kinds) m_bits |= bit(k);
    }
    static constexpr KindMask all() {
        KindMask m;
        m.m_bits = ~uint32_t{0};
        return m;
    }
    constexpr bool has(EventKind k) const { return (m_bits & bit(k)) != 0; }

private:
    static constexpr uint32_t bit(EventKind k) { return uint32_t{1} << static_cast<uint32_t>(k); }
    uint32_t m_bits = 0;
};

class AnnotationIndex {
public:
    explicit AnnotationIndex(const RankData& rank);

    const RankData& rank() const { return *m_rank; }
    uint32_t trackCount() const { return static_cast<uint32_t>(m_sliceBegin.size() - 1); }

    // Slices of a track, in (ts asc, dur desc) order. Empty for an unknown track.
    std::span<const uint32_t> slicesOn(uint32_t track) const;
    // GPU activities of a track (a device stream), in ts order. Empty for an unknown track.
    std::span<const uint32_t> gpuOn(uint32_t track) const;

    // Innermost slice of one of `kinds` on `track` that contains t; -1 if none.
    int32_t innermostAt(uint32_t track, TimeNs t, KindMask kinds = KindMask::all()) const;
    // Every slice of one of `kinds` on `track` that contains t, innermost first (cleared first).
    void stackAt(uint32_t track, TimeNs t, std::vector<int32_t>& out, KindMask kinds = KindMask::all()) const;
    // `slice` itself or its nearest enclosing slice of one of `kinds`; -1 if none.
    int32_t enclosing(int32_t slice, KindMask kinds) const;
    // Slices on `track` that overlap [from, to), in start order (the ones open at `from` first, outermost
    // first, then those starting inside the range). For drawing a viewport.
    void overlapping(uint32_t track, TimeNs from, TimeNs to, std::vector<int32_t>& out) const;
    // GPU activities on `track` overlapping [from, to), in ts order.
    std::span<const uint32_t> gpuOverlapping(uint32_t track, TimeNs from, TimeNs to) const;

    // The step (index into rank.steps) containing t (start <= t < end), -1 if none.
    int32_t stepAt(TimeNs t) const;

private:
    // The last slice on `track` starting at or before t, -1 if none.
    int32_t lastStartingAtOrBefore(uint32_t track, TimeNs t) const;

    static constexpr uint32_t kFenceStride = 64;

    const RankData* m_rank;
    std::vector<TimeNs> m_fenceTs;       // ts of slices.byTrack[j * kFenceStride]: a cache-friendly first search
    std::vector<uint32_t> m_sliceBegin;  // per track: first position in slices.byTrack (size tracks + 1)
    std::vector<uint32_t> m_gpuBegin;    // per track: first position in gpu.byTrack (size tracks + 1)
};

}  // namespace strobe::core
