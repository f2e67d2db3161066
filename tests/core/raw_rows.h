#pragma once
// Appends one row to a RankData's raw slice or GPU columns, every raw column filled as a loader fills it (derived
// columns are left alone). Shared by the hand-made ranks of the analysis and merge tests.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/model/dataset.h"

namespace strobe::core::rawrows {

// One slice or GPU activity. device, stream and bytes only go into the GPU columns.
struct EventRow {
    std::string_view name;
    std::string_view cat;
    EventKind kind;
    uint32_t track;
    TimeNs ts;
    TimeNs dur;
    int16_t device = 0;
    int32_t stream = 7;
    int64_t externalId = kNone;
    int64_t correlation = kNone;
    int64_t bytes = 0;
    std::string_view args = {};  // empty: no args
};

// The columns slices and GPU activities both have.
template <class Table>
void appendCommon(RankData& r, Table& t, const EventRow& row) {
    t.ts.push_back(row.ts);
    t.dur.push_back(row.dur);
    t.name.push_back(r.strings.intern(row.name));
    t.cat.push_back(r.strings.intern(row.cat));
    t.kind.push_back(row.kind);
    t.track.push_back(row.track);
    t.externalId.push_back(row.externalId);
    t.correlation.push_back(row.correlation);
    t.args.push_back(row.args.empty() ? kEmptyStr : r.strings.intern(row.args));
}

// Returns the new slice's index.
inline size_t appendSlice(RankData& r, const EventRow& row) {
    appendCommon(r, r.slices, row);
    r.slices.phase.push_back('X');
    r.slices.sequence.push_back(kNone);
    return r.slices.ts.size() - 1;
}

// Returns the new GPU row's index. Launch geometry, registers and shared memory are all 1.
inline size_t appendGpu(RankData& r, const EventRow& row) {
    auto& g = r.gpu;
    appendCommon(r, g, row);
    g.device.push_back(row.device);
    g.stream.push_back(row.stream);
    g.queue.push_back(-1);
    for (auto* c : {&g.gridX, &g.gridY, &g.gridZ, &g.blockX, &g.blockY, &g.blockZ, &g.registers, &g.sharedMemory})
        c->push_back(1);
    g.bytes.push_back(row.bytes);
    return g.ts.size() - 1;
}

}  // namespace strobe::core::rawrows
