#pragma once
// Straggler analysis across ranks.
//
// Collectives: every communication kernel (HTA type COMMUNICATION) in the window is keyed by (process group,
// sequence number, kernel name). The process group and sequence come from the kernel's arguments ("Process
// Group Name", "Seq"/"seq") when the profiler wrote them; otherwise the sequence is the kernel's occurrence
// index among kernels of the same name and group on its rank, in start order (NCCL runs a group's collectives
// in order). A collective matched on two or more ranks ends at about the same moment everywhere, so a rank's
// kernel is longer by the time it waited for the others: wait_ns = its duration − the shortest duration among
// the ranks. The rank with the shortest kernel arrived last: it made the others wait (their waits add up to
// its caused_wait_ns). This needs no common clock. start_lag_ns (start − earliest start) is also given; it is
// meaningful only when the ranks share a clock.
//
// Annotated regions: ProfilerStep#N and user annotations (CPU user_annotation ranges) matched by name and
// occurrence; end_lag_ns = a rank's region end − the earliest end among ranks.

#include "core/analysis/registry.h"

namespace strobe::core {

// view summary — columns: rank, collectives, wait_ns, mean_wait_ns, times_last, caused_wait_ns,
//   mean_start_lag_ns, regions, mean_region_end_lag_ns, max_region_end_lag_ns.
// view collectives — columns: process_group, seq, name, ranks, straggler_rank, max_wait_ns, total_wait_ns,
//   start_spread_ns.
// view regions — columns: name, occurrence, ranks, slowest_rank, end_spread_ns, mean_dur_ns.
Result<Table> stragglerAnalysis(AnalysisContext& ctx, const WindowSpec& window, const std::string& view = "summary");
AnalysisInfo stragglerAnalysisInfo();

}  // namespace strobe::core
