#pragma once
// Dataset: a loaded run (one or more ranks). Shared as immutable snapshots: std::shared_ptr<const Dataset>.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/io/error.h"
#include "core/model/tables.h"
#include "core/model/trace_info.h"

namespace strobe::core {

// Where a rank's number came from: distributedInfo.rank, the file name, the file's place in the run, or the "rank"
// argument of its processes' metadata in a trace that merges several ranks into one file (TraceLens TraceFusion).
enum class RankSource : uint8_t { DistributedInfo, FileName, FileOrder, MergedTrace };

struct LoadStats {
    uint64_t events = 0;           // entries of traceEvents that were kept
    uint64_t metadataEvents = 0;   // ph M
    uint64_t skippedEvents = 0;    // unusable entries (each has a diagnostic)
    uint64_t bytesRead = 0;        // decompressed JSON bytes
    bool truncated = false;        // the text ended early; complete events before the end were kept
    bool fromCache = false;
    double loadSeconds = 0;
    std::vector<std::pair<StrId, uint64_t>> eventsByCategory;  // raw `cat` → count ("" for events without)
    // Joins a loader made across its files (rocprofv3 counters ↔ kernels by Dispatch_Id, ...): matched ÷ joinable
    // rows, -1 when the source needed no join. The unmatched names are in `diagnostics`.
    double joinMatchRate = -1;
};

struct RankData {
    int rank = -1;
    RankSource rankSource = RankSource::FileOrder;
    std::string path;
    TraceInfo info;
    StringPool strings;

    Column<Track> tracks;
    Column<ProcessMeta> processes;
    Column<ThreadMeta> threads;
    SliceTable slices;
    GpuTable gpu;
    FlowTable flows;
    CounterTable counters;
    StepTable steps;
    KernelCounterTable kernelCounters;  // hardware counters per GPU activity (non-Kineto sources)
    SampleTable samples;                // telemetry (non-Kineto sources)

    LoadStats stats;
    Diagnostics diagnostics;

    template <class V>
    void visitTables(V&& v) {
        v("slices", slices); v("gpu", gpu); v("flows", flows); v("counters", counters); v("steps", steps);
        v("kernelCounters", kernelCounters); v("samples", samples);
    }
    size_t bytes() const;  // memory held by columns and strings
};

// Derived data that a higher layer computes on demand and keeps for as long as the dataset lives (core/analysis'
// AnalysisContext: its selections and per-rank caches). Type-erased so that the model knows nothing of analyses.
// Copying a Dataset does not copy the slot (a copy may be edited: it starts empty). Thread-safe.
class DerivedSlot {
public:
    DerivedSlot() = default;
    DerivedSlot(const DerivedSlot&) {}
    DerivedSlot& operator=(const DerivedSlot&) { return *this; }
    // The value, made by `make()` on first use (once, even when several threads ask at the same time).
    template <class T, class Make>
    T* getOrCreate(Make&& make) const {
        std::lock_guard lock(m_mutex);
        if (!m_value) m_value = std::shared_ptr<T>(make());
        return static_cast<T*>(m_value.get());
    }

private:
    mutable std::mutex m_mutex;
    mutable std::shared_ptr<void> m_value;
};

// The telemetry of one host: sources that hold only samples (Strobe's CPU sampler, nvidia-smi CSV or dmon, amd-smi,
// rocm-smi, a rocpd database of monitor samples alone). They belong to the machine, not to a process of the workload:
// never a rank, never counted in the rank count or world size; the timeline draws them under the host's ranks.
// Each source is held as a RankData (its samples, strings, clock and path) with rank -1.
struct HostTelemetry {
    std::string host;  // the host's name; "" when no source names it (a run of one host)
    std::vector<std::shared_ptr<const RankData>> sources;
};

// A loaded source holds only telemetry: samples, and no GPU activity, slice, counter, step or hardware counter.
bool isTelemetryOnly(const RankData& r);

struct RunSummaries;  // core/engine/converted_run.h

struct Dataset {
    uint64_t generation = 0;            // unique per load; caches key on it
    std::vector<std::string> sources;   // what the user opened (files or directories)
    std::vector<std::shared_ptr<const RankData>> ranks;  // sorted by rank: the processes of the workload
    std::vector<HostTelemetry> hosts;   // host telemetry, one entry per host (never a rank)
    Diagnostics diagnostics;            // run-level warnings (duplicate/missing ranks, mixed world sizes...)
    DerivedSlot analysisCache;          // the shared AnalysisContext (core::AnalysisContext::of), freed with this
    // A run opened summary-first (core/engine/load_job.h): every rank's summary, and which ranks' events `ranks`
    // holds (the others are summary only). Null for a run loaded in full.
    std::shared_ptr<const RunSummaries> summaryFirst;

    size_t bytes() const;
    const RankData* rank(int r) const;  // by rank number, nullptr if absent
    // Every source of telemetry samples: the ranks that hold samples (a trace with its own monitor samples), then
    // each host's telemetry sources, in order.
    std::vector<const RankData*> sampleSources() const;
    // Every loaded source that has a clock: the ranks, then the hosts' telemetry (clock rules, overlays).
    std::vector<const RankData*> allSources() const;
};

using DatasetPtr = std::shared_ptr<const Dataset>;
uint64_t nextGeneration();

}  // namespace strobe::core
