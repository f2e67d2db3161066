#pragma once
// Critical path of a window (issue 26): the dependency graph built from the trace's own links, its longest path
// and the path's breakdown by kind, and what-if projections on it.
//
// Graph: two nodes per event (its start and its end) for the CPU operators and runtime/driver calls of the window
// and the GPU activities they launched. Edges: each event's start -> end; CPU nesting and order per thread (a
// depth-first walk of each thread's call stack: last node -> next start / end); launch -> GPU activity (the
// correlation link; a graph launch, cudaGraphLaunch/hipGraphLaunch, links every kernel of the graph); stream
// order (previous activity's end -> next start on the same device and stream); host synchronisation (a blocking
// call's end after the last activity of each stream of its device that ended before it: cuda/hip Device-, Stream-
// and EventSynchronize, blocking Memcpy); collectives matched across ranks (core/analysis/collectives.h): a
// collective's kernel ends, on every rank, after the latest rank's kernel started plus its own transfer time.
//
// Two definitions:
// - strobe (default): wall time, across every rank of the run (or one with `rank`). Edge weights are the time a
//   resource cannot be shortened by its dependencies: durations, CPU gaps (idle), the launch latency of a kernel
//   that waited for its launch, the gap after the previous kernel of one that waited for its stream, the residue
//   of a sync call after what it waited for (both into its end: from its own last CPU node, the part after
//   max(that node, the awaited GPU end); from the awaited activity's end, the part after max(that end, the call's
//   start), never more than the call lasted). Waits weigh zero: they are recomputed from the dependencies, so the
//   path's length is the window's wall time (to the residues the trace cannot explain) and a what-if re-simulates
//   them. Classes: cpu_op, launch_latency, kernel:<category> (Strobe's kernel categories), communication,
//   sync_wait, idle.
// - hta: Holistic Trace Analysis' lightweight critical path (hta/analyzers/critical_path_analysis.py, commit
//   f4d0062), one rank: gaps between top-level operators and blocking sync calls weigh zero, a kernel hangs off
//   its launch only when its stream's queue was empty, else off the previous kernel when the gap is < 1.5 ms;
//   the CUDA runtime lock orders cudaLaunchKernel / cudaMemcpyAsync / cudaHostAlloc across threads. Its length is
//   not wall time. Classes: cpu_bound, gpu_compute_bound, gpu_communication_bound, gpu_kernel_kernel_overhead,
//   gpu_kernel_launch_overhead.
//
// Cycles (an edge into a node already placed in topological order) and negative weights (clock skew: a child
// ending after its parent) are reported in the messages and broken (the edge dropped, the weight set to 0):
// never a hang.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/registry.h"

namespace strobe::core {

enum class CpDefinition : uint8_t { Strobe, Hta };

struct CpScale {
    std::string group;  // category:NAME, op:NAME, kernel:REGEX or comm
    double factor = 1;  // multiplies the durations of the group's events
};

struct CpRequest {
    CpDefinition definition = CpDefinition::Strobe;
    int rank = -1;              // rank number; -1: every rank (strobe), the first rank (hta)
    int64_t step = -1;          // ProfilerStep number, -1: none
    std::string annotation;     // names containing it (HTA's `annotation`), "" with step -1: the whole trace
    int64_t instance = 0;       // which instance of the annotation, 0 = first in trace order
    std::vector<CpScale> scales;
};

// Views of static text and of the dataset's strings: valid while the dataset lives.
struct CpSegment {
    int rank = -1;
    std::string_view kind;   // cpu_op, runtime, kernel, gpu_memcpy, ..., or the class of a gap (idle, launch_latency)
    std::string_view name;   // the event's name, "" for a gap
    std::string_view boundBy;
    TimeNs start = 0, end = 0;  // the edge's span on the run's aligned clock (raw + clockShifts(): `clock`)
    TimeNs weight = 0;          // its weight on the path
};

// Whether a segment's `kind` is a gap between events (idle, launch latency, a sync's residue, HTA's overheads)
// rather than an event's own time: a gap's `name` is the event it is attributed to, not one it runs through.
bool cpIsGap(std::string_view kind);

// What a path's segments are made from (the graph and the path's edges, kept by the result): listed once, at the
// first look, so that a caller that wants only the length and the classes never pays for millions of segments.
class CpPathSource {
public:
    virtual ~CpPathSource() = default;
    virtual size_t edgeCount() const = 0;               // edges on the path (zero-weight ones included)
    const std::vector<CpSegment>& segments() const;     // made once (thread-safe), then kept
protected:
    virtual void list(std::vector<CpSegment>& out) const = 0;
private:
    mutable std::once_flag once_;
    mutable std::vector<CpSegment> segments_;
};

// The path in order (zero-weight edges left out, consecutive edges of one event and class merged): a vector's
// reading interface over segments made at the first call, from the dataset's events and strings, so a path is
// listed while its dataset lives (as its segments' views need anyway).
class CpPath {
public:
    CpPath() = default;
    explicit CpPath(std::shared_ptr<const CpPathSource> src) : src_(std::move(src)) {}
    const std::vector<CpSegment>& segments() const { return src_ ? src_->segments() : empty_(); }
    size_t size() const { return segments().size(); }
    bool empty() const { return segments().empty(); }
    const CpSegment& operator[](size_t i) const { return segments()[i]; }
    const CpSegment& front() const { return segments().front(); }
    const CpSegment& back() const { return segments().back(); }
    std::vector<CpSegment>::const_iterator begin() const { return segments().begin(); }
    std::vector<CpSegment>::const_iterator end() const { return segments().end(); }
    size_t edgeCount() const { return src_ ? src_->edgeCount() : 0; }  // without listing
private:
    static const std::vector<CpSegment>& empty_();
    std::shared_ptr<const CpPathSource> src_;
};

struct CriticalPathResult {
    CpDefinition definition = CpDefinition::Strobe;
    std::string window;                                   // "ProfilerStep#3", "annotation X instance 1", "all"
    std::string clock;  // the clock alignment across ranks the path is on (core/model/clock_shifts.h), in words
    TimeNs lengthNs = 0;                                  // sum of the path's edge weights
    std::vector<std::pair<std::string, TimeNs>> classes;  // bound_by -> ns, largest first
    CpPath path;                                          // in path order, listed at the first look
    std::vector<std::string> messages;
    size_t nodes = 0, edges = 0;
};

Result<CriticalPathResult> criticalPath(AnalysisContext& ctx, const CpRequest& req);

struct WhatIfGroup {
    std::string group;
    TimeNs lengthNs = 0;  // the path's length with the group twice as fast
    TimeNs savedNs = 0;
};
struct WhatIfResult {
    CriticalPathResult base;     // unscaled
    CriticalPathResult scaled;   // with req.scales
    std::vector<WhatIfGroup> ranking;  // per group, the time saved by a 2x speed-up, most first
};
Result<WhatIfResult> whatIf(AnalysisContext& ctx, const CpRequest& req);

// Parses "GROUP=FACTOR" (errors name the item).
Result<CpScale> parseScale(const std::string& item);

// Registry entries: "critical-path" (rows bound_by, ns, share) and "what-if" (rows group, factor, length_ns,
// saved_ns, kind: "scaled" for the --scale groups together, "2x" for the ranking).
AnalysisInfo criticalPathAnalysisInfo();
AnalysisInfo whatIfAnalysisInfo();

}  // namespace strobe::core
