#pragma once
// rocprof-compute (formerly Omniperf) analysis database (`rocprof-compute analyze --output-format db`, 3.5.0
// checked on an MI350 sample).
//
// A rank is the database's workload (one profiled application):
//   compute_dispatch (+ compute_kernel for names) → gpu Kernel rows (ts/dur from start/end_timestamp, device gpu_id,
//                                                  correlation dispatch_id)
//   compute_kernel_metric_value + compute_metric_definition → kernelCounters named "<metric_id> <name>: <value
//     name>" (e.g. "2.1.0 VALU FLOPs: Peak"). The values are per KERNEL (rocprof-compute aggregates its
//     dispatches), so they are stored once, on that kernel's first dispatch; NULL values are left out (counted).
//   compute_workload.sys_info_extdata (JSON) → devices (gpu_model, cu_per_gpu, wave_size, ...)
//   compute_metadata.compute_version → toolVersion
// Timestamps are the profiler's boot-time ns: clock Boottime, unanchored unless --clock-offset is given.

#include <memory>
#include <vector>

#include "core/formats/source_format.h"
#include "core/io/sqlite_db.h"

namespace strobe::core {

extern const SourceFormat kRocprofComputeDbFormat;

int sniffRocprofComputeDb(const SniffInput& in);
Result<std::vector<std::unique_ptr<RankData>>> loadRocprofComputeDb(const SqliteDb& db, const SourceLoadOptions& opt);

}  // namespace strobe::core
