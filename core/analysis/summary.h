#pragma once
// Per-rank summary: what `strobe-cli summary` prints and the first window lists.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/model/dataset.h"

namespace strobe::core {

struct KernelTotal {
    std::string name;
    KernelCategory category = KernelCategory::Other;
    uint64_t count = 0;
    TimeNs totalNs = 0;
};

struct RankSummary {
    int rank = -1;
    int worldSize = -1;
    std::string path;
    Platform platform = Platform::Unknown;
    std::string gpuName;
    uint64_t events = 0;
    std::vector<std::pair<std::string, uint64_t>> eventsByCategory;  // raw category → count, sorted by name
    uint64_t kernelCount = 0;        // EventKind::Kernel only
    TimeNs kernelTimeNs = 0;         // sum of kernel durations (memcpy/memset apart)
    uint64_t memcpyCount = 0;
    TimeNs memcpyTimeNs = 0;
    uint64_t memsetCount = 0;
    TimeNs memsetTimeNs = 0;
    TimeNs spanStart = 0, spanEnd = 0;  // first start, last end over all timed events
    std::vector<int64_t> steps;         // ProfilerStep numbers
    std::vector<std::pair<KernelCategory, TimeNs>> timeByCategory;  // GPU activities by Strobe category
    std::vector<KernelTotal> topKernels;  // by total time, descending
    std::vector<std::string> warnings;
};

RankSummary summarizeRank(const RankData& rank, size_t topN = 10);

}  // namespace strobe::core
