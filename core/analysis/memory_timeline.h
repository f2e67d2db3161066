#pragma once
// Memory timeline from the caching allocator's events that PyTorch's profiler writes with profile_memory=True:
// Kineto instants named "[memory]" (cat cpu_instant_event) whose args are "Addr", "Bytes" (> 0 an allocation,
// < 0 a free), "Total Allocated", "Total Reserved", "Device Type" and "Device Id". The Kineto reader keeps them as
// instant slices with those args in the slice's args text; this file reads them from there.
//
// Per (device type, device id) — the CPU (type 0, id -1) apart from the GPUs:
//   allocated(t) = the "Total Allocated" of the last event at or before t (not a running sum of "Bytes": the total
//                  counts memory allocated before the trace began, which no event of the trace shows);
//   reserved(t)  = the "Total Reserved" of that event;
//   peak         = the first event (in time, then file order) with the largest "Total Allocated";
//   live at peak = blocks allocated in the trace and not freed at or before the peak event, matched by "Addr"
//                  (a free of an address the trace never allocated frees a block from before the trace: counted,
//                  not matched); the rest of the peak's total was allocated before the trace ("pre_trace_bytes");
//   operator     = the innermost and the outermost cpu_op on the allocation's thread whose [ts, ts+dur) holds it
//                  (the slice hierarchy of the merge): "aten::empty" inside "aten::layer_norm" says both what
//                  allocated and on whose behalf;
//   churn        = per ProfilerStep, the allocations (count, bytes) and frees whose time lies in the step.
//
// Other sources feed the same model (MemoryDevice::source says which), on the clock of the rank (or host telemetry
// source) that holds them, i.e. the kernels' clock:
//   rocprofv3    — memory_allocation_trace rows (slices of cat MEMORY_ALLOCATION, args "address", "size", "device_type",
//                  "device" from the loader): an operation whose name holds "FREE" frees the block allocated at its
//                  address (its own size is 0 and its agent empty: the size and device are the allocation's), one
//                  holding "ALLOCATE" allocates "size" bytes; time = Start_Timestamp. allocated(t) = the running sum of
//                  the blocks allocated in the trace and not yet freed (what was allocated before the trace is not
//                  known: the curve starts at 0); these are the runtime's allocations — under PyTorch the caching
//                  allocator's reserved segments — so reserved(t) = allocated(t). A free of an address the trace never
//                  allocated is counted (MemoryTimeline::unmatchedFrees), not drawn. Device: the GPU index when
//                  agent_info names the agent a GPU, -1 for a CPU agent, else the agent's number with device type
//                  "agent" (kMemoryAgentType).
//   nsys         — CUDA_GPU_MEMORY_USAGE_EVENTS rows (nsys --cuda-memory-usage=true; slices of cat
//                  kNsysMemoryCategory from the loader, named by the row's operation, "Allocation" or "Deallocation",
//                  args "address", "size", "device_type" 1 (cuda), "device" = deviceId), device-resident memory kinds
//                  only (Device, Array, Device Static: see nsys_sqlite.h): the same model as rocprofv3's — frees
//                  matched by address to the allocations the trace holds, allocated(t) = reserved(t) = the running sum
//                  of the live blocks (the CUDA runtime's allocations: under PyTorch the caching allocator's segments).
//   smi          — the device's used memory as the smi samplers write it (telemetry metric mem_used_mib, nvidia-smi /
//                  amd-smi / rocm-smi / rocpd monitor): one event per sample, allocated = reserved = used MiB × 2^20
//                  (the driver's view: every process's allocations, contexts and the allocators' caches); no blocks,
//                  so no live-at-peak and no allocs/frees. Device type cuda on NVIDIA, hip on AMD. The host's RAM
//                  (device -1: Strobe's CPU sampler also writes mem_used_mib) is not device memory: left out.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/registry.h"

namespace strobe::core {

// c10::DeviceType as the trace writes it: 0 "cpu", 1 "cuda", 6 "hip", 12 "xpu", 13 "mps", ...; kMemoryAgentType
// "agent" (a rocprofv3 agent whose kind no agent_info says); "type<N>" otherwise.
inline constexpr int64_t kMemoryAgentType = -1;
std::string memoryDeviceTypeName(int64_t deviceType);

enum class MemorySource : uint8_t { Kineto, Rocprofv3, Smi, Nsys };
std::string_view memorySourceName(MemorySource s);  // "kineto", "rocprofv3", "smi", "nsys"


struct MemoryEvent {
    TimeNs ts = 0;
    uint32_t slice = 0;  // the "[memory]" instant or rocprofv3 allocation in RankData::slices; smi: the sample row
    int64_t addr = 0;
    int64_t bytes = 0;  // > 0 allocation, < 0 free
    int64_t allocated = 0;
    int64_t reserved = 0;
};

struct MemoryDevice {
    MemorySource source = MemorySource::Kineto;
    int64_t deviceType = 0;
    int64_t device = 0;
    std::vector<MemoryEvent> events;  // in (ts, slice) order
    size_t peak = 0;                  // index in events of the first largest "Total Allocated"
    int64_t peakReserved = 0;         // largest "Total Reserved"
    int64_t runningSumPeak = 0;       // largest running sum of "Bytes" from 0 (shown beside the real peak)
    int64_t allocs = 0, frees = 0;
    int64_t allocBytes = 0, freeBytes = 0;
    const MemoryEvent& peakEvent() const { return events[peak]; }
    bool hasReserved() const { return source == MemorySource::Kineto; }  // else reserved is the allocated curve
};

struct MemoryTimeline {
    std::vector<MemoryDevice> devices;  // sorted by (source, device type, device id)
    size_t unreadable = 0;              // "[memory]" instants whose args lack a field or hold a non-integer
    std::string firstUnreadable;        // where and why, for the message
    size_t unmatchedFrees = 0;          // rocprofv3 frees of an address the trace never allocated
};

MemoryTimeline memoryTimeline(const RankData& rank);

struct LiveBlock {
    int64_t addr = 0, bytes = 0;
    TimeNs ts = 0;
    uint32_t slice = 0;
    int32_t op = -1, topOp = -1;  // innermost / outermost cpu_op slice holding the allocation, -1 when none
};
struct LiveAtPeak {
    std::vector<LiveBlock> blocks;  // by allocation time
    int64_t liveBytes = 0;          // sum of blocks' bytes
    int64_t preTraceBytes = 0;      // the peak's total minus liveBytes: allocated before the trace, still live
    int64_t preTraceFrees = 0, preTraceFreeBytes = 0;  // frees (at or before the peak) of blocks not seen allocated
};
LiveAtPeak liveAtPeak(const RankData& rank, const MemoryDevice& device);

struct MemoryStepChurn {
    int64_t step = 0;  // ProfilerStep number
    int64_t allocs = 0, allocBytes = 0, frees = 0, freeBytes = 0;
    int64_t peakAllocated = 0;  // largest "Total Allocated" of an event in the step (0 when none)
};
std::vector<MemoryStepChurn> memoryChurnPerStep(const RankData& rank, const MemoryDevice& device);

// The peak allocated bytes of each ProfilerStep [start, end) of `rank` (in its step order): the largest allocated
// value the device holds during the step — the one carried in from the last event before the step (memory held when
// the step begins) and every event in it; 0 before the device's first event. The sweep comparison's per-step peak.
std::vector<int64_t> memoryPeakPerStep(const RankData& rank, const MemoryDevice& device);

// `strobe-cli analyze memory-timeline PATH [--view devices|live|steps|series]`: one row per rank and device
// (devices), the blocks live at each device's peak (live), the churn per step (steps), or every event's allocated
// and reserved bytes (series).
Result<Table> memoryTimelineTable(AnalysisContext& ctx, const AnalysisRequest& request);
AnalysisInfo memoryTimelineAnalysisInfo();

namespace col {
inline constexpr ColumnKey kMtSource{"source"};
inline constexpr ColumnKey kMtTool{"tool"};  // series view: the tool that wrote the events (the format's tool)
inline constexpr ColumnKey kMtDeviceType{"device_type"};
inline constexpr ColumnKey kMtDevice{"device"};
inline constexpr ColumnKey kMtPeakAllocated{"peak_allocated_bytes"};
inline constexpr ColumnKey kMtPeakReserved{"peak_reserved_bytes"};
inline constexpr ColumnKey kMtPeakTs{"peak_ts_ns"};
inline constexpr ColumnKey kMtEvents{"events"};
inline constexpr ColumnKey kMtAllocs{"allocs"};
inline constexpr ColumnKey kMtFrees{"frees"};
inline constexpr ColumnKey kMtAllocBytes{"alloc_bytes"};
inline constexpr ColumnKey kMtFreeBytes{"free_bytes"};
inline constexpr ColumnKey kMtRunningSumPeak{"running_sum_peak_bytes"};
inline constexpr ColumnKey kMtLiveBlocks{"live_blocks_at_peak"};
inline constexpr ColumnKey kMtLiveBytes{"live_bytes_at_peak"};
inline constexpr ColumnKey kMtPreTraceBytes{"pre_trace_bytes_at_peak"};
inline constexpr ColumnKey kMtFinalAllocated{"final_allocated_bytes"};
inline constexpr ColumnKey kMtAddr{"addr"};
inline constexpr ColumnKey kMtBytes{"bytes"};
inline constexpr ColumnKey kMtTs{"ts_ns"};
inline constexpr ColumnKey kMtOp{"op"};
inline constexpr ColumnKey kMtTopOp{"top_op"};
inline constexpr ColumnKey kMtStep{"step"};
inline constexpr ColumnKey kMtPeakInStep{"peak_allocated_in_step_bytes"};
inline constexpr ColumnKey kMtAllocated{"allocated_bytes"};
inline constexpr ColumnKey kMtReserved{"reserved_bytes"};
}  // namespace col

}  // namespace strobe::core
