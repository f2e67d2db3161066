#include "core/model/types.h"

#include <array>
#include <string>

#include "core/model/collective_text.h"

namespace strobe::core {

namespace {

// names[e], or `fallback` for a value past the table.
template <class E, size_t N>
std::string_view nameIn(const std::array<std::string_view, N>& names, E e, std::string_view fallback) {
    const auto i = static_cast<size_t>(e);
    return i < N ? names[i] : fallback;
}

// The value below E::Count whose toString is `s`; false (and `out` untouched) when there is none.
template <class E>
bool parseByName(std::string_view s, E& out) {
    for (size_t i = 0; i < static_cast<size_t>(E::Count); ++i) {
        if (toString(static_cast<E>(i)) == s) {
            out = static_cast<E>(i);
            return true;
        }
    }
    return false;
}

}  // namespace

std::string_view toString(EventKind k) {
    static constexpr std::array<std::string_view, static_cast<size_t>(EventKind::Count)> names = {
        "unknown", "cpu_op", "user_annotation", "gpu_user_annotation", "runtime", "driver", "kernel",
        "gpu_memcpy", "gpu_memset", "python_function", "cpu_instant_event", "cuda_sync", "trace", "overhead",
        "async", "os_runtime"};
    return nameIn(names, k, "unknown");
}

EventKind eventKindFromCategory(std::string_view c) {
    // Current schema first, then the 2021 one.
    if (c == "kernel" || c == "Kernel") return EventKind::Kernel;
    if (c == "cpu_op" || c == "Operator") return EventKind::CpuOp;
    if (c == "cuda_runtime" || c == "Runtime") return EventKind::Runtime;
    if (c == "cuda_driver") return EventKind::Driver;
    if (c == "user_annotation") return EventKind::UserAnnotation;
    if (c == "gpu_user_annotation") return EventKind::GpuUserAnnotation;
    if (c == "gpu_memcpy" || c == "Memcpy") return EventKind::Memcpy;
    if (c == "gpu_memset" || c == "Memset") return EventKind::Memset;
    if (c == "python_function") return EventKind::PythonFunction;
    if (c == "cpu_instant_event") return EventKind::CpuInstant;
    if (c == "cuda_sync") return EventKind::Sync;
    if (c == "Trace") return EventKind::Trace;
    if (c == "overhead") return EventKind::Overhead;
    if (c == "async") return EventKind::Async;
    if (c == "osrt") return EventKind::OsRuntime;
    return EventKind::Unknown;
}

std::string_view toString(KernelCategory c) {
    static constexpr std::array<std::string_view, static_cast<size_t>(KernelCategory::Count)> names = {
        "other", "gemm", "attention", "communication", "memcpy", "memset", "convolution", "normalization",
        "elementwise", "reduction"};
    return nameIn(names, c, "other");
}

bool parseKernelCategory(std::string_view s, KernelCategory& out) { return parseByName(s, out); }

std::string_view toString(Collective c) {
    static constexpr std::array<std::string_view, static_cast<size_t>(Collective::Count)> names = {
        "none", "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "send_recv", "broadcast", "reduce",
        "other"};
    return nameIn(names, c, "other");
}

bool parseCollective(std::string_view s, Collective& out) { return parseByName(s, out); }

// The collective a CPU-side name (or a record_param_comms "Collective name" value) speaks of; None if none.
Collective collectiveFromText(std::string_view text) {
    std::string s(text);
    for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    auto has = [&](std::string_view w) { return s.find(w) != std::string::npos; };
    if (has("reduce_scatter") || has("reducescatter")) return Collective::ReduceScatter;
    if (has("all_reduce") || has("allreduce")) return Collective::AllReduce;
    if (has("all_gather") || has("allgather")) return Collective::AllGather;
    if (has("all_to_all") || has("alltoall")) return Collective::AllToAll;
    if (has("broadcast")) return Collective::Broadcast;
    if (has("sendrecv") || has("send") || has("recv")) return Collective::SendRecv;
    if (has("nccl:reduce") || has("c10d::reduce") || s == "reduce" || has("_reduce_")) return Collective::Reduce;
    return Collective::None;
}

std::string_view toString(CopyDirection d) {
    static constexpr std::array<std::string_view, static_cast<size_t>(CopyDirection::Count)> names = {
        "none", "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "unknown"};
    return nameIn(names, d, "unknown");
}

CopyDirection copyDirectionFromName(std::string_view n) {
    auto has = [&](std::string_view x) { return n.find(x) != std::string_view::npos; };
    if (has("HtoD") || has("HostToDevice")) return CopyDirection::HtoD;
    if (has("DtoH") || has("DeviceToHost")) return CopyDirection::DtoH;
    if (has("DtoD") || has("DeviceToDevice")) return CopyDirection::DtoD;
    if (has("HtoH") || has("HostToHost")) return CopyDirection::HtoH;
    if (has("PtoP") || has("PeerToPeer")) return CopyDirection::PtoP;
    return CopyDirection::Unknown;
}

std::string_view toString(Platform p) {
    switch (p) {
    case Platform::Nvidia: return "NVIDIA";
    case Platform::Amd: return "AMD";
    default: return "unknown";
    }
}

}  // namespace strobe::core
