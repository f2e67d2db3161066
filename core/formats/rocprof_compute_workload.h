#pragma once
// rocprof-compute (formerly Omniperf) workload directories, as `rocprof-compute profile` writes them
// (workloads/<name>/<gpu>/): pmc_perf.csv (wide form: one row per kernel dispatch, one column per hardware counter,
// per-instance columns such as TCC_HIT[3] included), sysinfo.csv (one row: gpu_model, gpu_arch, cu_per_gpu,
// wave_size, rocm_version ...), pmc_dispatch_info.csv, timestamps.csv, and per-block counter files (SQ_*.csv, ...)
// that repeat pmc_perf's columns.
//
// The directory is one SourceGroup: groupRocprofComputeWorkload() says which files are read (pmc_perf.csv,
// sysinfo.csv, timestamps.csv when pmc_perf.csv has no times) and lists the others as renderings not read. Each
// pmc_perf row becomes a GPU activity (kind Kernel; Grid_Size → gridX and Workgroup_Size → blockX as the AMD tools
// count them, in work-items; Arch_VGPR → registers; LDS_Per_Workgroup → sharedMemory; Dispatch_ID → correlation);
// every other numeric column a kernelCounters row named as the column. Times: Start/End_Timestamp (ns, rocprof's
// boot-relative clock: ClockDomain::Boottime, unanchored); when pmc_perf.csv has none, timestamps.csv's are joined
// by (Kernel_Name, GPU_ID, instance index of that name) — another collection pass, so its Dispatch_IDs do not
// match — with the match rate in LoadStats::joinMatchRate. Timestamps written in scientific notation (a file saved
// by a spreadsheet: "8.1097E+14") are accepted with a warning that times and durations are approximate.
// Rank: one rank for the workload (every process it profiled).

#include <optional>
#include <string>
#include <vector>

#include "core/formats/source_format.h"

namespace strobe::core {

extern const SourceFormat kRocprofComputeWorkloadFormat;  // id "rocprof-compute-workload"

int sniffRocprofComputeWorkload(const SniffInput& in);
// The group for a workload directory `dir` whose file names are `entries`; nullopt when it is not one.
std::optional<SourceGroup> groupRocprofComputeWorkload(const std::string& dir, const std::vector<std::string>& entries);

}  // namespace strobe::core
