#pragma once
// Which GPUs this machine has: HSA on AMD, nvidia-smi on NVIDIA, a clear "no GPU" otherwise.

#include <string>
#include <vector>

namespace strobe::collectors {

struct GpuDevice {
    std::string vendor;  // "AMD" or "NVIDIA"
    std::string name;
    std::string arch;    // gfx942, sm_90 ...
    std::string source;  // hsa | nvidia-smi | the STROBE_DEVICE_INFO file
};

struct DeviceReport {
    std::vector<GpuDevice> gpus;
    std::string message;  // "no GPU found (HSA: ...; nvidia-smi: not found)" when gpus is empty
};

// The machine's GPUs. STROBE_DEVICE_INFO=FILE (the only override, for tests and for machines whose GPUs are not
// visible to this process) replaces the probe with a recorded one: YAML `gpus: [{vendor: AMD, name: ..., arch: ...}]`
// (`gpus: []`: no GPU); an unreadable or malformed file is reported in `message`, with no GPU.
DeviceReport probeDevices();

// One line for people: "2 × AMD Instinct MI300X (gfx942, hsa)", several kinds joined by "; ", or the message of an
// empty report ("no GPU found (HSA: ...; nvidia-smi: ...)").
std::string describeDevices(const DeviceReport& report);

}  // namespace strobe::collectors
