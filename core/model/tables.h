#pragma once
// Columnar (struct-of-arrays) tables of one rank. Every bulk table exposes visitColumns() so that generic
// code (the load cache, memory accounting) handles every column, including ones added later, without
// knowing what they mean. Add a column = add a member + one line in visitColumns.

#include <cstddef>
#include <cstdint>

#include "core/model/column.h"
#include "core/model/string_pool.h"
#include "core/model/types.h"

namespace strobe::core {

// A (pid, tid) pair as written. Kineto writes pid/tid as numbers or as strings ("Spans", "PyTorch Profiler");
// a string form is kept in pidStr/tidStr (non-zero) and the number is then 0.
struct Track {
    int64_t pid = 0;
    int64_t tid = 0;
    StrId pidStr = kEmptyStr;
    StrId tidStr = kEmptyStr;
};

struct ProcessMeta {
    int64_t pid = 0;
    StrId pidStr = kEmptyStr;
    StrId name = kEmptyStr;    // process_name
    StrId labels = kEmptyStr;  // process_labels
    int32_t sortIndex = INT32_MIN;
    // The "rank" argument of the process's metadata events (a trace that merges several ranks into one file, each
    // under its own pids: TraceLens TraceFusion), -1 when none says.
    int32_t rank = -1;
};

struct ThreadMeta {
    uint32_t track = 0;  // index into RankData::tracks
    StrId name = kEmptyStr;  // thread_name
    int32_t sortIndex = INT32_MIN;
};

// CPU-side events and annotations: X slices of every category that is not a GPU activity, instants
// (phase 'i'/'I', dur 0) and gpu_user_annotation ranges (their track is the GPU's pid/tid).
// The raw columns of one slice, as a loader appends it (SliceTable::appendRaw); the derived columns are the merge's.
struct SliceRecord {
    TimeNs ts = 0;
    TimeNs dur = 0;
    StrId name = kEmptyStr;
    StrId cat = kEmptyStr;
    EventKind kind = EventKind::Unknown;
    char phase = 'X';
    uint32_t track = 0;
    int64_t correlation = kNone;
    StrId args = kEmptyStr;
};

struct SliceTable {
    Column<TimeNs> ts;
    Column<TimeNs> dur;
    Column<StrId> name;
    Column<StrId> cat;          // raw category as written
    Column<EventKind> kind;
    Column<char> phase;         // 'X', 'i', 'I', ... as written
    Column<uint32_t> track;
    Column<int64_t> externalId;   // "External id", kNone when absent
    Column<int64_t> correlation;  // "correlation" (runtime/driver calls), kNone when absent
    Column<int64_t> sequence;     // "Sequence number" (autograd), kNone when absent
    Column<StrId> args;           // remaining args as a JSON object text, interned ("" when none)
    // Derived by the merge:
    Column<int32_t> parent;       // enclosing slice on the same track, -1 at top level
    Column<uint16_t> depth;       // nesting depth on its track
    Column<uint32_t> byTrack;     // slice indices sorted by (track, ts asc, dur desc, index): AnnotationIndex
    Column<int32_t> launchedGpu;  // runtime/driver slices: first GPU activity they launched, else -1

    size_t size() const { return ts.size(); }
    // Appends a slice's raw columns (externalId and sequence: kNone); returns its row. Flattened: the compiler
    // otherwise calls each column's push_back out of line (a tenth of a large CSV's load went to those calls).
    [[gnu::flatten]] uint32_t appendRaw(const SliceRecord& r) {
        ts.push_back(r.ts); dur.push_back(r.dur); name.push_back(r.name); cat.push_back(r.cat); kind.push_back(r.kind);
        phase.push_back(r.phase); track.push_back(r.track); externalId.push_back(kNone);
        correlation.push_back(r.correlation); sequence.push_back(kNone); args.push_back(r.args);
        return static_cast<uint32_t>(ts.size() - 1);
    }
    template <class V>
    void visitColumns(V&& v) {
        v("ts", ts); v("dur", dur); v("name", name); v("cat", cat); v("kind", kind); v("phase", phase);
        v("track", track); v("externalId", externalId); v("correlation", correlation);
        v("sequence", sequence); v("args", args); v("parent", parent); v("depth", depth);
        v("byTrack", byTrack); v("launchedGpu", launchedGpu);
    }
};

// GPU activities: kernels, memcpy and memset (anything with a device and stream).
// The raw columns of one GPU activity, as a loader appends it (GpuTable::appendRaw); the derived columns are the
// merge's.
struct GpuRecord {
    TimeNs ts = 0;
    TimeNs dur = 0;
    StrId name = kEmptyStr;
    StrId cat = kEmptyStr;
    EventKind kind = EventKind::Kernel;
    uint32_t track = 0;
    int16_t device = 0;
    int32_t stream = 0;
    int32_t queue = -1;
    int64_t correlation = kNone;
    int32_t grid[3] = {0, 0, 0};
    int32_t block[3] = {0, 0, 0};
    int32_t registers = 0;
    int32_t sharedMemory = 0;
    int64_t bytes = 0;
    StrId args = kEmptyStr;
};

struct GpuTable {
    Column<TimeNs> ts;
    Column<TimeNs> dur;
    Column<StrId> name;
    Column<StrId> cat;
    Column<EventKind> kind;      // Kernel, Memcpy or Memset
    Column<uint32_t> track;
    Column<int16_t> device;
    Column<int32_t> stream;
    // The hardware queue the activity ran on (rocprof: the HSA queue's id; activities of one queue run in order
    // whatever HIP stream submitted them), -1 when the source names none (Kineto, nsys).
    Column<int32_t> queue;
    Column<int64_t> correlation;
    Column<int64_t> externalId;
    Column<int32_t> gridX, gridY, gridZ;
    Column<int32_t> blockX, blockY, blockZ;
    Column<int32_t> registers;    // "registers per thread"
    Column<int32_t> sharedMemory; // "shared memory"
    Column<int64_t> bytes;        // memcpy/memset "bytes", 0 when absent
    Column<StrId> args;           // remaining args as JSON object text, interned
    // Derived by the merge:
    Column<int32_t> runtime;      // launching runtime/driver slice, -1 if none
    Column<int32_t> cpuOp;        // innermost CPU op that launched it, -1 if none
    Column<int32_t> step;         // index into StepTable, -1 outside every step
    Column<int32_t> annotation;   // innermost gpu_user_annotation containing it, -1 if none
    Column<KernelCategory> category;
    Column<Collective> collective;
    Column<CopyDirection> copyDirection;
    Column<uint32_t> byTrack;     // row indices sorted by (track, ts, index): a stream's activities in order

    size_t size() const { return ts.size(); }
    // Appends an activity's raw columns (externalId: kNone); returns its row. Flattened, as SliceTable's.
    [[gnu::flatten]] uint32_t appendRaw(const GpuRecord& r) {
        ts.push_back(r.ts); dur.push_back(r.dur); name.push_back(r.name); cat.push_back(r.cat); kind.push_back(r.kind);
        track.push_back(r.track); device.push_back(r.device); stream.push_back(r.stream);
        queue.push_back(r.queue); correlation.push_back(r.correlation); externalId.push_back(kNone);
        gridX.push_back(r.grid[0]); gridY.push_back(r.grid[1]); gridZ.push_back(r.grid[2]);
        blockX.push_back(r.block[0]); blockY.push_back(r.block[1]); blockZ.push_back(r.block[2]);
        registers.push_back(r.registers); sharedMemory.push_back(r.sharedMemory); bytes.push_back(r.bytes);
        args.push_back(r.args);
        return static_cast<uint32_t>(ts.size() - 1);
    }
    template <class V>
    void visitColumns(V&& v) {
        v("ts", ts); v("dur", dur); v("name", name); v("cat", cat); v("kind", kind); v("track", track);
        v("device", device); v("stream", stream); v("queue", queue); v("correlation", correlation); v("externalId", externalId);
        v("gridX", gridX); v("gridY", gridY); v("gridZ", gridZ);
        v("blockX", blockX); v("blockY", blockY); v("blockZ", blockZ);
        v("registers", registers); v("sharedMemory", sharedMemory); v("bytes", bytes); v("args", args);
        v("runtime", runtime); v("cpuOp", cpuOp); v("step", step); v("annotation", annotation);
        v("category", category); v("collective", collective); v("copyDirection", copyDirection);
        v("byTrack", byTrack);
    }
};

// Flow events (ph s/t/f): ac2g, async_cpu_to_gpu, fwdbwd, and any other flow category.
struct FlowTable {
    Column<int64_t> id;
    Column<TimeNs> ts;
    Column<uint32_t> track;
    Column<char> phase;        // 's', 't', 'f'
    Column<StrId> cat;
    Column<StrId> name;
    Column<uint8_t> bindEnclosing;  // "bp": "e"

    size_t size() const { return id.size(); }
    template <class V>
    void visitColumns(V&& v) {
        v("id", id); v("ts", ts); v("track", track); v("phase", phase); v("cat", cat); v("name", name);
        v("bindEnclosing", bindEnclosing);
    }
};

// Counter events (ph C): one row per (event, series key).
struct CounterTable {
    Column<TimeNs> ts;
    Column<uint32_t> track;
    Column<StrId> name;
    Column<StrId> series;
    Column<double> value;

    size_t size() const { return ts.size(); }
    template <class V>
    void visitColumns(V&& v) {
        v("ts", ts); v("track", track); v("name", name); v("series", series); v("value", value);
    }
};

// Hardware counters of GPU activities, long form (one row per activity and counter): rocprofv3
// counter_collection, rocprof v1 counter columns, rocprof-compute pmc_perf, ncu metrics. `gpuRow` indexes the
// rank's GpuTable; counters that could not be joined to an activity are not stored here (the join reports them).
struct KernelCounterTable {
    Column<uint32_t> gpuRow;
    Column<StrId> name;   // counter or metric name as the tool writes it (SQ_WAVES, sm__throughput...)
    Column<double> value;

    size_t size() const { return gpuRow.size(); }
    template <class V>
    void visitColumns(V&& v) {
        v("gpuRow", gpuRow); v("name", name); v("value", value);
    }
};

// Telemetry samples (nvidia-smi, amd-smi, rocm-smi, Strobe's samplers): one row per (time, device, metric).
// `metric` uses Strobe's names with the unit in the name (core/formats/telemetry_metrics.h), e.g. power_w,
// sclk_mhz, temp_c, util_pct, mem_used_mib; `device` is -1 for host-wide metrics (CPU samplers).
struct SampleTable {
    Column<TimeNs> ts;
    Column<int16_t> device;
    Column<StrId> metric;
    Column<double> value;

    size_t size() const { return ts.size(); }
    template <class V>
    void visitColumns(V&& v) {
        v("ts", ts); v("device", device); v("metric", metric); v("value", value);
    }
};

// ProfilerStep#N ranges (derived by the merge), sorted by start.
struct StepTable {
    Column<int64_t> number;
    Column<TimeNs> start;
    Column<TimeNs> end;
    Column<int32_t> slice;  // the ProfilerStep#N slice

    size_t size() const { return number.size(); }
    template <class V>
    void visitColumns(V&& v) {
        v("number", number); v("start", start); v("end", end); v("slice", slice);
    }
};

}  // namespace strobe::core
