#pragma once
// Memory traffic: gpu_memcpy and gpu_memset activities per rank, kind and copy direction: count, bytes
// (the activity's "bytes" argument), total duration and bandwidth (bytes ÷ busy time, GB/s = bytes per ns).

#include "core/analysis/registry.h"

namespace strobe::core {

// Columns: rank, kind (memcpy|memset), direction (HtoD, DtoH, DtoD, HtoH, PtoP, unknown; "-" for memset),
// count, bytes, total_ns, bandwidth_gbps (null when no time or no byte counts), mean_bytes.
Result<Table> memoryTraffic(AnalysisContext& ctx, const WindowSpec& window);
AnalysisInfo memoryAnalysisInfo();

}  // namespace strobe::core
