#include "core/formats/rank_builder.h"

#include <algorithm>

namespace strobe::core {

std::pair<TimeNs, TimeNs> clampInterval(int64_t start, int64_t end) {
    const TimeNs ts = std::clamp<int64_t>(start, -kMaxTimeNs, kMaxTimeNs);
    const TimeNs e = std::clamp<int64_t>(end, -kMaxTimeNs, kMaxTimeNs);
    TimeNs dur = e > ts ? e - ts : 0;
    dur = std::min(dur, kMaxDurationNs);
    return {ts, dur};
}

uint32_t RankBuilder::track(int64_t pid, int64_t tid) {
    auto [it, inserted] = m_tracks.emplace(std::make_pair(pid, tid), static_cast<uint32_t>(m_r.tracks.size()));
    if (inserted) {
        Track t;
        t.pid = pid;
        t.tid = tid;
        m_r.tracks.push_back(t);
    }
    return it->second;
}

void RankBuilder::nameProcess(int64_t pid, std::string_view name) {
    if (!m_named.emplace(pid, true).second) return;
    ProcessMeta p;
    p.pid = pid;
    p.name = intern(name);
    m_r.processes.push_back(p);
}

uint32_t RankBuilder::addGpu(const GpuRow& g) {
    GpuTable& t = m_r.gpu;
    const auto row = static_cast<uint32_t>(t.size());
    const auto [ts, dur] = clampInterval(g.ts, g.ts + std::clamp<int64_t>(g.dur, 0, kMaxDurationNs));
    t.ts.push_back(ts);
    t.dur.push_back(dur);
    t.name.push_back(intern(g.name));
    t.cat.push_back(intern(g.cat));
    t.kind.push_back(g.kind);
    t.track.push_back(track(g.device, g.stream));
    t.device.push_back(g.device);
    t.stream.push_back(g.stream);
    t.correlation.push_back(g.correlation);
    t.externalId.push_back(kNone);
    t.gridX.push_back(g.grid[0]);
    t.gridY.push_back(g.grid[1]);
    t.gridZ.push_back(g.grid[2]);
    t.blockX.push_back(g.block[0]);
    t.blockY.push_back(g.block[1]);
    t.blockZ.push_back(g.block[2]);
    t.registers.push_back(g.registers);
    t.sharedMemory.push_back(g.sharedMemory);
    t.bytes.push_back(g.bytes);
    t.args.push_back(kEmptyStr);
    return row;
}

uint32_t RankBuilder::addSlice(const SliceRow& s) {
    SliceTable& t = m_r.slices;
    const auto row = static_cast<uint32_t>(t.size());
    const auto [ts, dur] = clampInterval(s.ts, s.ts + std::clamp<int64_t>(s.dur, 0, kMaxDurationNs));
    t.ts.push_back(ts);
    t.dur.push_back(dur);
    t.name.push_back(intern(s.name));
    t.cat.push_back(intern(s.cat));
    t.kind.push_back(s.kind);
    t.phase.push_back('X');
    t.track.push_back(track(s.pid, s.tid));
    t.externalId.push_back(kNone);
    t.correlation.push_back(s.correlation);
    t.sequence.push_back(kNone);
    t.args.push_back(intern(s.args));
    return row;
}

void RankBuilder::addCounter(uint32_t gpuRow, std::string_view name, double value) {
    m_r.kernelCounters.gpuRow.push_back(gpuRow);
    m_r.kernelCounters.name.push_back(intern(name));
    m_r.kernelCounters.value.push_back(value);
}

void RankBuilder::addSample(TimeNs ts, int16_t device, std::string_view metric, double value) {
    m_r.samples.ts.push_back(std::clamp<int64_t>(ts, -kMaxTimeNs, kMaxTimeNs));
    m_r.samples.device.push_back(device);
    m_r.samples.metric.push_back(intern(metric));
    m_r.samples.value.push_back(value);
}

void RankBuilder::warn(Location where, std::string message) {
    m_r.diagnostics.push_back(Diagnostic{Severity::Warning, std::move(where), std::move(message)});
}

}  // namespace strobe::core
