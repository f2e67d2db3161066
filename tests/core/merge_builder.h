#pragma once
// Builds small RankData by hand for merge tests: every raw column filled, derived columns left to the merge.

#include <string>
#include <string_view>

#include "core/model/dataset.h"

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
        auto& s = m_rank.slices;
        s.ts.push_back(ts);
        s.dur.push_back(dur);
        s.name.push_back(m_rank.strings.intern(name));
        s.cat.push_back(m_rank.strings.intern(toString(kind)));
        s.kind.push_back(kind);
        s.phase.push_back('X');
        s.track.push_back(track);
        s.externalId.push_back(externalId);
        s.correlation.push_back(correlation);
        s.sequence.push_back(kNone);
        s.args.push_back(args.empty() ? kEmptyStr : m_rank.strings.intern(args));
        return static_cast<int32_t>(s.size() - 1);
    }

    int32_t gpu(std::string_view name, EventKind kind, uint32_t track, TimeNs ts, TimeNs dur, int64_t correlation,
                int16_t device = 0, int32_t stream = 7, int64_t externalId = kNone) {
        auto& g = m_rank.gpu;
        g.ts.push_back(ts);
        g.dur.push_back(dur);
        g.name.push_back(m_rank.strings.intern(name));
        g.cat.push_back(m_rank.strings.intern(toString(kind)));
        g.kind.push_back(kind);
        g.track.push_back(track);
        g.device.push_back(device);
        g.stream.push_back(stream);
        g.correlation.push_back(correlation);
        g.externalId.push_back(externalId);
        for (auto* c : {&g.gridX, &g.gridY, &g.gridZ, &g.blockX, &g.blockY, &g.blockZ, &g.registers,
                        &g.sharedMemory})
            c->push_back(1);
        g.bytes.push_back(0);
        g.args.push_back(kEmptyStr);
        return static_cast<int32_t>(g.size() - 1);
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
