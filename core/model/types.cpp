#include "core/model/types.h"

#include <array>

namespace strobe::core {

std::string_view toString(EventKind k) {
    static constexpr std::array<std::string_view, static_cast<size_t>(EventKind::Count)> names = {
        "unknown", "cpu_op", "user_annotation", "gpu_user_annotation", "runtime", "driver", "kernel",
        "gpu_memcpy", "gpu_memset", "python_function", "cpu_instant_event", "cuda_sync", "trace", "overhead",
        "async"};
    auto i = static_cast<size_t>(k);
    return i < names.size() ? names[i] : "unknown";
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
    return EventKind::Unknown;
}

std::string_view toString(KernelCategory c) {
    static constexpr std::array<std::string_view, static_cast<size_t>(KernelCategory::Count)> names = {
        "other", "gemm", "attention", "communication", "memcpy", "memset", "convolution", "normalization",
        "elementwise", "reduction"};
    auto i = static_cast<size_t>(c);
    return i < names.size() ? names[i] : "other";
}

bool parseKernelCategory(std::string_view s, KernelCategory& out) {
    for (size_t i = 0; i < static_cast<size_t>(KernelCategory::Count); ++i) {
        if (toString(static_cast<KernelCategory>(i)) == s) {
            out = static_cast<KernelCategory>(i);
            return true;
        }
    }
    return false;
}

std::string_view toString(Collective c) {
    static constexpr std::array<std::string_view, static_cast<size_t>(Collective::Count)> names = {
        "none", "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "send_recv", "broadcast", "reduce",
        "other"};
    auto i = static_cast<size_t>(c);
    return i < names.size() ? names[i] : "other";
}

bool parseCollective(std::string_view s, Collective& out) {
    for (size_t i = 0; i < static_cast<size_t>(Collective::Count); ++i) {
        if (toString(static_cast<Collective>(i)) == s) {
            out = static_cast<Collective>(i);
            return true;
        }
    }
    return false;
}

std::string_view toString(CopyDirection d) {
    static constexpr std::array<std::string_view, static_cast<size_t>(CopyDirection::Count)> names = {
        "none", "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "unknown"};
    auto i = static_cast<size_t>(d);
    return i < names.size() ? names[i] : "unknown";
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
