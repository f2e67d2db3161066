#include "core/model/run_set.h"

namespace strobe::core {

Status attachRunManifest(RunEntry& entry) {
    std::string found;
    for (const std::string& p : entry.paths) {
        const std::string m = findRunManifest(p);
        if (m.empty() || (!found.empty() && m != found)) return Ok{};  // not all of one run directory
        found = m;
    }
    if (found.empty()) return Ok{};
    auto read = readRunManifestFile(found);
    if (!read) return read.error();
    if (!*read) return Ok{};
    entry.manifest = std::make_shared<const RunManifest>(std::move(**read));
    if (entry.parameters.empty()) entry.parameters = entry.manifest->parameters;
    if (entry.repeat == 0 && entry.manifest->repeat) entry.repeat = *entry.manifest->repeat;
    return Ok{};
}

std::vector<std::pair<std::string, std::string>> runFacts(const RunEntry& entry) {
    std::vector<std::pair<std::string, std::string>> out;
    auto joined = [](const auto& items, auto text) {
        std::string s;
        for (const auto& x : items) {
            const std::string t = text(x);
            if (t.empty()) continue;
            if (!s.empty()) s += ", ";
            s += t;
        }
        return s;
    };
    if (!entry.parameters.empty())
        out.emplace_back("parameters", joined(entry.parameters, [](const auto& kv) {
                             return kv.first + "=" + runValueText(kv.second);
                         }));
    const RunManifest* m = entry.manifest.get();
    if (entry.repeat > 0 || (m && m->repeat)) out.emplace_back("repeat", std::to_string(entry.repeat));
    if (!m) return out;
    out.emplace_back("status", std::string(toString(m->status)) + (m->statusReason.empty() ? "" : " (" + m->statusReason + ")"));
    if (!m->command.empty()) {
        std::string command;
        for (const std::string& a : m->command) command += (command.empty() ? "" : " ") + a;
        out.emplace_back("command", command);
    }
    if (!m->tools.empty())
        out.emplace_back("tools", joined(m->tools, [](const ManifestTool& t) {
                             return t.version.empty() ? t.name : t.name + " " + t.version;
                         }));
    if (!m->host.empty()) out.emplace_back("host", m->host);
    if (!m->devices.empty())
        out.emplace_back("devices", joined(m->devices, [](const ManifestDevice& d) {
                             return d.arch.empty() ? d.name : d.name + " (" + d.arch + ")";
                         }));
    if (!m->start.empty()) out.emplace_back("started", m->start);
    if (!m->end.empty()) out.emplace_back("ended", m->end);
    if (m->clocks) {
        const ClockAnchor& c = *m->clocks;
        std::string text = "realtime " + std::to_string(c.realtimeNs) + " ns = boot time " + std::to_string(c.boottimeNs) +
                           " ns = monotonic " + std::to_string(c.monotonicNs) + " ns";
        if (c.utcOffsetSeconds) text += ", local time UTC" + std::string(*c.utcOffsetSeconds < 0 ? "" : "+") +
                                        std::to_string(*c.utcOffsetSeconds) + " s";
        out.emplace_back("clocks", text);
    }
    return out;
}

}  // namespace strobe::core
