#pragma once
// `nsys stats --format csv` reports (built from documentation: the column names Nsight Systems publishes for its
// stats reports; no real output was available). One report per file (`--output` writes <base>_<report>.csv; text
// before the CSV header — "Processing [...]", "** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):" — is skipped).
//  - cuda_gpu_trace ("Start (ns)","Duration (ns)","CorrId","GrdX".."BlkZ","Reg/Trd","StcSMem (MB)","DymSMem (MB)",
//    "Bytes (MB)",...,"Device","Ctx","Strm","Name"): one GPU activity per row; "[CUDA memcpy ...]" rows are Memcpy,
//    "[CUDA memset]" rows Memset, others Kernel.
//  - cuda_api_trace ("Start (ns)","Duration (ns)","Name","Result","CorrID","Pid","Tid",...): one Runtime slice per
//    row, with its correlation id.
//  - the summaries (cuda_gpu_kern_sum, cuda_api_sum, cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum, osrt_sum,
//    nvtx_sum, ...: "Time (%)","Total Time (ns)","Instances"|"Num Calls"|"Count","Avg (ns)","Med (ns)","Min (ns)",
//    "Max (ns)","StdDev (ns)","Name"|"Operation"|"Range"; older releases: "Time(%)", "Average", "Minimum",
//    "Maximum"): they have no per-call times, so each row becomes one slice (kind Unknown, category
//    "nsys-stats <report>") lasting its total time, laid end to end, with the statistics in its args — a table to
//    read, not a timeline; a note says so.
// Clock: nsys session-relative ns (ClockDomain::SessionRelative), unanchored. Rank: one rank per file.

#include <memory>
#include <string>
#include <string_view>

#include "core/formats/source_format.h"

namespace strobe::core {

extern const SourceFormat kNsysStatsCsvFormat;  // id "nsys-stats-csv"

int sniffNsysStatsCsv(const SniffInput& in);
Result<std::unique_ptr<RankData>> parseNsysStatsCsv(std::string_view text, const std::string& path,
                                                    const SourceLoadOptions& options);

}  // namespace strobe::core
