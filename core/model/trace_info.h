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

// The clock a source's timestamps are on (DESIGN.md "Samplers"/clock rules). Kineto writes Unix-epoch µs;
// legacy torch autograd traces are relative to the profiler start; rocprof v1/v2/v3 and rocpd write
// CLOCK_BOOTTIME-like ns since boot; nsys writes ns since its session start (TARGET_INFO_SESSION_START_TIME gives the
// epoch anchor); nvidia-smi writes local wall time without a zone. Times in the tables stay as the source wrote them
// (converted to ns); `toRealtimeNs`, when known, maps them onto Unix-epoch ns so that sources can be overlaid.
enum class ClockDomain : uint8_t {
    Unknown,
    Realtime,         // Unix epoch (CLOCK_REALTIME)
    Monotonic,        // CLOCK_MONOTONIC
    Boottime,         // CLOCK_BOOTTIME (rocprof)
    SessionRelative,  // ns since a tool's session start (nsys)
    LocalWallTime,    // local wall-clock time of an unknown zone (nvidia-smi timestamps)
    Relative,         // since the profiler started (legacy autograd traces)
};

struct ClockInfo {
    ClockDomain domain = ClockDomain::Unknown;
    bool anchored = false;     // toRealtimeNs is known (from the source itself, a run manifest or --clock-offset)
    int64_t toRealtimeNs = 0;  // add to a table time to get Unix-epoch ns, when anchored
    std::string anchor;        // where the anchor came from ("nsys TARGET_INFO_SESSION_START_TIME", "manifest"...)
};

const char* clockDomainName(ClockDomain d);  // "realtime", "boottime", ...

struct TraceInfo {
    std::string format = "kineto";  // source format id (core/formats/source_format.h), "kineto" for Kineto JSON
    std::string toolVersion;        // version of the tool that wrote it, "" when the file does not say
    ClockInfo clock;                // Kineto: Realtime, anchored with offset 0
    std::vector<std::string> alsoPresent;  // other renderings of the same data that were not read (.xr: results.db)
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
