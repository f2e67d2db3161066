#pragma once
// Nsight Compute `ncu --csv` output, as the profiler prints it (optionally after `==PROF==` lines and the
// application's own output) or as `ncu --import x.ncu-rep --csv` writes it:
//  - details page (default): one row per (kernel ID, section, metric): "ID","Process ID","Process Name","Host Name",
//    "Kernel Name",["Kernel Time",]"Context","Stream",["Block Size","Grid Size","Device","CC",]"Section Name",
//    "Metric Name","Metric Unit","Metric Value"[,"Rule Name","Rule Type","Rule Description",...];
//  - raw page (`--page raw`; built from documentation, no real sample): one row per kernel, one column per metric
//    (gpu__time_duration.sum, sm__throughput.avg.pct_of_peak_sustained_elapsed, ...), the first data row holding
//    the units.
// Each kernel ID becomes one GPU activity (kind Kernel, device/stream/grid/block/registers from the columns or the
// Launch Statistics metrics); every numeric metric becomes a kernelCounters row named "<Metric Name> [<unit>]"
// (unit omitted when empty). Values may carry thousands separators ("1,234.5"). Rule rows (advice, no metric) and
// non-numeric values ("CachePreferNone") are skipped and counted.
//
// ncu replays each kernel in isolation and writes no start time: the kernels are laid end to end in ID order, each
// lasting its measured duration (the "Duration" metric or gpu__time_duration.sum; 0 when absent), on
// ClockDomain::Relative, unanchored — a diagnostic says so. Rank: one rank for the whole file (every profiled
// process; tracks are (process, stream)).

#include <memory>
#include <string>
#include <string_view>

#include "core/formats/source_format.h"

namespace strobe::core {

extern const SourceFormat kNcuCsvFormat;  // id "ncu-csv"

int sniffNcuCsv(const SniffInput& in);
Result<std::unique_ptr<RankData>> parseNcuCsv(std::string_view text, const std::string& path,
                                              const SourceLoadOptions& options);

}  // namespace strobe::core
