#pragma once
// Per-rank summary: what `strobe-cli summary` prints and the first window lists.
// One O(n) pass over the columns of a rank; no allocation per event (per distinct kernel name at most).

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/model/dataset.h"

namespace strobe::core {

// One kernel name's totals (EventKind::Kernel rows of the GPU table only).
struct KernelTotal {
    std::string name;
    KernelCategory category = KernelCategory::Other;
    uint64_t count = 0;
    TimeNs totalNs = 0;
    TimeNs minNs = 0;
    TimeNs maxNs = 0;
};

// One ProfilerStep#N range (from RankData::steps). Not named StepSpan: core/analysis/context.h has one, and two
// types of one name in one namespace would break the one-definition rule.
struct StepRange {
    int64_t number = 0;
    TimeNs startNs = 0;
    TimeNs endNs = 0;
};

struct RankSummary {
    int rank = -1;
    int worldSize = -1;  // distributedInfo.world_size, -1 when absent
    RankSource rankSource = RankSource::FileOrder;
    std::string path;
    std::string format;  // the source's format id (RankData::info.format: "kineto", "rpd", "nsys-sqlite"...)
    Platform platform = Platform::Unknown;
    std::string gpuName;         // first device's name, "" when deviceProperties lists none
    uint32_t gpuCount = 0;       // entries of deviceProperties
    bool cpuOnly = false;        // no GPU activity (kernel, memcpy, memset) and no device listed
    uint64_t events = 0;         // traceEvents kept (incl. metadata)
    uint64_t skippedEvents = 0;  // unusable entries (each has a diagnostic)
    bool truncated = false;
    bool fromCache = false;
    bool fromSummary = false;  // read from the rank's summary file (strobe-cli convert), its events not loaded
    std::vector<std::pair<std::string, uint64_t>> eventsByCategory;  // raw category → count, sorted by name
    uint64_t kernelCount = 0;                                        // EventKind::Kernel only
    TimeNs kernelTimeNs = 0;                                         // sum of kernel durations (memcpy/memset apart)
    uint64_t memcpyCount = 0;
    TimeNs memcpyTimeNs = 0;
    uint64_t memsetCount = 0;
    TimeNs memsetTimeNs = 0;
    TimeNs spanStart = 0, spanEnd = 0;  // first start, last end over all timed events (0, 0 when none)
    std::vector<int64_t> steps;         // ProfilerStep numbers, in time order
    std::vector<StepRange> stepSpans;   // the same steps with their ranges
    // GPU activities (kernels, memcpy, memset) by Strobe category, in enum order, only categories present.
    std::vector<std::pair<KernelCategory, TimeNs>> timeByCategory;
    std::vector<std::pair<KernelCategory, uint64_t>> countByCategory;  // same order as timeByCategory
    std::vector<KernelTotal> topKernels;                               // by total time, descending (ties: by name)
    std::vector<std::string> warnings;  // the rank's warnings and errors, as "file: byte N: message"

    TimeNs spanNs() const { return spanEnd - spanStart; }
};

// A whole run: one summary per rank (in the dataset's rank order) and the run-level warnings.
struct RunSummary {
    std::vector<RankSummary> ranks;
    std::vector<std::string> warnings;
};

RankSummary summarizeRank(const RankData& rank, size_t topN = 10);
RunSummary summarizeRun(const Dataset& dataset, size_t topN = 10);

}  // namespace strobe::core
