#pragma once
// rocprofv3 CSV outputs (`rocprofv3 --output-format csv`, ROCm 6.2+): one file per domain, named
// <prefix>_<domain>.csv, one prefix (usually <pid>) per process. One prefix = one SourceGroup = one rank (a process).
//
//   kernel_trace          → gpu rows (Kernel): Start/End_Timestamp ns, Agent_Id → device, Stream_Id (else Queue_Id),
//                           Correlation_Id, Grid_Size_[XYZ], Workgroup_Size_[XYZ], VGPR/LDS; Dispatch_Id kept for the join
//   counter_collection    → kernelCounters (long form: Counter_Name, Counter_Value), joined to kernel_trace by
//                           Dispatch_Id (match rate + unmatched names); without a kernel trace its dispatches become
//                           the gpu rows
//   agent_info            → TraceInfo::devices (name, gfx arch, wave size, CU count); GPU agents in Logical_Node_Id
//                           order are devices 0..n-1 (built from documentation: no public sample)
//   memory_copy_trace     → gpu rows (Memcpy), device = the GPU end of the copy
//   memory_allocation_trace, scratch_memory_trace → slices (cat MEMORY_ALLOCATION / SCRATCH_MEMORY), args "agent",
//                           "size"; allocations also "address", "device_type" (c10: 6 hip, 0 cpu, -1 an agent without
//                           agent_info) and "device" (the memory timeline, core/analysis/memory_timeline.h)
//   HIP/HSA/RCCL/marker API traces (Domain, Function, Process_Id, Thread_Id, Correlation_Id) → slices: HIP runtime
//                           calls are Runtime (linked to kernels by correlation), HSA calls Driver, markers
//                           UserAnnotation, RCCL CpuOp
//   *_stats.csv           → listed: an Info diagnostic per file (rows, the largest total)
// Clock: rocprofv3 timestamps are ns on the boot-time clock (not anchored); --clock-offset anchors them.

#include <string>
#include <string_view>

#include "core/formats/source_format.h"

namespace strobe::core {

extern const SourceFormat kRocprofv3CsvFormat;

enum class Rocprofv3CsvKind : uint8_t {
    None = 0,
    KernelTrace,
    CounterCollection,
    AgentInfo,
    MemoryCopy,
    MemoryAllocation,
    ScratchMemory,
    ApiTrace,
    Stats,
};

// The kind of a rocprofv3 CSV from its header (first line of `head`), None when it is not one.
Rocprofv3CsvKind rocprofv3CsvKind(std::string_view head);
// Order of a file inside its group (kernel trace first, then agent info, counters, copies, API traces, stats).
int rocprofv3CsvKindOrder(std::string_view head);
// The prefix a rocprofv3 output file name shares with its siblings: "1234_kernel_trace.csv" → "1234",
// "kernel_trace.csv" → "", "x/run_hip_api_stats.csv" → "run"; a name with no known domain suffix is its own prefix
// (its name without ".csv").
std::string rocprofv3CsvPrefix(std::string_view fileName);

// Loads one group (tests, fuzzing: files given directly). `group.files` holds the CSV files in any order.
Result<std::vector<std::unique_ptr<RankData>>> loadRocprofv3Csv(const SourceGroup& group,
                                                                const SourceLoadOptions& options = {},
                                                                const CancelToken& cancel = {});
// One CSV of the family from text in memory (fuzzing): its kind from the header.
Result<std::vector<std::unique_ptr<RankData>>> loadRocprofv3CsvText(std::string_view text, const std::string& name);

}  // namespace strobe::core
