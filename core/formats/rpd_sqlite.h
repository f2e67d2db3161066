#pragma once
// RPD: rocmProfileData's SQLite trace (rocpd schema v2, `runTracer.sh`, `.rpd` files).
//
// A rank is the whole database (RPD records one application; API calls keep their own pid/tid tracks):
//   rocpd_op        → gpu (KernelExecution: Kernel; Copy*: Memcpy; FillBuffer: Memset; other op types: Kernel with
//                     the op type as category), device = gpuId, stream = queueId, names via rocpd_string
//                     (description, else rocpd_kernelapi.kernelName, else the op type)
//   rocpd_api       → slices (hip*: Runtime, hsa*: Runtime with category hsa_api, UserMarker: UserAnnotation named by
//                     its args, anything else: Unknown with category rpd_api); args kept as {"args": "..."}
//   rocpd_api_ops   → correlation: an op's correlation is its API call's id (the merge links them)
//   rocpd_kernelapi → grid/workgroup sizes and LDS (groupSegmentSize); rocpd_copyapi → bytes
//   rocpd_monitor   → samples (sclk → sclk_mhz, mclk → mclk_mhz, power → power_w, temp → temp_c, others as written)
//   rocpd_metadata  → toolVersion "rocpd schema N"
// Times are ns on the tracer's clock (CLOCK_MONOTONIC-like boot time): clock Boottime, unanchored unless
// --clock-offset is given.

#include <memory>
#include <vector>

#include "core/formats/source_format.h"
#include "core/io/sqlite_db.h"

namespace strobe::core {

extern const SourceFormat kRpdSqliteFormat;

int sniffRpdSqlite(const SniffInput& in);
Result<std::vector<std::unique_ptr<RankData>>> loadRpdSqliteDb(const SqliteDb& db, const SourceLoadOptions& opt);

}  // namespace strobe::core
