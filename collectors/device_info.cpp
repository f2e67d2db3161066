// No Qt header here: hsa.h and Qt's keywords do not mix.
#include "collectors/device_info.h"

#include <algorithm>

#include <array>
#include <cstdio>
#include <memory>
#include <cstdlib>
#include <string>

#include <yaml-cpp/yaml.h>

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
    out->push_back({"AMD", std::string(name.data()), std::string(name.data()), "hsa"});
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

namespace {

DeviceReport recordedDevices(const std::string& path) {
    DeviceReport r;
    try {
        const YAML::Node root = YAML::LoadFile(path);
        const YAML::Node gpus = root["gpus"];
        if (!gpus || !gpus.IsSequence()) {
            r.message = path + ": expected `gpus:` with a list of {vendor, name, arch}";
            return r;
        }
        for (const auto& g : gpus) {
            const std::string vendor = g["vendor"] ? g["vendor"].as<std::string>() : "";
            if (vendor != "AMD" && vendor != "NVIDIA") {
                r.gpus.clear();
                r.message = path + ": line " + std::to_string(g.Mark().line + 1) + ": vendor must be AMD or NVIDIA";
                return r;
            }
            r.gpus.push_back({vendor, g["name"] ? g["name"].as<std::string>() : "", g["arch"] ? g["arch"].as<std::string>() : "",
                              path});
        }
    } catch (const YAML::Exception& e) {
        r.gpus.clear();
        r.message = path + ": " + e.what();
        return r;
    }
    if (r.gpus.empty()) r.message = "no GPU (recorded in " + path + ")";
    return r;
}

}  // namespace

DeviceReport probeDevices() {
    if (const char* file = std::getenv("STROBE_DEVICE_INFO"); file && *file) return recordedDevices(file);
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
        GpuDevice d{"NVIDIA", line.substr(0, comma), comma == std::string::npos ? "" : "sm_" + line.substr(comma + 2),
                    "nvidia-smi"};
        r.gpus.push_back(d);
    }
    if (r.gpus.empty()) r.message = "no GPU found (" + hsaMsg + "; nvidia-smi: none)";
    return r;
}

std::string describeDevices(const DeviceReport& report) {
    if (report.gpus.empty()) return report.message.empty() ? std::string("no GPU found") : report.message;
    // Identical devices counted once: "8 × NVIDIA H100 (sm_90, nvidia-smi)".
    std::vector<std::pair<std::string, int>> kinds;
    for (const auto& g : report.gpus) {
        std::string k = g.vendor + " " + g.name + " (" + (g.arch.empty() ? std::string() : g.arch + ", ") + g.source + ")";
        auto it = std::find_if(kinds.begin(), kinds.end(), [&](const auto& e) { return e.first == k; });
        if (it == kinds.end()) kinds.emplace_back(std::move(k), 1);
        else ++it->second;
    }
    std::string out;
    for (const auto& [k, n] : kinds) out += (out.empty() ? "" : "; ") + std::to_string(n) + " \u00d7 " + k;
    return out;
}

}  // namespace strobe::collectors
