// No Qt header here: hsa.h and Qt's keywords do not mix.
#include "collectors/device_info.h"

#include <array>
#include <cstdio>
#include <memory>

#ifdef STROBE_HAVE_HSA
#include <hsa/hsa.h>
#endif

namespace strobe::collectors {

namespace {
#ifdef STROBE_HAVE_HSA
hsa_status_t visitAgent(hsa_agent_t agent, void* data) {
    auto* out = static_cast<std::vector<GpuDevice>*>(data);
    hsa_device_type_t type;
    if (hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS) return HSA_STATUS_SUCCESS;
    if (type != HSA_DEVICE_TYPE_GPU) return HSA_STATUS_SUCCESS;
    std::array<char, 64> name{};
    hsa_agent_get_info(agent, HSA_AGENT_INFO_NAME, name.data());
    out->push_back({"AMD", std::string(name.data()), std::string(name.data())});
    return HSA_STATUS_SUCCESS;
}
#endif

std::string runCapture(const char* cmd) {
    std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd, "r"), pclose);
    if (!p) return {};
    std::string out;
    std::array<char, 256> buf{};
    while (fgets(buf.data(), buf.size(), p.get())) out += buf.data();
    return out;
}
}  // namespace

DeviceReport probeDevices() {
    DeviceReport r;
    std::string hsaMsg = "HSA runtime not built in";
#ifdef STROBE_HAVE_HSA
    if (hsa_init() == HSA_STATUS_SUCCESS) {
        hsa_iterate_agents(visitAgent, &r.gpus);
        hsa_shut_down();
        hsaMsg = r.gpus.empty() ? "HSA: no GPU agent" : "";
    } else {
        hsaMsg = "HSA: no ROCm device (hsa_init failed)";
    }
#endif
    std::string smi = runCapture("nvidia-smi --query-gpu=name,compute_cap --format=csv,noheader 2>/dev/null");
    size_t pos = 0;
    while (pos < smi.size()) {
        size_t nl = smi.find('\n', pos);
        std::string line = smi.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
        pos = nl == std::string::npos ? smi.size() : nl + 1;
        if (line.empty()) continue;
        auto comma = line.find(',');
        GpuDevice d{"NVIDIA", line.substr(0, comma), comma == std::string::npos ? "" : "sm_" + line.substr(comma + 2)};
        r.gpus.push_back(d);
    }
    if (r.gpus.empty()) r.message = "no GPU found (" + hsaMsg + "; nvidia-smi: none)";
    return r;
}

}  // namespace strobe::collectors
