#pragma once
// nccl-tests / rccl-tests stdout (all_reduce_perf, all_gather_perf, ...): '#' lines with the parameters and the
// devices ("#  Rank  0 Pid 112424 on host device  0 [0x00] A100-SXM4-40GB"), a column header
// "# size count type [redop] [root] time algbw busbw error|#wrong time algbw busbw error|#wrong" (out-of-place, then
// in-place), one row per message size, and "# Avg bus bandwidth : x". Columns are found by name; a blank redop
// (alltoall writes none) is accepted. NCCL INFO/WARN lines and other text are skipped and counted.
//
// What a row becomes — two views of the same numbers, because the model has no table for benchmark results and
// both consumers exist:
//  - slices (kind Unknown, category "nccl-tests", name = the collective), one per row and placement, on two tracks
//    (tid 0 out-of-place, tid 1 in-place), args = {"size_bytes","count","type","redop","root","in_place",
//    "time_us","algbw_gbps","busbw_gbps","errors"}: the kernel table, the tooltips and the CSV export show them;
//  - samples (device -1) at the out-of-place slice's start: size_bytes, time_us, algbw_gbps, busbw_gbps and
//    inplace_time_us, inplace_algbw_gbps, inplace_busbw_gbps: what a bandwidth-vs-size plot reads without parsing
//    JSON (group the samples by ts).
// nccl-tests writes no times: the measurements are laid end to end on each track (duration = the mean time of one
// iteration), ClockDomain::Relative, unanchored; a warning says so. Rank: one rank per log (one benchmark process,
// all of its GPUs). The collective's name comes from a "Collective test starting: all_reduce_perf" line, else from
// the file name ("nccl_allreduce.log" → "allreduce"), else "collective".

#include <memory>
#include <string>
#include <string_view>

#include "core/formats/source_format.h"

namespace strobe::core {

extern const SourceFormat kNcclTestsFormat;  // id "nccl-tests"

int sniffNcclTests(const SniffInput& in);
Result<std::unique_ptr<RankData>> parseNcclTestsLog(std::string_view text, const std::string& path,
                                                    const SourceLoadOptions& options);

}  // namespace strobe::core
