#pragma once
// Platform detection from evidence only (never a default guess).

#include <cstdint>

#include "core/model/trace_info.h"

namespace strobe::core {

// What a trace's events say about its platform: runtime API calls by name ("cu…" on NVIDIA, "hip…" on AMD).
struct PlatformHints {
    uint64_t cudaCalls = 0;
    uint64_t hipCalls = 0;
};

// First match wins: roctracer or rocprofiler-sdk version keys → AMD; a cupti_version key → NVIDIA; a device whose
// name says the vendor (AMD/Radeon/Instinct, NVIDIA/Tesla/Quadro/GeForce/TITAN), else one with warpSize 64 → AMD or
// 32 → NVIDIA; runtime calls named hip… or cu… (the more numerous); otherwise Unknown (e.g. a CPU-only trace
// without deviceProperties).
Platform detectPlatform(const TraceInfo& info, const PlatformHints& hints);

}  // namespace strobe::core
