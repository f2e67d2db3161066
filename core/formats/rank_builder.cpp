#include "core/formats/rank_builder.h"

#include <algorithm>
#include <tuple>

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

GpuRecord gpuRecord(RankData& rank, const GpuRow& g, uint32_t track) {
    GpuRecord r;
    r.ts = g.ts;
    r.dur = g.dur;
    r.name = rank.strings.intern(g.name);
    r.cat = rank.strings.intern(g.cat);
    r.kind = g.kind;
    r.track = track;
    r.device = g.device;
    r.stream = g.stream;
    r.queue = g.queue;
    r.correlation = g.correlation;
    std::copy(std::begin(g.grid), std::end(g.grid), r.grid);
    std::copy(std::begin(g.block), std::end(g.block), r.block);
    r.registers = g.registers;
    r.sharedMemory = g.sharedMemory;
    r.bytes = g.bytes;
    return r;
}

uint32_t RankBuilder::addGpu(const GpuRow& g) {
    GpuRecord r = gpuRecord(m_r, g, track(g.device, g.stream));
    std::tie(r.ts, r.dur) = clampInterval(g.ts, g.ts + std::clamp<int64_t>(g.dur, 0, kMaxDurationNs));
    return m_r.gpu.appendRaw(r);
}

uint32_t RankBuilder::addSlice(const SliceRow& s) {
    const auto [ts, dur] = clampInterval(s.ts, s.ts + std::clamp<int64_t>(s.dur, 0, kMaxDurationNs));
    SliceRecord r;
    r.ts = ts;
    r.dur = dur;
    r.name = intern(s.name);
    r.cat = intern(s.cat);
    r.kind = s.kind;
    r.track = track(s.pid, s.tid);
    r.correlation = s.correlation;
    r.args = intern(s.args);
    return m_r.slices.appendRaw(r);
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
