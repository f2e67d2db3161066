#pragma once
// Trace-level facts of one Kineto file (everything outside traceEvents that Strobe understands).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/model/types.h"

namespace strobe::core {

struct DeviceProperties {
    int id = -1;
    std::string name;
    int64_t totalGlobalMem = 0;
    int computeMajor = 0;
    int computeMinor = 0;
    int warpSize = 0;
    int numSms = 0;
    int maxThreadsPerBlock = 0;
    int maxThreadsPerMultiprocessor = 0;
    int regsPerBlock = 0;
    int sharedMemPerBlock = 0;
    std::string rawJson;  // the whole object as written, for anything not listed above
};

struct ProcessGroupConfig {
    std::string name;  // pg_name
    std::string desc;  // pg_desc
    std::string backendConfig;
    int size = 0;
    std::vector<int> ranks;
};

struct DistributedInfo {
    bool present = false;
    std::string backend;
    int rank = -1;
    int worldSize = -1;
    std::string ncclVersion;
    std::vector<ProcessGroupConfig> processGroups;
};

struct TraceInfo {
    std::string path;
    uint64_t fileSize = 0;        // bytes on disk
    bool gzip = false;
    Platform platform = Platform::Unknown;
    std::vector<DeviceProperties> devices;
    DistributedInfo distributed;
    std::string roctracerVersion;
    std::string rocprofilerSdkVersion;
    std::string cuptiVersion;
    std::optional<int64_t> baseTimeNanoseconds;
    std::string displayTimeUnit;
    std::string traceName;
    int schemaVersion = -1;
    uint64_t eventEstimate = 0;    // from file size before the parse; exact count in RankData after
    std::vector<std::pair<std::string, std::string>> otherKeys;  // other top-level keys: key, raw JSON value

    // First GPU's name, or "" when the trace lists no device (deviceProperties absent or empty).
    std::string gpuName() const { return devices.empty() ? std::string() : devices.front().name; }
};

// The platform from the trace-level keys alone: detectPlatform(info, {}) (core/model/platform_hints.h).
Platform detectPlatform(const TraceInfo& info);

}  // namespace strobe::core
