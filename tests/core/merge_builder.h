#pragma once
// Builds small RankData by hand for merge tests: every raw column filled, derived columns left to the merge.

#include <string>
#include <string_view>

#include "core/model/dataset.h"
#include "tests/core/raw_rows.h"

namespace strobe::core::testing {

class RankBuilder {
public:
    RankBuilder() { m_rank.path = "hand-made"; }

    uint32_t track(int64_t pid, int64_t tid) {
        m_rank.tracks.push_back(Track{pid, tid, kEmptyStr, kEmptyStr});
        return static_cast<uint32_t>(m_rank.tracks.size() - 1);
    }

    int32_t slice(std::string_view name, EventKind kind, uint32_t track, TimeNs ts, TimeNs dur,
                  int64_t externalId = kNone, int64_t correlation = kNone, std::string_view args = {}) {
        return static_cast<int32_t>(rawrows::appendSlice(
            m_rank, {.name = name, .cat = toString(kind), .kind = kind, .track = track, .ts = ts, .dur = dur,
                     .externalId = externalId, .correlation = correlation, .args = args}));
    }

    int32_t gpu(std::string_view name, EventKind kind, uint32_t track, TimeNs ts, TimeNs dur, int64_t correlation,
                int16_t device = 0, int32_t stream = 7, int64_t externalId = kNone) {
        return static_cast<int32_t>(rawrows::appendGpu(
            m_rank, {.name = name, .cat = toString(kind), .kind = kind, .track = track, .ts = ts, .dur = dur,
                     .device = device, .stream = stream, .externalId = externalId, .correlation = correlation}));
    }

    void flow(std::string_view cat, char phase, int64_t id, uint32_t track, TimeNs ts) {
        auto& f = m_rank.flows;
        f.id.push_back(id);
        f.ts.push_back(ts);
        f.track.push_back(track);
        f.phase.push_back(phase);
        f.cat.push_back(m_rank.strings.intern(cat));
        f.name.push_back(m_rank.strings.intern(cat));
        f.bindEnclosing.push_back(1);
    }

    RankData& rank() { return m_rank; }

private:
    RankData m_rank;
};

}  // namespace strobe::core::testing
