#pragma once
// rocprof v1 results.db (the SQLite rendering rocprof writes beside results.csv in an `.xr` run directory).
// An alternative reader: the run-directory grouping decides which rendering is read (results.csv first).
//
// Table KERN (one row per kernel dispatch; columns by name): KernelName, gpu-id → device, queue-id → stream,
// pid/tid, grd/wgr → grid/block X (work-items, as rocprof writes them), lds, arch_vgpr → registers, BeginNs/EndNs
// → ts/dur, Index → correlation. A rank is a process (pid). Times are boot-time ns: clock Boottime.

#include <memory>
#include <vector>

#include "core/formats/source_format.h"
#include "core/io/sqlite_db.h"

namespace strobe::core {

extern const SourceFormat kRocprofV1DbFormat;

int sniffRocprofV1Db(const SniffInput& in);
Result<std::vector<std::unique_ptr<RankData>>> loadRocprofV1Db(const SqliteDb& db, const SourceLoadOptions& opt);

}  // namespace strobe::core
