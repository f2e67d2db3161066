#include "core/formats/rank_builder.h"

#include <algorithm>
#include <tuple>
#include <type_traits>
#include <vector>

namespace strobe::core {

std::pair<TimeNs, TimeNs> clampInterval(int64_t start, int64_t end) {
    const TimeNs ts = std::clamp<int64_t>(start, -kMaxTimeNs, kMaxTimeNs);
    const TimeNs e = std::clamp<int64_t>(end, -kMaxTimeNs, kMaxTimeNs);
    TimeNs dur = e > ts ? e - ts : 0;
    dur = std::min(dur, kMaxDurationNs);
    return {ts, dur};
}

uint32_t RankBuilder::track(int64_t pid, int64_t tid) {
    if (m_lastTrack != UINT32_MAX && pid == m_lastPid && tid == m_lastTid) return m_lastTrack;
    auto [it, inserted] = m_tracks.emplace(std::make_pair(pid, tid), static_cast<uint32_t>(m_r.tracks.size()));
    if (inserted) {
        Track t;
        t.pid = pid;
        t.tid = tid;
        m_r.tracks.push_back(t);
    }
    m_lastPid = pid;
    m_lastTid = tid;
    m_lastTrack = it->second;
    return it->second;
}

StrId RankBuilder::internCached(std::string_view s) {
    // Slot by length and the first and last bytes: no hash of the whole text when the slot holds it.
    size_t key = s.size() * 31;
    if (!s.empty()) key += static_cast<unsigned char>(s.front()) * 7u + static_cast<unsigned char>(s.back());
    StrId& slot = m_internSlots[key % kInternSlots];
    if (slot != 0 && m_r.strings.view(slot - 1) == s) return slot - 1;
    const StrId id = m_r.strings.intern(s);
    slot = id + 1;
    return id;
}

void RankBuilder::nameProcess(int64_t pid, std::string_view name) {
    if (!m_named.emplace(pid, true).second) return;
    ProcessMeta p;
    p.pid = pid;
    p.name = intern(name);
    m_r.processes.push_back(p);
}

namespace {

template <class Intern>
GpuRecord gpuRecordWith(const GpuRow& g, uint32_t track, Intern&& intern) {
    GpuRecord r;
    r.ts = g.ts;
    r.dur = g.dur;
    r.name = intern(g.name);
    r.cat = intern(g.cat);
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

}  // namespace

namespace {

// Appends `part`'s rows of one table to `into`'s: columns of the table's raw length (the derived ones are still
// empty), string and track columns through the maps.
template <class Table>
void appendTableRows(Table& into, Table& part, const std::vector<StrId>& strings, const std::vector<uint32_t>& tracks) {
    const size_t rows = part.size();
    if (rows == 0) return;
    std::vector<void*> from;
    part.visitColumns([&](const char*, auto& col) { from.push_back(static_cast<void*>(&col)); });
    size_t index = 0;
    const size_t base = into.size();
    into.visitColumns([&](const char* name, auto& col) {
        using C = std::decay_t<decltype(col)>;
        using T = typename C::value_type;
        C& src = *static_cast<C*>(from[index++]);
        if (src.size() != rows || col.size() != base) return;  // a derived column, filled by the merge
        if (base == 0)
            col = std::move(src);  // nothing before it: the part's column becomes the rank's, not copied
        else
            col.mut().insert(col.mut().end(), src.begin(), src.end());
        auto& out = col.mut();
        if constexpr (std::is_same_v<T, uint32_t>) {
            const std::string_view n(name);
            const std::vector<uint32_t>* map = n == "track" ? &tracks
                                               : (n == "name" || n == "cat" || n == "args") ? &strings
                                                                                            : nullptr;
            if (map != nullptr)
                for (size_t i = base; i < out.size(); ++i) out[i] = (*map)[out[i]];
        }
        src = C();
    });
}

}  // namespace

uint32_t appendRankPart(RankData& into, RankData& part, const std::function<uint32_t(const Track&)>& trackOf) {
    std::vector<StrId> strings(part.strings.size());
    for (StrId i = 0; i < part.strings.size(); ++i) strings[i] = into.strings.intern(part.strings.view(i));
    std::vector<uint32_t> tracks(part.tracks.size());
    for (size_t t = 0; t < part.tracks.size(); ++t) tracks[t] = trackOf(part.tracks[t]);
    const auto first = static_cast<uint32_t>(into.gpu.size());
    appendTableRows(into.gpu, part.gpu, strings, tracks);
    appendTableRows(into.slices, part.slices, strings, tracks);
    for (Diagnostic& d : part.diagnostics) into.diagnostics.push_back(std::move(d));
    part.diagnostics.clear();
    return first;
}

uint32_t RankBuilder::appendPart(RankData& part) {
    return appendRankPart(m_r, part, [this](const Track& t) { return track(t.pid, t.tid); });
}

GpuRecord gpuRecord(RankData& rank, const GpuRow& g, uint32_t track) {
    return gpuRecordWith(g, track, [&rank](std::string_view s) { return rank.strings.intern(s); });
}

uint32_t RankBuilder::addGpu(const GpuRow& g) {
    GpuRecord r = gpuRecordWith(g, track(g.device, g.stream), [this](std::string_view s) { return internCached(s); });
    std::tie(r.ts, r.dur) = clampInterval(g.ts, g.ts + std::clamp<int64_t>(g.dur, 0, kMaxDurationNs));
    return m_r.gpu.appendRaw(r);
}

uint32_t RankBuilder::addSlice(const SliceRow& s) {
    const auto [ts, dur] = clampInterval(s.ts, s.ts + std::clamp<int64_t>(s.dur, 0, kMaxDurationNs));
    SliceRecord r;
    r.ts = ts;
    r.dur = dur;
    r.name = internCached(s.name);
    r.cat = internCached(s.cat);
    r.kind = s.kind;
    r.track = track(s.pid, s.tid);
    r.correlation = s.correlation;
    r.args = intern(s.args);
    return m_r.slices.appendRaw(r);
}

void RankBuilder::addCounter(uint32_t gpuRow, std::string_view name, double value) {
    m_r.kernelCounters.gpuRow.push_back(gpuRow);
    m_r.kernelCounters.name.push_back(internCached(name));
    m_r.kernelCounters.value.push_back(value);
}

void RankBuilder::addSample(TimeNs ts, int16_t device, std::string_view metric, double value) {
    m_r.samples.ts.push_back(std::clamp<int64_t>(ts, -kMaxTimeNs, kMaxTimeNs));
    m_r.samples.device.push_back(device);
    m_r.samples.metric.push_back(internCached(metric));
    m_r.samples.value.push_back(value);
}

void RankBuilder::warn(Location where, std::string message) {
    m_r.diagnostics.push_back(Diagnostic{Severity::Warning, std::move(where), std::move(message)});
}

}  // namespace strobe::core
