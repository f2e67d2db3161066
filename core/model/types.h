#pragma once
// The one vocabulary every loader maps its events into, and the enums the merge derives.

#include <cstdint>
#include <string_view>

namespace strobe::core {

using TimeNs = int64_t;  // nanoseconds on the rank's own clock
// Every start and end time lies in [-kMaxTimeNs, kMaxTimeNs] (±146 years around the epoch; real traces use µs
// since 1970, ~1.7e18 ns), so that ts + dur and the difference of any two times fit in int64 with no check.
inline constexpr TimeNs kMaxTimeNs = TimeNs{1} << 62;
// Every duration is at most kMaxDurationNs (2^46 ns, 19.5 hours: far beyond any profiled event), so that sums of
// durations over any real trace, and over any input a fuzzer can build, fit in int64 unchecked.
inline constexpr TimeNs kMaxDurationNs = TimeNs{1} << 46;
inline constexpr int64_t kNone = -1;  // "no id" / "no index" in int columns

// Event kind: Kineto's current and 2021 category spellings both map here (the raw `cat` string is kept too,
// so unknown categories are never lost).
enum class EventKind : uint8_t {
    Unknown = 0,        // a category Strobe has no meaning for (kept, shown by its raw name)
    CpuOp,              // cpu_op, Operator
    UserAnnotation,     // user_annotation (incl. ProfilerStep#N, record_function ranges)
    GpuUserAnnotation,  // gpu_user_annotation
    Runtime,            // cuda_runtime, Runtime (also hip runtime in AMD traces)
    Driver,             // cuda_driver
    Kernel,             // kernel, Kernel
    Memcpy,             // gpu_memcpy, Memcpy
    Memset,             // gpu_memset, Memset
    PythonFunction,     // python_function
    CpuInstant,         // cpu_instant_event
    Sync,               // cuda_sync
    Trace,              // Trace (the profiler's own span)
    Overhead,           // overhead
    Async,              // async (2021 schema)
    OsRuntime,          // OS runtime library calls (nsys OSRT_API: pthread, ioctl, poll, read, ...)
    Count
};
std::string_view toString(EventKind k);
EventKind eventKindFromCategory(std::string_view cat);  // exact Kineto spellings, both schemas

// Strobe's kernel classification: one category per GPU activity.
enum class KernelCategory : uint8_t {
    Other = 0,
    Gemm,
    Attention,
    Communication,
    Memcpy,
    Memset,
    Convolution,
    Normalization,
    Elementwise,
    Reduction,
    Count
};
std::string_view toString(KernelCategory c);
bool parseKernelCategory(std::string_view s, KernelCategory& out);  // lower-case names as in toString

enum class Collective : uint8_t {
    None = 0,
    AllReduce,
    AllGather,
    ReduceScatter,
    AllToAll,
    SendRecv,
    Broadcast,
    Reduce,
    Other,
    Count
};
std::string_view toString(Collective c);
bool parseCollective(std::string_view s, Collective& out);

enum class CopyDirection : uint8_t { None = 0, HtoD, DtoH, DtoD, HtoH, PtoP, Unknown, Count };
std::string_view toString(CopyDirection d);
CopyDirection copyDirectionFromName(std::string_view kernelName);  // "Memcpy HtoD (Pinned -> Device)" etc.

enum class Platform : uint8_t { Unknown = 0, Nvidia, Amd };
std::string_view toString(Platform p);

}  // namespace strobe::core
