#include "core/model/trace_info.h"

namespace strobe::core {

Platform detectPlatform(const TraceInfo& info) {
    if (!info.roctracerVersion.empty() || !info.rocprofilerSdkVersion.empty()) return Platform::Amd;
    for (const auto& d : info.devices)
        if (d.warpSize == 64) return Platform::Amd;
    return Platform::Nvidia;
}

}  // namespace strobe::core
