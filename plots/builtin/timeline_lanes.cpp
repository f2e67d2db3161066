// Lane building for the GPU timeline (prepare side): per run and rank, steps, GPU annotations, phases and layers
// as bands, and one lane per (device, stream) with overlapping activities packed into sub-lanes.

#include <algorithm>
#include <filesystem>
#include <map>
#include <cmath>
#include <optional>
#include <regex>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/analysis/columns.h"
#include "core/analysis/memory_timeline.h"
#include "core/analysis/phases.h"
#include "core/model/clock_rules.h"
#include "core/model/clock_shifts.h"
#include "plots/builtin/timeline_model.h"
#include "plots/chart.h"

namespace strobe::plots::timeline {

PhaseKind phaseKind(const std::string& phase) {
    if (phase == "forward") return PhaseKind::Forward;
    if (phase == "backward") return PhaseKind::Backward;
    if (phase == "optimizer") return PhaseKind::Optimizer;
    if (phase == "prefill") return PhaseKind::Prefill;
    if (phase == "decode") return PhaseKind::Decode;
    if (phase == "mixed") return PhaseKind::Mixed;
    if (phase == "layer") return PhaseKind::Layer;
    return PhaseKind::Other;
}
QColor phaseColor(PhaseKind k, size_t index) {
    switch (k) {
    case PhaseKind::Forward: return QColor(66, 133, 244, 140);
    case PhaseKind::Backward: return QColor(251, 140, 0, 140);
    case PhaseKind::Optimizer: return QColor(142, 36, 170, 120);
    case PhaseKind::Prefill: return QColor(0, 137, 123, 140);
    case PhaseKind::Decode: return QColor(124, 179, 66, 140);
    case PhaseKind::Mixed: return QColor(141, 110, 99, 140);
    case PhaseKind::Layer: return (index % 2) ? QColor(120, 144, 156, 130) : QColor(176, 190, 197, 130);
    default: return QColor(158, 158, 158, 130);
    }
}

// Packs items (already sorted by start) into sub-lanes where they do not overlap; returns the sub-lane of each.
std::vector<int> packSubLanes(const std::vector<int64_t>& start, const std::vector<int64_t>& end, int maxSub,
                              int64_t toleranceNs, ToleratedOverlaps* tolerated) {
    std::vector<int> sub(start.size(), 0);
    std::vector<int64_t> lastEnd;
    for (size_t i = 0; i < start.size(); ++i) {
        int s = -1;
        for (size_t k = 0; k < lastEnd.size(); ++k)
            if (lastEnd[k] - toleranceNs <= start[i]) {
                s = int(k);
                if (tolerated && lastEnd[k] > start[i]) {
                    ++tolerated->count;
                    tolerated->largestNs = std::max(tolerated->largestNs, lastEnd[k] - start[i]);
                }
                break;
            }
        if (s < 0) {
            if (int(lastEnd.size()) < maxSub) {
                lastEnd.push_back(INT64_MIN);  // times may be negative (runs aligned at a step)
                s = int(lastEnd.size()) - 1;
            } else {
                s = maxSub - 1;  // overflow shares the last sub-lane; the running max end keeps it findable
            }
        }
        lastEnd[size_t(s)] = std::max(lastEnd[size_t(s)], end[i]);
        sub[i] = s;
    }
    return sub;
}

void finishLane(Lane& l) {
    l.maxEnd.resize(l.end.size());
    int64_t m = INT64_MIN;
    for (size_t i = 0; i < l.end.size(); ++i) l.maxEnd[i] = m = std::max(m, l.end[i]);
    l.blocks.assign(l.end.size() / kLodBlock, {});
    for (size_t blk = 0; blk < l.blocks.size(); ++blk) {
        auto& b = l.blocks[blk];
        const size_t k0 = blk * kLodBlock;
        int64_t longest = -1;
        for (size_t i = k0; i < k0 + kLodBlock; ++i)
            if (l.end[i] - l.start[i] > longest) {
                longest = l.end[i] - l.start[i];
                b.arg = uint32_t(i);
            }
        const int64_t span = l.start[k0 + kLodBlock - 1] - l.start[k0];
        constexpr int64_t kMax = UINT32_MAX;
        b.first = l.start[k0];
        b.span = uint32_t(std::clamp<int64_t>(span, 0, kMax));
        b.maxDur = uint32_t(std::clamp<int64_t>(longest, 0, kMax));
        if (span >= kMax) b.maxDur = uint32_t(kMax);
        b.cat = l.cat.size() > b.arg ? l.cat[b.arg] : 0;
    }
}

// Items of `l` that intersect [t0, t1).
std::pair<size_t, size_t> visibleRange(const Lane& l, int64_t t0, int64_t t1) {
    size_t a = size_t(std::upper_bound(l.maxEnd.begin(), l.maxEnd.end(), t0) - l.maxEnd.begin());
    size_t b = size_t(std::lower_bound(l.start.begin(), l.start.end(), t1) - l.start.begin());
    return {a, std::max(a, b)};
}

std::vector<LegendEntry> categoryLegend(const TimelinePrepared& p) {
    constexpr size_t n = size_t(core::KernelCategory::Count);
    bool present[n] = {};
    for (const auto& lane : p.lanes)
        if (lane.kind == LaneKind::Stream)
            for (auto cat : lane.cat) present[std::min<size_t>(cat, n - 1)] = true;
    std::vector<LegendEntry> entries;
    for (size_t k = 0; k < n; ++k)
        if (present[k])
            entries.push_back({std::string(core::toString(core::KernelCategory(k))), categoryColor(core::KernelCategory(k))});
    return entries;
}

QColor hashColor(uint32_t id) {
    uint32_t h = id * 2654435761u;
    return QColor::fromHsv(int(h % 360), 110 + int((h >> 9) % 100), 170 + int((h >> 17) % 60));
}

namespace {

// A "phases" lane (forward/backward/optimizer, prefill/decode; overlaps go to a second sub-lane) and a
// "layers" lane for rank `r`, from the rows of core::phaseStructure.
void addPhaseLanes(TimelinePrepared& out, const core::Table& t, size_t run, const core::RankData& r,
                          const std::string& rlabel, int64_t origin) {
    struct Band {
        int64_t start, end;
        PhaseKind kind;
        uint32_t name;
    };
    std::vector<Band> phases, layers;
    for (size_t i = 0; i < t.rows.size(); ++i) {
        if (int64_t(core::Table::number(t.at(i, core::col::kRank), -1)) != r.rank) continue;
        const PhaseKind k = phaseKind(core::Table::text(t.at(i, core::col::kPhase)));
        if (k == PhaseKind::Other) continue;  // steps have their own lane; "layers" summaries are not bands
        // On the GPU timeline a phase is where the GPU did its work (what it launched in its CPU interval); a
        // phase that launched nothing is shown at its CPU time (one clock per rank), and says so.
        const core::Cell& gs = t.at(i, core::col::kGpuStartNs);
        const core::Cell& ge = t.at(i, core::col::kGpuEndNs);
        const bool onGpu = !std::holds_alternative<std::monostate>(gs) && !std::holds_alternative<std::monostate>(ge);
        const auto start = int64_t(core::Table::number(onGpu ? gs : t.at(i, core::col::kStartNs))) - origin;
        const auto end = int64_t(core::Table::number(onGpu ? ge : t.at(i, core::col::kEndNs))) - origin;
        if (end < start) continue;
        std::string name = core::Table::text(t.at(i, core::col::kName));
        if (const auto step = core::Table::text(t.at(i, core::col::kStep)); !step.empty() && k != PhaseKind::Layer)
            name += " (step " + step + ")";
        if (!onGpu) name += ", no GPU work: CPU time";
        out.bandNames.push_back(std::move(name));
        (k == PhaseKind::Layer ? layers : phases)
            .push_back({start, end, k, uint32_t(out.bandNames.size() - 1)});
    }
    auto addLanes = [&](std::vector<Band>& bands, LaneKind kind, const std::string& label, int maxSub) {
        std::sort(bands.begin(), bands.end(), [](const Band& a, const Band& b) { return a.start < b.start; });
        std::vector<int64_t> st, en;
        for (const auto& b : bands) {
            st.push_back(b.start);
            en.push_back(b.end);
        }
        auto sub = packSubLanes(st, en, maxSub);
        const int nsub = sub.empty() ? 0 : *std::max_element(sub.begin(), sub.end()) + 1;
        for (int s = 0; s < nsub; ++s) {
            Lane l;
            l.kind = kind;
            l.run = run;
            l.rank = &r;
            l.rankNumber = r.rank;
            l.sub = s;
            l.label = s == 0 ? rlabel + " " + label : "";
            for (size_t k = 0; k < bands.size(); ++k)
                if (sub[k] == s) {
                    l.start.push_back(bands[k].start);
                    l.end.push_back(bands[k].end);
                    l.cat.push_back(uint8_t(bands[k].kind));
                    l.src.push_back(bands[k].name);
                }
            finishLane(l);
            out.lanes.push_back(std::move(l));
        }
    };
    addLanes(phases, LaneKind::Phases, "phases", 2);
    addLanes(layers, LaneKind::Layers, "layers", 1);
}

// Memory lanes (issue 27): per device of the rank's memory events (core::memoryTimeline: Kineto [memory], rocprofv3
// allocations; a host's smi samples give its devices' used memory), its allocated and (Kineto) its
// reserved bytes as telemetry-style lanes: each event's "Total Allocated" / "Total Reserved" held until the next
// event (the last for the median interval), scaled from 0 to the lane's largest value.
void addMemoryLanes(TimelinePrepared& out, const core::RankData& r, size_t run, int64_t origin,
                    const std::string& rlabel) {
    const core::MemoryTimeline tl = core::memoryTimeline(r);
    for (const core::MemoryDevice& d : tl.devices) {
        const auto& ev = d.events;
        if (ev.empty()) continue;
        std::vector<int64_t> gaps;
        for (size_t k = 1; k < ev.size(); ++k) gaps.push_back(ev[k].ts - ev[k - 1].ts);
        std::sort(gaps.begin(), gaps.end());
        const int64_t lastGap = gaps.empty() ? 1 : std::max<int64_t>(1, gaps[gaps.size() / 2]);
        for (const bool reserved : {false, true}) {
            if (reserved && !d.hasReserved()) continue;  // rocprofv3 and smi: one curve
            Lane l;
            l.kind = LaneKind::Telemetry;
            l.run = run;
            l.rank = &r;
            l.rankNumber = r.rank;
            l.device = d.device >= 0 ? int(d.device) : -1;
            l.metric = reserved ? "reserved_bytes" : d.source == core::MemorySource::Smi ? "used_bytes" : "allocated_bytes";
            l.label = d.source == core::MemorySource::Kineto
                          ? fmt::format("{} {}:{} {}", rlabel, core::memoryDeviceTypeName(d.deviceType), d.device, l.metric)
                          : fmt::format("{} {}:{} {} ({})", rlabel, core::memoryDeviceTypeName(d.deviceType), d.device,
                                        l.metric, core::memorySourceName(d.source));
            l.vmin = 0;
            l.vmax = 0;
            for (size_t k = 0; k < ev.size(); ++k) {
                const int64_t t = ev[k].ts - origin;
                const double v = double(reserved ? ev[k].reserved : ev[k].allocated);
                l.start.push_back(t);
                l.end.push_back(k + 1 < ev.size() ? ev[k + 1].ts - origin : t + lastGap);
                l.value.push_back(v);
                l.src.push_back(ev[k].slice);
                l.cat.push_back(0);
                l.vmax = std::max(l.vmax, v);
            }
            if (l.vmax <= 0) continue;  // nothing reserved (the CPU's allocator reserves nothing)
            out.fullEnd = std::max(out.fullEnd, l.end.back());
            finishLane(l);
            out.lanes.push_back(std::move(l));
        }
    }
}

// One lane per (device, metric) of the rank's telemetry samples for the metrics asked for, in that order: each
// sample's value holds until the next sample of the lane (the last one for the lane's median interval).
void addTelemetryLanes(TimelinePrepared& out, const core::RankData& r, size_t run, int64_t origin,
                       const std::string& rlabel, const std::vector<std::string>& metrics) {
    const auto& s = r.samples;
    if (s.size() == 0 || metrics.empty()) return;
    std::map<std::pair<size_t, int>, std::vector<uint32_t>> rows;  // (metric's place in `metrics`, device) → rows
    std::map<uint32_t, int> metricPlace;                            // string id → place, -1 when not asked for
    for (uint32_t i = 0; i < s.size(); ++i) {
        auto [it, added] = metricPlace.try_emplace(s.metric[i], -1);
        if (added) {
            const auto name = r.strings.view(s.metric[i]);
            for (size_t m = 0; m < metrics.size(); ++m)
                if (metrics[m] == name) it->second = int(m);
        }
        if (it->second >= 0 && std::isfinite(s.value[i])) rows[{size_t(it->second), s.device[i]}].push_back(i);
    }
    for (auto& [key, idx] : rows) {
        std::stable_sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) { return s.ts[a] < s.ts[b]; });
        std::vector<int64_t> gaps;
        for (size_t k = 1; k < idx.size(); ++k) gaps.push_back(s.ts[idx[k]] - s.ts[idx[k - 1]]);
        std::sort(gaps.begin(), gaps.end());
        const int64_t lastGap = gaps.empty() ? 1 : std::max<int64_t>(1, gaps[gaps.size() / 2]);
        Lane l;
        l.kind = LaneKind::Telemetry;
        l.run = run;
        l.rank = &r;
        l.rankNumber = r.rank;
        l.device = key.second;
        l.metric = metrics[key.first];
        l.label = key.second >= 0 ? fmt::format("{} GPU {} {}", rlabel, key.second, l.metric)
                                  : fmt::format("{} {}", rlabel, l.metric);
        l.vmin = INFINITY;
        l.vmax = -INFINITY;
        for (size_t k = 0; k < idx.size(); ++k) {
            const int64_t t = s.ts[idx[k]] - origin;
            l.start.push_back(t);
            l.end.push_back(k + 1 < idx.size() ? s.ts[idx[k + 1]] - origin : t + lastGap);
            l.value.push_back(s.value[idx[k]]);
            l.src.push_back(idx[k]);
            l.cat.push_back(0);
            l.vmin = std::min(l.vmin, s.value[idx[k]]);
            l.vmax = std::max(l.vmax, s.value[idx[k]]);
        }
        out.fullEnd = std::max(out.fullEnd, l.end.back());
        finishLane(l);
        out.lanes.push_back(std::move(l));
    }
}

// A CPU thread's label: its name (Kineto thread_name, nsys ThreadNames) with its id, "thread <tid>" without one;
// the process's name when it differs from the thread's ("python3 · pt_autograd_0 (51307)").
std::string threadLabel(const core::RankData& r, uint32_t track) {
    const core::Track tr = track < r.tracks.size() ? r.tracks[track] : core::Track{};
    const std::string tid = tr.tidStr != core::kEmptyStr ? std::string(r.strings.view(tr.tidStr)) : std::to_string(tr.tid);
    std::string thread, process;
    for (const auto& t : r.threads)
        if (t.track == track && t.name != core::kEmptyStr) thread = std::string(r.strings.view(t.name));
    for (const auto& p : r.processes)
        if (p.name != core::kEmptyStr && p.pid == tr.pid && p.pidStr == tr.pidStr) process = std::string(r.strings.view(p.name));
    if (thread == tid) thread.clear();
    std::string out = process.empty() || process == thread ? std::string() : process + " · ";
    if (thread.empty()) return out + fmt::format("thread {}", tid);
    // Kineto's names carry the id already ("thread 4037 (python3.8)"); others get it beside ("cuda-EvtHandlr (77)").
    return out + (thread.find(tid) != std::string::npos ? thread : fmt::format("{} ({})", thread, tid));
}

// One lane per CPU thread (track) with slices and per nesting depth (sub = depth), slices sorted by start; slices
// at one depth of one track do not overlap, so the running maximum of ends finds them like on the streams.
void addCpuLanes(TimelinePrepared& out, const core::RankData& r, size_t run, int64_t origin, const std::string& rlabel) {
    const auto& s = r.slices;
    std::map<std::pair<uint32_t, int>, std::vector<uint32_t>> rows;  // (track, depth) → slices
    for (uint32_t i = 0; i < s.size(); ++i)
        if (isCpuLaneKind(s.kind[i])) rows[{s.track[i], s.depth.size() == s.size() ? int(s.depth[i]) : 0}].push_back(i);
    std::map<uint32_t, int> depthsOf;
    for (const auto& [key, idx] : rows) depthsOf[key.first] = std::max(depthsOf[key.first], key.second + 1);
    // Threads in the order of their (pid, tid), numbers then names: a track's index is the order a parallel parse
    // met it, which may differ from one load to the next.
    auto trackKey = [&](uint32_t t) {
        const core::Track tr = t < r.tracks.size() ? r.tracks[t] : core::Track{};
        return std::tuple(tr.pid, tr.tid, r.strings.view(tr.pidStr), r.strings.view(tr.tidStr));
    };
    std::vector<std::pair<const std::pair<uint32_t, int>, std::vector<uint32_t>>*> ordered;
    for (auto& row : rows) ordered.push_back(&row);
    std::stable_sort(ordered.begin(), ordered.end(), [&](const auto* a, const auto* b) {
        const auto ka = trackKey(a->first.first), kb = trackKey(b->first.first);
        return ka != kb ? ka < kb : a->first < b->first;
    });
    for (auto* row : ordered) {
        const auto& key = row->first;
        auto& idx = row->second;
        std::stable_sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) { return s.ts[a] < s.ts[b]; });
        Lane l;
        l.kind = LaneKind::Cpu;
        l.run = run;
        l.rank = &r;
        l.rankNumber = r.rank;
        l.sub = key.second;
        l.thread = fmt::format("{} {}", rlabel, threadLabel(r, key.first));
        l.depths = depthsOf[key.first];
        l.label = key.second == 0 ? l.thread : fmt::format("  depth {}", key.second);
        for (auto i : idx) {
            l.start.push_back(s.ts[i] - origin);
            l.end.push_back(s.ts[i] + std::max<int64_t>(0, s.dur[i]) - origin);
            l.cat.push_back(uint8_t(s.kind[i]));
            l.src.push_back(i);
            out.fullEnd = std::max(out.fullEnd, l.end.back());
        }
        finishLane(l);
        out.lanes.push_back(std::move(l));
    }
}

using core::clockShifts;  // core/model/clock_shifts.h: the critical path computes on the same shifts

bool timed(const core::RankData& r) { return r.gpu.size() + r.slices.size() + r.samples.size() > 0; }

// Per source of `ds` (ds.allSources()): true when its clock cannot be related to that of the run's reference source
// (the first with GPU activities or steps, else the first with timed rows) by the clock rules
// (core/model/clock_rules.h): nvidia-smi's zone-less local time or rocprof's boot time beside a Kineto trace, without
// a manifest anchor or a clock offset. Such a source is left off the axis (and named in the timeline's note) rather
// than drawn at a meaningless place.
std::vector<bool> unrelatedClocks(const core::Dataset& ds) {
    const auto all = ds.allSources();
    std::vector<bool> out(all.size(), false);
    const core::RankData* ref = nullptr;
    for (const core::RankData* r : all)
        if (r && (r->gpu.size() > 0 || r->steps.size() > 0)) {
            ref = r;
            break;
        }
    if (!ref)
        for (const core::RankData* r : all)
            if (r && timed(*r)) {
                ref = r;
                break;
            }
    if (!ref) return out;
    for (size_t i = 0; i < all.size(); ++i)
        out[i] = all[i] && timed(*all[i]) && !core::clocksRelate(ref->info.clock, all[i]->info.clock);
    return out;
}

// The run's natural origin: its first event of any source drawn on the timeline (GPU activity, step, CPU slice
// or GPU annotation; a run of telemetry only: its first sample), so that every event is at t >= 0.
int64_t naturalOrigin(const core::Dataset& ds, const LaneOptions& options) {
    int64_t origin = INT64_MAX;
    const auto shift = clockShifts(ds);
    const auto unrelated = unrelatedClocks(ds);
    for (size_t i = 0; i < ds.ranks.size(); ++i) {
        const auto& r = ds.ranks[i];
        if (!r || !rankSelected(options.ranks, r->rank) || unrelated[i]) continue;
        for (auto t : r->gpu.ts) origin = std::min(origin, t + shift[i]);
        if (r->steps.size()) origin = std::min(origin, r->steps.start[0] + shift[i]);
        const auto& sl = r->slices;
        for (size_t k = 0; k < sl.size(); ++k)
            if (sl.kind[k] == core::EventKind::GpuUserAnnotation || (options.cpuLanes && isCpuLaneKind(sl.kind[k])))
                origin = std::min(origin, sl.ts[k] + shift[i]);
    }
    if (origin == INT64_MAX) {
        const auto all = ds.allSources();  // host telemetry belongs to every selected rank's host
        for (size_t i = 0; i < all.size(); ++i)
            if (all[i] && (i >= ds.ranks.size() || rankSelected(options.ranks, all[i]->rank)) && !unrelated[i] &&
                !options.telemetry.empty())
                for (auto t : all[i]->samples.ts) origin = std::min(origin, t + shift[i]);
    }
    return origin == INT64_MAX ? 0 : origin;
}

std::string stepName(const StepAlign& a) {
    return a.mode == StepAlign::Mode::Step ? fmt::format("ProfilerStep#{}", a.step) : std::string("first ProfilerStep");
}

// The absolute start of the step the run is aligned at: ProfilerStep#N (first step: the lowest N the run has),
// its earliest start over the selected ranks; none when the run lacks it.
std::optional<int64_t> alignedOrigin(const core::Dataset& ds, const LaneOptions& options) {
    int64_t number = options.align.step;
    if (options.align.mode == StepAlign::Mode::FirstStep) {
        number = INT64_MAX;
        for (const auto& r : ds.ranks)
            if (r && rankSelected(options.ranks, r->rank))
                for (size_t k = 0; k < r->steps.size(); ++k) number = std::min<int64_t>(number, r->steps.number[k]);
    }
    std::optional<int64_t> start;
    const auto shift = clockShifts(ds);
    const auto unrelated = unrelatedClocks(ds);
    for (size_t i = 0; i < ds.ranks.size(); ++i) {
        const auto& r = ds.ranks[i];
        if (!r || !rankSelected(options.ranks, r->rank) || unrelated[i]) continue;
        for (size_t k = 0; k < r->steps.size(); ++k)
            if (r->steps.number[k] == number)
                start = std::min(start.value_or(INT64_MAX), int64_t(r->steps.start[k]) + shift[i]);
    }
    return start;
}

// The lanes of each host's telemetry (core::Dataset::hosts), drawn under the run's ranks: a host's lanes follow
// every rank of the run (sources name no host of their ranks, so a run's hosts are its ranks' hosts), in a group
// of their own ("host", "<run> / host <name>") that collapses like a rank's. Sources whose clock cannot be related
// to the run's trace are named in `notPlaced`.
void addHostLanes(TimelinePrepared& out, const RunSet& runs, size_t ri, int64_t origin, const LaneOptions& options,
                  std::vector<std::string>& notPlaced) {
    const core::Dataset& ds = *runs[ri].dataset;
    const auto shifts = clockShifts(ds);
    const auto unrelated = unrelatedClocks(ds);
    size_t k = ds.ranks.size();  // index of the source in ds.allSources()
    for (const core::HostTelemetry& h : ds.hosts) {
        std::string label = h.host.empty() ? std::string("host") : "host " + h.host;
        if (runs.size() > 1) label = runs[ri].label + " / " + label;
        const size_t firstLane = out.lanes.size();
        for (const auto& sp : h.sources) {
            const size_t i = k++;
            if (!sp) continue;
            const core::RankData& r = *sp;
            if (unrelated[i]) {
                const std::string& path = r.path.empty() ? r.info.path : r.path;
                notPlaced.push_back(fmt::format("{} ({}, {})", label, std::filesystem::path(path).filename().string(),
                                                core::clockDomainName(r.info.clock.domain)));
                continue;
            }
            if (shifts[i] != 0) out.rankShift.emplace_back(&r, shifts[i]);
            addTelemetryLanes(out, r, ri, origin - shifts[i], label, options.telemetry);
            if (options.memoryLanes) addMemoryLanes(out, r, ri, origin - shifts[i], label);
        }
        for (size_t li = firstLane; li < out.lanes.size(); ++li) out.lanes[li].group = label;
    }
}

}  // namespace

StepAlign parseStepAlign(const std::string& text) {
    StepAlign a;
    if (text == "first step") {
        a.mode = StepAlign::Mode::FirstStep;
    } else if (text.rfind("step ", 0) == 0 && text.size() > 5 &&
               text.find_first_not_of("0123456789", 5) == std::string::npos && text.size() < 5 + 18) {
        a.mode = StepAlign::Mode::Step;
        a.step = std::stoll(text.substr(5));
    }
    return a;
}

bool isCpuLaneKind(core::EventKind k) {
    return k == core::EventKind::CpuOp || k == core::EventKind::UserAnnotation || k == core::EventKind::PythonFunction ||
           k == core::EventKind::Runtime || k == core::EventKind::Driver || k == core::EventKind::OsRuntime;
}
QColor cpuKindColor(core::EventKind k) {
    switch (k) {
    case core::EventKind::CpuOp: return QColor(92, 107, 192);
    case core::EventKind::UserAnnotation: return QColor(0, 150, 136);
    case core::EventKind::PythonFunction: return QColor(255, 179, 0);
    case core::EventKind::Runtime: return QColor(229, 57, 53);
    case core::EventKind::Driver: return QColor(173, 20, 87);
    case core::EventKind::OsRuntime: return QColor(121, 134, 203);
    default: return QColor(158, 158, 158);
    }
}

core::Result<std::shared_ptr<TimelinePrepared>> buildTimelineLanes(const RunSet& runs, const LaneOptions& options,
                                                                   const core::CancelToken& cancel,
                                                                   const core::ProgressFn& progress) {
    auto out = std::make_shared<TimelinePrepared>();
    std::vector<std::string> notShifted;  // runs without the step they are aligned at
    std::vector<std::string> notPlaced;   // ranks whose clock cannot be related to their run's trace
    const auto& selected = options.ranks;
    bool includeMem = options.includeMemory;
    const std::string& filterText = options.nameFilter;
    std::optional<std::regex> filter;
    if (!filterText.empty()) filter.emplace(filterText, std::regex::ECMAScript | std::regex::optimize);
    size_t totalRanks = 0, doneRanks = 0;
    for (const auto& run : runs)
        if (run.dataset) totalRanks += run.dataset->ranks.size();

    for (size_t ri = 0; ri < runs.size(); ++ri) {
        const auto& run = runs[ri];
        out->runLabels.push_back(run.label);
        if (!run.dataset) {
            out->runOrigin.push_back(0);
            continue;
        }
        out->keep.push_back(run.dataset);
        int64_t origin = naturalOrigin(*run.dataset, options);
        if (options.align.mode != StepAlign::Mode::None) {
            if (const auto at = alignedOrigin(*run.dataset, options)) {
                origin = *at;
            } else {
                notShifted.push_back(run.label);
                out->messages.push_back(fmt::format("{} has no {}: not shifted", run.label, stepName(options.align)));
            }
        }
        out->runOrigin.push_back(origin);

        // Phases and layers of every rank (one analysis pass per run).
        std::optional<core::Table> phaseTable;
        {
            auto actx = core::AnalysisContext::of(run.dataset);  // shared with the analysis plots
            auto t = core::phaseStructure(*actx, core::WindowSpec{}, core::LayerRows::Rows);
            if (t) phaseTable = std::move(t.value());
        }
        if (cancel.cancelled()) return cancelledError();

        const auto shifts = clockShifts(*run.dataset);
        const auto unrelated = unrelatedClocks(*run.dataset);
        for (size_t rk = 0; rk < run.dataset->ranks.size(); ++rk) {
            const auto& rp = run.dataset->ranks[rk];
            if (cancel.cancelled()) return cancelledError();
            if (!rp || !rankSelected(selected, rp->rank)) continue;
            const auto& r = *rp;
            if (unrelated[rk]) {
                const std::string& path = r.path.empty() ? r.info.path : r.path;
                notPlaced.push_back(fmt::format("{} ({}, {})", rankLabel(runs, ri, r.rank),
                                                std::filesystem::path(path).filename().string(),
                                                core::clockDomainName(r.info.clock.domain)));
                continue;
            }
            // This rank's raw times minus rankOrigin are on the run's axis (clockShifts).
            const int64_t rankOrigin = origin - shifts[rk];
            if (shifts[rk] != 0) out->rankShift.emplace_back(&r, shifts[rk]);
            const auto& g = r.gpu;
            std::string rlabel = rankLabel(runs, ri, r.rank);
            const size_t firstLane = out->lanes.size();
            // Steps band.
            if (r.steps.size()) {
                Lane l;
                l.kind = LaneKind::Steps;
                l.run = ri;
                l.rank = &r;
                l.rankNumber = r.rank;
                l.label = rlabel + " steps";
                for (size_t k = 0; k < r.steps.size(); ++k) {
                    l.start.push_back(r.steps.start[k] - rankOrigin);
                    l.end.push_back(r.steps.end[k] - rankOrigin);
                    l.cat.push_back(0);
                    l.src.push_back(uint32_t(k));
                }
                finishLane(l);
                out->lanes.push_back(std::move(l));
            }
            // GPU annotations, packed into at most 3 sub-lanes.
            {
                std::vector<uint32_t> idx;
                for (size_t k = 0; k < r.slices.size(); ++k)
                    if (r.slices.kind[k] == core::EventKind::GpuUserAnnotation) idx.push_back(uint32_t(k));
                std::sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
                    return r.slices.ts[a] != r.slices.ts[b] ? r.slices.ts[a] < r.slices.ts[b]
                                                            : r.slices.dur[a] > r.slices.dur[b];
                });
                std::vector<int64_t> st, en;
                for (auto k : idx) {
                    st.push_back(r.slices.ts[k] - rankOrigin);
                    en.push_back(r.slices.ts[k] + std::max<int64_t>(0, r.slices.dur[k]) - rankOrigin);
                }
                auto sub = packSubLanes(st, en, 3);
                int nsub = sub.empty() ? 0 : *std::max_element(sub.begin(), sub.end()) + 1;
                for (int s = 0; s < nsub; ++s) {
                    Lane l;
                    l.kind = LaneKind::Annotation;
                    l.run = ri;
                    l.rank = &r;
                    l.rankNumber = r.rank;
                    l.sub = s;
                    l.label = s == 0 ? rlabel + " annotations" : "";
                    for (size_t k = 0; k < idx.size(); ++k)
                        if (sub[k] == s) {
                            l.start.push_back(st[k]);
                            l.end.push_back(en[k]);
                            l.cat.push_back(0);
                            l.src.push_back(idx[k]);
                        }
                    finishLane(l);
                    out->lanes.push_back(std::move(l));
                }
            }
            if (phaseTable) addPhaseLanes(*out, *phaseTable, ri, r, rlabel, rankOrigin);
            // Streams: group activities by (device, stream), sort by start, pack overlaps into sub-lanes.
            std::vector<uint32_t> order;
            order.reserve(g.size());
            std::vector<uint8_t> nameOk;
            if (filter) {
                nameOk.assign(r.strings.size(), 2);  // 2 = unknown
            }
            for (size_t k = 0; k < g.size(); ++k) {
                if (!includeMem && g.kind[k] != core::EventKind::Kernel) continue;
                if (filter) {
                    auto id = g.name[k];
                    if (id < nameOk.size() && nameOk[id] == 2) {
                        auto v = r.strings.view(id);
                        nameOk[id] = std::regex_search(v.begin(), v.end(), *filter) ? 1 : 0;
                    }
                    if (id >= nameOk.size() || !nameOk[id]) continue;
                }
                order.push_back(uint32_t(k));
            }
            // The lane of an activity: its queue (rocprof sources, options.byQueue) or stream; queue ids are kept
            // apart from stream ids (a queue's key is -2 - id).
            const bool queues = options.byQueue && g.queue.size() == g.size();
            auto laneOf = [&](uint32_t k) -> int64_t {
                if (queues && g.queue[k] >= 0) return -2 - int64_t(g.queue[k]);
                return g.stream.size() ? g.stream[k] : 0;
            };
            auto key = [&](uint32_t k) {
                return std::tuple(g.device.size() ? g.device[k] : int16_t(0), laneOf(k), g.ts[k]);
            };
            std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
            size_t i = 0;
            while (i < order.size()) {
                if (cancel.cancelled()) return cancelledError();
                size_t j = i;
                int dev = g.device.size() ? g.device[order[i]] : 0;
                const int64_t laneKey = laneOf(order[i]);
                const bool isQueue = laneKey <= -2;
                const int stream = isQueue ? int(-2 - laneKey) : int(laneKey);
                const char* what = isQueue ? "queue" : "stream";
                while (j < order.size() && (g.device.size() ? g.device[order[j]] : 0) == dev && laneOf(order[j]) == laneKey)
                    ++j;
                std::vector<int64_t> st, en;
                st.reserve(j - i);
                en.reserve(j - i);
                for (size_t k = i; k < j; ++k) {
                    st.push_back(g.ts[order[k]] - rankOrigin);
                    en.push_back(g.ts[order[k]] + std::max<int64_t>(0, g.dur[order[k]]) - rankOrigin);
                }
                ToleratedOverlaps tolerated;
                auto sub = packSubLanes(st, en, 8, options.overlapToleranceNs, &tolerated);
                int nsub = *std::max_element(sub.begin(), sub.end()) + 1;
                if (tolerated.count > 0)
                    out->messages.push_back(fmt::format(
                        "{} {} {}: {} activit{} start{} up to {} ns before the previous one ends (timestamps of an "
                        "in-order {}; tolerance {} ns): kept in one lane",
                        rlabel, what, stream, tolerated.count, tolerated.count == 1 ? "y" : "ies",
                        tolerated.count == 1 ? "s" : "", tolerated.largestNs, what, options.overlapToleranceNs));
                for (int s = 0; s < nsub; ++s) {
                    Lane l;
                    l.kind = LaneKind::Stream;
                    l.run = ri;
                    l.rank = &r;
                    l.rankNumber = r.rank;
                    l.device = dev;
                    l.stream = stream;
                    l.sub = s;
                    l.queue = isQueue;
                    l.label = nsub > 1 ? fmt::format("{} {} {} ({})", rlabel, what, stream, s + 1)
                                       : fmt::format("{} {} {}", rlabel, what, stream);
                    size_t n = nsub == 1 ? j - i : 0;
                    l.start.reserve(n);
                    l.end.reserve(n);
                    l.cat.reserve(n);
                    l.src.reserve(n);
                    for (size_t k = i; k < j; ++k) {
                        if (sub[k - i] != s) continue;
                        l.start.push_back(st[k - i]);
                        l.end.push_back(en[k - i]);
                        l.cat.push_back(uint8_t(activityCategory(r, order[k])));
                        l.src.push_back(order[k]);
                        out->fullEnd = std::max(out->fullEnd, en[k - i]);
                    }
                    out->items += l.start.size();
                    finishLane(l);
                    out->lanes.push_back(std::move(l));
                }
                i = j;
            }
            addTelemetryLanes(*out, r, ri, rankOrigin, rlabel, options.telemetry);
            if (options.memoryLanes) addMemoryLanes(*out, r, ri, rankOrigin, rlabel);
            if (options.cpuLanes) addCpuLanes(*out, r, ri, rankOrigin, rlabel);
            for (size_t li = firstLane; li < out->lanes.size(); ++li) out->lanes[li].group = rlabel;
            for (size_t k = 0; k < r.steps.size(); ++k) out->fullEnd = std::max(out->fullEnd, r.steps.end[k] - rankOrigin);
            ++doneRanks;
            if (progress)
                progress({"lanes", r.path, totalRanks ? double(doneRanks) / double(totalRanks) : 1.0, doneRanks,
                          totalRanks});
        }
        addHostLanes(*out, runs, ri, origin, options, notPlaced);
    }
    // The range holds every event of every lane: what ran before an aligned step is left of 0.
    for (const auto& l : out->lanes)
        if (!l.start.empty()) out->fullStart = std::min(out->fullStart, l.start.front());  // sorted by start
    out->zeroLabel = "0 = first event";
    if (options.align.mode != StepAlign::Mode::None) {
        out->zeroLabel = "0 = " + stepName(options.align) + " start";
        out->alignNote = fmt::format("Runs aligned by step: t = 0 is the start of each run's {}", stepName(options.align));
        if (!notShifted.empty())
            out->alignNote += fmt::format(" · not shifted (no such step): {}", fmt::join(notShifted, ", "));
    }
    if (!notPlaced.empty()) {
        out->clockNote = fmt::format("Not drawn, clock not related to the trace's (give the run a clock offset): {}",
                                     fmt::join(notPlaced, ", "));
        out->messages.push_back(out->clockNote);
    }
    bool telemetry = false;
    for (const auto& l : out->lanes) telemetry = telemetry || l.kind == LaneKind::Telemetry;
    if (out->items == 0 && !telemetry)
        out->messages.push_back("no GPU activities (kernels, memcpy, memset) in the selection");
    out->legend = categoryLegend(*out);
    computeOverview(*out);
    return out;
}

}  // namespace strobe::plots::timeline
