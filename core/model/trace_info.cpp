#include "core/model/trace_info.h"

#include "core/model/platform_hints.h"

namespace strobe::core {

const char* clockDomainName(ClockDomain d) {
    switch (d) {
    case ClockDomain::Realtime: return "realtime";
    case ClockDomain::Monotonic: return "monotonic";
    case ClockDomain::Boottime: return "boottime";
    case ClockDomain::SessionRelative: return "session-relative";
    case ClockDomain::LocalWallTime: return "local-wall-time";
    case ClockDomain::Relative: return "relative";
    case ClockDomain::Unknown: break;
    }
    return "unknown";
}

namespace {

bool contains(std::string_view s, std::string_view word) { return s.find(word) != std::string_view::npos; }

Platform platformOfDeviceName(std::string_view name) {
    if (contains(name, "AMD") || contains(name, "Radeon") || contains(name, "Instinct")) return Platform::Amd;
    if (contains(name, "NVIDIA") || contains(name, "Tesla") || contains(name, "Quadro") || contains(name, "GeForce") ||
        contains(name, "TITAN"))
        return Platform::Nvidia;
    return Platform::Unknown;
}

}  // namespace

Platform detectPlatform(const TraceInfo& info, const PlatformHints& hints) {
    if (!info.roctracerVersion.empty() || !info.rocprofilerSdkVersion.empty()) return Platform::Amd;
    if (!info.cuptiVersion.empty()) return Platform::Nvidia;
    for (const auto& d : info.devices)
        if (Platform p = platformOfDeviceName(d.name); p != Platform::Unknown) return p;
    for (const auto& d : info.devices)
        if (d.warpSize == 64) return Platform::Amd;
    for (const auto& d : info.devices)
        if (d.warpSize == 32) return Platform::Nvidia;
    if (hints.hipCalls > hints.cudaCalls) return Platform::Amd;
    if (hints.cudaCalls > 0) return Platform::Nvidia;
    return Platform::Unknown;
}

Platform detectPlatform(const TraceInfo& info) { return detectPlatform(info, PlatformHints{}); }

}  // namespace strobe::core
