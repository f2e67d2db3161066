// The GPU timeline's prepared model: lanes (sorted item arrays with a running maximum of ends, for the level of
// detail in draw), shared by the lane building (timeline_lanes.cpp) and the plot (gpu_timeline.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <QColor>

#include "plots/chart.h"
#include "plots/plot.h"

namespace strobe::plots::timeline {

enum class LaneKind : uint8_t { Stream, Steps, Annotation, Phases, Layers, Telemetry, Cpu };

// Phase bands: `cat` holds one of these, `src` indexes TimelinePrepared::bandNames.
enum class PhaseKind : uint8_t { Forward, Backward, Optimizer, Prefill, Decode, Mixed, Layer, Other };
PhaseKind phaseKind(const std::string& phase);
QColor phaseColor(PhaseKind k, size_t index);

struct Lane {
    LaneKind kind = LaneKind::Stream;
    size_t run = 0;
    const core::RankData* rank = nullptr;
    int rankNumber = 0;
    int device = -1;
    int stream = -1;    // the stream's id, or the queue's when `queue`
    bool queue = false;  // a lane of one hardware queue (rocprof sources laned by queue)
    int sub = 0;  // sub-lane index (overlapping items)
    std::string label;
    std::string group;  // the rank's label ("rank 0", "run / rank 0"): the key of the collapsed_ranks parameter
    std::vector<int64_t> start, end;  // relative to the run's origin, sorted by start
    std::vector<int64_t> maxEnd;      // running maximum of end (binary search for the first visible item)
    // Per block of kLodBlock items (the last partial block left out), so that draw() takes a block of narrow items
    // starting in one pixel column in one step without reading the items themselves (at full zoom-out most blocks).
    struct LodBlock {
        int64_t first = 0;      // start of the block's first item
        uint32_t span = 0;      // start of the last item - first (UINT32_MAX: too long, never merged)
        uint32_t maxDur = 0;    // the longest item's duration (UINT32_MAX: too long, never merged)
        uint32_t arg = 0;       // that item's index (the first of the longest, as draw() picks item by item)
        uint8_t cat = 0;        // its cat
    };
    std::vector<LodBlock> blocks;
    std::vector<uint8_t> cat;         // KernelCategory
    std::vector<uint32_t> src;        // index into the rank's gpu table (streams) or slices/steps (bands)
    // Telemetry lanes: one metric of one device, a sample's value held until the next sample (start..end).
    std::string metric;
    std::vector<double> value;
    // CPU lanes (one per thread and nesting depth, sub = depth): `thread` names the thread (the key of the
    // expanded_threads parameter), `depths` the thread's number of depths (on its depth-0 lane).
    std::string thread;
    int depths = 1;
    double vmin = 0, vmax = 0;

    size_t bytes() const {
        return blocks.capacity() * sizeof(LodBlock) + start.capacity() * 8 * 3 + cat.capacity() + src.capacity() * 4 + value.capacity() * 8 + label.capacity() +
               group.capacity() + metric.capacity() + sizeof(Lane);
    }
};

struct TimelinePrepared final : Prepared {
    std::vector<core::DatasetPtr> keep;  // the lanes point into these
    std::vector<int64_t> runOrigin;      // absolute ns of relative 0, per run
    // Ranks drawn away from their own raw times (their clock's offset differs from the run's first anchored rank's:
    // a Kineto trace after baseTimeNanoseconds beside realtime telemetry): rank → ns added to its raw times.
    std::vector<std::pair<const core::RankData*, int64_t>> rankShift;
    int64_t shiftOf(const core::RankData* r) const {
        for (const auto& [rank, shift] : rankShift)
            if (rank == r) return shift;
        return 0;
    }
    std::vector<std::string> runLabels;
    std::vector<Lane> lanes;
    std::vector<std::string> bandNames;  // names of phase and layer bands
    std::vector<LegendEntry> legend;     // the categories present in the stream lanes (the legend)
    int64_t fullStart = 0;  // < 0 when runs are aligned at a step: what ran before it
    int64_t fullEnd = 1;
    size_t items = 0;
    // Step alignment of compared runs (LaneOptions::align): what t = 0 is, and the subtitle saying what was aligned
    // (and which runs were not shifted); both empty when not aligned.
    std::string zeroLabel;
    std::string alignNote;
    std::string clockNote;  // ranks left off the axis: their clock cannot be related to their run's trace
    std::vector<std::string> messages;
    std::vector<float> overview;  // activity density of the stream lanes over [0, fullEnd], 0..1 (overview strip)
    size_t bytes() const override {
        size_t b = sizeof(*this);
        for (const auto& l : lanes) b += l.bytes();
        for (const auto& n : bandNames) b += sizeof(n) + n.capacity();
        return b;
    }
};

inline constexpr size_t kLodBlock = 8;

// Overlaps an in-order queue or stream shows only through its timestamps (the next activity starts up to
// `toleranceNs` before the previous ends): kept in one lane and counted here, to be reported.
struct ToleratedOverlaps {
    size_t count = 0;
    int64_t largestNs = 0;
};
// Packs items (already sorted by start) into sub-lanes where they do not overlap by more than `toleranceNs`;
// returns the sub-lane of each, and counts the tolerated overlaps in `tolerated` when given.
std::vector<int> packSubLanes(const std::vector<int64_t>& start, const std::vector<int64_t>& end, int maxSub,
                              int64_t toleranceNs = 0, ToleratedOverlaps* tolerated = nullptr);
// Fills l.maxEnd (running maximum of ends) and the per-block longest items once start/end are complete.
void finishLane(Lane& l);
// Items of `l` that intersect [t0, t1).
std::pair<size_t, size_t> visibleRange(const Lane& l, int64_t t0, int64_t t1);
QColor hashColor(uint32_t id);
// Legend entries of the categories present in the stream lanes, in category order.
std::vector<LegendEntry> categoryLegend(const TimelinePrepared& p);

// Fills p.overview: kOverviewBins bins of busy stream time over [fullStart, fullEnd], scaled so the busiest is 1
// (timeline_find.cpp).
inline constexpr size_t kOverviewBins = 1024;
void computeOverview(TimelinePrepared& p);

// Aligning compared runs by step: each run's time is shifted so that the chosen ProfilerStep starts at 0 (runs
// recorded at different wall-clock times become comparable); a run without that step keeps its own origin.
struct StepAlign {
    enum class Mode : uint8_t { None, FirstStep, Step };
    Mode mode = Mode::None;
    int64_t step = -1;  // Mode::Step: the step number N of ProfilerStep#N
};
// "none", "first step", "step N" (the `align` parameter's choices) ↔ StepAlign; anything else reads as none.
StepAlign parseStepAlign(const std::string& text);

// What prepare() reads from the parameters when building the lanes.
struct LaneOptions {
    std::vector<int> ranks;  // empty: all
    bool includeMemory = true;
    std::string nameFilter;  // regular expression, empty: all
    std::vector<std::string> telemetry;  // sample metrics drawn as lanes under each rank's streams (empty: none)
    bool cpuLanes = true;  // CPU slices (operators, annotations, python, runtime calls) per thread and depth
    StepAlign align;
    // GPU lanes of sources that record hardware queues (rocprof): one per (agent, queue), what the GPU runs in
    // order, or per HIP stream. Sources without queues (Kineto, nsys) lane by stream either way.
    bool byQueue = true;
    // Timestamp overlaps up to this between consecutive activities of one stream or queue stay in its lane (and
    // are reported); longer ones (concurrent kernels) open sub-lanes.
    int64_t overlapToleranceNs = 1000;
    // Allocated and reserved bytes of each device from the rank's [memory] events (profile_memory=True), as lanes
    // under its streams (issue 27).
    bool memoryLanes = false;
};

// CPU slice kinds drawn in CPU lanes, and their colours.
bool isCpuLaneKind(core::EventKind k);
QColor cpuKindColor(core::EventKind k);

// Builds the lanes of every run and rank (steps, annotations, phases, layers, streams).
core::Result<std::shared_ptr<TimelinePrepared>> buildTimelineLanes(const RunSet& runs, const LaneOptions& options,
                                                                   const core::CancelToken& cancel,
                                                                   const core::ProgressFn& progress);

}  // namespace strobe::plots::timeline
