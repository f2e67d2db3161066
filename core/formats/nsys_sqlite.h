#pragma once
// Nsight Systems SQLite exports (`nsys export --type sqlite`, or `nsys stats` side files).
//
// A rank is a process (globalPid): every process with CUDA kernels, memcpy/memset, runtime calls, NVTX ranges or
// device memory usage events.
// Read by column name (schemas differ between nsys releases; verified on 2024.5.1 (schema 3.13) and 2024.6.2
// (3.16)):
//   CUPTI_ACTIVITY_KIND_KERNEL   → gpu (Kernel; name = demangledName, else shortName, else mangledName via StringIds)
//   CUPTI_ACTIVITY_KIND_MEMCPY   → gpu (Memcpy "Memcpy HtoD" ... from copyKind, bytes)
//   CUPTI_ACTIVITY_KIND_MEMSET   → gpu (Memset, bytes)
//   CUPTI_ACTIVITY_KIND_RUNTIME  → slices (Runtime, or Driver for cu* names; correlationId links the GPU rows)
//   NVTX_EVENTS                  → slices (push/pop and start/end ranges: UserAnnotation; marks: instants)
//   CUDA_GPU_MEMORY_USAGE_EVENTS → instant slices of cat kNsysMemoryCategory (device memory allocations and frees,
//                                  for the memory timeline; see readMemoryUsage)
//   TARGET_INFO_GPU              → TraceInfo devices; PROCESSES / ThreadNames → process and thread names
//   META_DATA_EXPORT             → toolVersion (EXPORT_PRODUCT_VERSION)
//   TARGET_INFO_SESSION_START_TIME.utcEpochNs → clock SessionRelative, anchored to realtime
// globalTid encodes pid = (globalTid >> 24) & 0xFFFFFF and tid = globalTid & 0xFFFFFF (checked against PROCESSES
// on both samples); globalPid is globalTid with tid 0. GPU tracks are (pid = deviceId, tid = streamId).

#include <memory>
#include <string>
#include <vector>

#include "core/formats/source_format.h"
#include "core/io/sqlite_db.h"

namespace strobe::core {

extern const SourceFormat kNsysSqliteFormat;

// The slice category of the CUDA_GPU_MEMORY_USAGE_EVENTS rows (read by core/analysis/memory_timeline.h).
inline constexpr const char* kNsysMemoryCategory = "cuda_memory_usage";

int sniffNsysSqlite(const SniffInput& in);
// Reads an opened database (tests and the fuzz target open it themselves).
Result<std::vector<std::unique_ptr<RankData>>> loadNsysSqliteDb(const SqliteDb& db, const SourceLoadOptions& opt);

}  // namespace strobe::core
