#pragma once
// Which GPUs this machine has: HSA on AMD, nvidia-smi on NVIDIA, a clear "no GPU" otherwise.

#include <string>
#include <vector>

namespace strobe::collectors {

struct GpuDevice {
    std::string vendor;  // "AMD" or "NVIDIA"
    std::string name;
    std::string arch;    // gfx942, sm_90 ...
};

struct DeviceReport {
    std::vector<GpuDevice> gpus;
    std::string message;  // "no GPU found (HSA: ...; nvidia-smi: not found)" when gpus is empty
};

DeviceReport probeDevices();

}  // namespace strobe::collectors
