#pragma once
// rocprof v1/v2 (`rocprof --stats --timestamp on`, `rocprof -i input.txt`) CSV results and `.xr`-style run
// directories (one directory per run: cmd, results.csv, results.stats.csv, results.db, results.json,
// results.sysinfo.txt, and one <metrics>.csv per extra counter pass, e.g. data_movement.csv).
//
// A run directory is one SourceGroup and one rank (the profiled process). Precedence of its renderings:
//   1. results.csv — the kernel trace: KernelName, gpu-id, queue-id, pid/tid, grd (grid, work-items), wgr
//      (work-group), lds, scr, arch_vgpr/vgpr, sgpr, wave_size, DispatchNs/BeginNs/EndNs/CompleteNs/DurationNs,
//      and counter columns when collected in the same pass;
//   2. results.db — the same dispatches in SQLite (read by the SQLite family's format when registered, only when
//      results.csv is absent);
//   3. results.json — a Chrome trace rendering: never read (it is not a Kineto rank).
// The renderings not read are listed in TraceInfo::alsoPresent. Other CSV files of the directory with the same
// kernel-trace header (extra counter passes, another process) contribute their counter columns (every column that
// is not one of the kernel-trace columns) as kernelCounters, joined to results.csv across passes by (kernel name,
// gpu-id, instance index of that name); the match rate and unmatched names are reported. results.stats.csv is
// listed (an Info diagnostic), `cmd` becomes the trace name.
// device = gpu-id as written (the KFD node id, e.g. 8 on an MI250X node). Clock: boot-time ns, not anchored.

#include <string>
#include <string_view>

#include "core/formats/source_format.h"

namespace strobe::core {

extern const SourceFormat kRocprofV1Format;

// A rocprof v1/v2 kernel-trace header (KernelName, gpu-id, and BeginNs or a counter pass's Index/grd columns).
bool isRocprofV1Header(std::string_view head);

// Loads a run directory or a single results CSV (tests, fuzzing).
Result<std::vector<std::unique_ptr<RankData>>> loadRocprofV1(const SourceGroup& group,
                                                             const SourceLoadOptions& options = {},
                                                             const CancelToken& cancel = {});
// One CSV from text in memory (fuzzing).
Result<std::vector<std::unique_ptr<RankData>>> loadRocprofV1Text(std::string_view text, const std::string& name);

}  // namespace strobe::core
