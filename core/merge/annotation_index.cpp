#include "core/merge/annotation_index.h"

#include <algorithm>

namespace strobe::core {

namespace {

template <class TrackCol>
std::vector<uint32_t> trackRanges(const Column<uint32_t>& order, const TrackCol& track, uint32_t tracks) {
    std::vector<uint32_t> begin(static_cast<size_t>(tracks) + 1, static_cast<uint32_t>(order.size()));
    const uint32_t* o = order.data();
    const uint32_t n = static_cast<uint32_t>(order.size());
    uint32_t lo = 0;
    for (uint32_t k = 0; k < tracks; ++k) {
        // First position whose track is >= k (positions are sorted by track).
        const uint32_t* it = std::lower_bound(o + lo, o + n, k, [&](uint32_t row, uint32_t key) {
            return track[row] < key;
        });
        lo = static_cast<uint32_t>(it - o);
        begin[k] = lo;
    }
    begin[tracks] = n;
    return begin;
}

}  // namespace

AnnotationIndex::AnnotationIndex(const RankData& rank) : m_rank(&rank) {
    const auto& s = rank.slices;
    const auto& g = rank.gpu;
    const bool slicesOk = s.byTrack.size() == s.size() && s.parent.size() == s.size();
    const bool gpuOk = g.byTrack.size() == g.size();
    uint32_t tracks = static_cast<uint32_t>(rank.tracks.size());
    if (slicesOk && !s.byTrack.empty()) tracks = std::max(tracks, s.track[s.byTrack[s.byTrack.size() - 1]] + 1);
    if (gpuOk && !g.byTrack.empty()) tracks = std::max(tracks, g.track[g.byTrack[g.byTrack.size() - 1]] + 1);
    if (slicesOk) {
        m_sliceBegin = trackRanges(s.byTrack, s.track, tracks);
        const uint32_t* order = s.byTrack.data();
        const TimeNs* ts = s.ts.data();
        m_fenceTs.reserve(s.byTrack.size() / kFenceStride + 1);
        for (size_t j = 0; j < s.byTrack.size(); j += kFenceStride) m_fenceTs.push_back(ts[order[j]]);
    } else {
        m_sliceBegin.assign(static_cast<size_t>(tracks) + 1, 0);
    }
    if (gpuOk) m_gpuBegin = trackRanges(g.byTrack, g.track, tracks);
    else m_gpuBegin.assign(static_cast<size_t>(tracks) + 1, 0);
}

std::span<const uint32_t> AnnotationIndex::slicesOn(uint32_t track) const {
    if (track + 1 >= m_sliceBegin.size()) return {};
    const uint32_t* base = m_rank->slices.byTrack.data();
    if (base == nullptr) return {};
    return {base + m_sliceBegin[track], base + m_sliceBegin[track + 1]};
}

std::span<const uint32_t> AnnotationIndex::gpuOn(uint32_t track) const {
    if (track + 1 >= m_gpuBegin.size()) return {};
    const uint32_t* base = m_rank->gpu.byTrack.data();
    if (base == nullptr) return {};
    return {base + m_gpuBegin[track], base + m_gpuBegin[track + 1]};
}

int32_t AnnotationIndex::lastStartingAtOrBefore(uint32_t track, TimeNs t) const {
    if (track + 1 >= m_sliceBegin.size()) return -1;
    const uint32_t b = m_sliceBegin[track], e = m_sliceBegin[track + 1];
    if (b == e) return -1;
    // Narrow [b, e) with the fences inside it (positions j * stride in [b, e)), then search the window.
    const uint32_t jb = (b + kFenceStride - 1) / kFenceStride, je = (e + kFenceStride - 1) / kFenceStride;
    const TimeNs* fence = m_fenceTs.data();
    const auto j = static_cast<uint32_t>(std::upper_bound(fence + jb, fence + je, t) - fence);
    const uint32_t lo = j == jb ? b : (j - 1) * kFenceStride;
    const uint32_t hi = j == je ? e : j * kFenceStride;
    const uint32_t* order = m_rank->slices.byTrack.data();
    const TimeNs* ts = m_rank->slices.ts.data();
    const uint32_t* it = std::upper_bound(order + lo, order + hi, t, [&](TimeNs key, uint32_t row) { return key < ts[row]; });
    if (it == order + b) return -1;
    return static_cast<int32_t>(*(it - 1));
}

int32_t AnnotationIndex::innermostAt(uint32_t track, TimeNs t, KindMask kinds) const {
    const auto& s = m_rank->slices;
    const TimeNs* ts = s.ts.data();
    const TimeNs* dur = s.dur.data();
    const int32_t* parent = s.parent.data();
    const EventKind* kind = s.kind.data();
    for (int32_t i = lastStartingAtOrBefore(track, t); i >= 0; i = parent[i]) {
        if (t < ts[i] + dur[i] && kinds.has(kind[i])) return i;
    }
    return -1;
}

void AnnotationIndex::stackAt(uint32_t track, TimeNs t, std::vector<int32_t>& out, KindMask kinds) const {
    out.clear();
    const auto& s = m_rank->slices;
    for (int32_t i = lastStartingAtOrBefore(track, t); i >= 0; i = s.parent[static_cast<size_t>(i)]) {
        const auto u = static_cast<size_t>(i);
        if (t < s.ts[u] + s.dur[u] && kinds.has(s.kind[u])) out.push_back(i);
    }
}

int32_t AnnotationIndex::enclosing(int32_t slice, KindMask kinds) const {
    const auto& s = m_rank->slices;
    if (slice < 0 || static_cast<size_t>(slice) >= s.parent.size()) return -1;
    for (int32_t i = slice; i >= 0; i = s.parent[static_cast<size_t>(i)]) {
        if (kinds.has(s.kind[static_cast<size_t>(i)])) return i;
    }
    return -1;
}

void AnnotationIndex::overlapping(uint32_t track, TimeNs from, TimeNs to, std::vector<int32_t>& out) const {
    out.clear();
    auto span = slicesOn(track);
    const auto& s = m_rank->slices;
    auto first = std::lower_bound(span.begin(), span.end(), from,
                                  [&](uint32_t row, TimeNs key) { return s.ts[row] < key; });
    // Slices open at `from` that started before it: the ancestors (or self) of the last one starting before.
    if (first != span.begin()) {
        for (auto i = static_cast<int32_t>(*(first - 1)); i >= 0; i = s.parent[static_cast<size_t>(i)]) {
            const auto u = static_cast<size_t>(i);
            if (s.ts[u] + s.dur[u] > from) out.push_back(i);
        }
        std::reverse(out.begin(), out.end());
    }
    auto last = std::lower_bound(first, span.end(), to, [&](uint32_t row, TimeNs key) { return s.ts[row] < key; });
    for (auto it = first; it != last; ++it) out.push_back(static_cast<int32_t>(*it));
}

std::span<const uint32_t> AnnotationIndex::gpuOverlapping(uint32_t track, TimeNs from, TimeNs to) const {
    auto span = gpuOn(track);
    const auto& g = m_rank->gpu;
    auto first = std::lower_bound(span.begin(), span.end(), from,
                                  [&](uint32_t row, TimeNs key) { return g.ts[row] < key; });
    // Activities of one stream run one after another: at most the previous one is still running at `from`.
    if (first != span.begin() && g.ts[*(first - 1)] + g.dur[*(first - 1)] > from) --first;
    auto last = std::lower_bound(first, span.end(), to, [&](uint32_t row, TimeNs key) { return g.ts[row] < key; });
    return {first, last};
}

int32_t AnnotationIndex::stepAt(TimeNs t) const {
    const auto& st = m_rank->steps;
    auto starts = st.start.span();
    auto it = std::upper_bound(starts.begin(), starts.end(), t);
    if (it == starts.begin()) return -1;
    auto i = static_cast<size_t>(it - starts.begin() - 1);
    return t < st.end[i] ? static_cast<int32_t>(i) : -1;
}

}  // namespace strobe::core
