#include "collectors/manifest.h"

#include <time.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace strobe::collectors {

namespace fs = std::filesystem;

namespace {

int64_t clockNsManifest(clockid_t id) {
    timespec ts{};
    clock_gettime(id, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// A parameter value written typed: an integer or a float when the text is one, else a string.
void typedValue(YAML::Emitter& e, const std::string& v) {
    char* end = nullptr;
    if (!v.empty()) {
        std::strtoll(v.c_str(), &end, 10);
        if (*end == '\0') {
            e << YAML::Value << std::strtoll(v.c_str(), nullptr, 10);
            return;
        }
        std::strtod(v.c_str(), &end);
        if (*end == '\0' && v.find_first_of("nN") == std::string::npos) {
            e << YAML::Value << std::strtod(v.c_str(), nullptr);
            return;
        }
    }
    e << YAML::Value << YAML::DoubleQuoted << v;
}

void stringMap(YAML::Emitter& e, const std::map<std::string, std::string>& m) {
    e << YAML::BeginMap;
    for (const auto& [k, v] : m) e << YAML::Key << k << YAML::Value << YAML::DoubleQuoted << v;
    e << YAML::EndMap;
}

}  // namespace

Clocks readClocks() {
    Clocks c;
    c.realtimeNs = clockNsManifest(CLOCK_REALTIME);
    c.monotonicNs = clockNsManifest(CLOCK_MONOTONIC);
    c.boottimeNs = clockNsManifest(CLOCK_BOOTTIME);
    const time_t now = static_cast<time_t>(c.realtimeNs / 1'000'000'000);
    tm local{};
    if (localtime_r(&now, &local)) c.utcOffsetSeconds = local.tm_gmtoff;
    return c;
}

std::map<std::string, std::string> redactEnv(const std::map<std::string, std::string>& env) {
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : env) {
        std::string up = k;
        std::transform(up.begin(), up.end(), up.begin(), [](unsigned char c) { return char(std::toupper(c)); });
        const bool secret = up.find("TOKEN") != std::string::npos || up.find("KEY") != std::string::npos ||
                            up.find("SECRET") != std::string::npos || up.find("PASSWORD") != std::string::npos;
        out[k] = secret ? "<redacted>" : v;
    }
    return out;
}

std::string utcNow() {
    const time_t t = time(nullptr);
    tm u{};
    gmtime_r(&t, &u);
    char buf[32];
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &u);
    return buf;
}

std::string manifestYaml(const RunManifest& m) {
    YAML::Emitter e;
    e << YAML::BeginMap;
    e << YAML::Key << "strobe_manifest" << YAML::Value << 1;
    e << YAML::Key << "command" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& a : m.command) e << YAML::DoubleQuoted << a;
    e << YAML::EndSeq;
    e << YAML::Key << "cwd" << YAML::Value << YAML::DoubleQuoted << m.cwd;
    e << YAML::Key << "parameters" << YAML::Value << YAML::Flow << YAML::BeginMap;
    for (const auto& [k, v] : m.parameters) {
        e << YAML::Key << k;
        typedValue(e, v);
    }
    e << YAML::EndMap;
    if (m.repeat) e << YAML::Key << "repeat" << YAML::Value << *m.repeat;
    e << YAML::Key << "tools" << YAML::Value << YAML::BeginSeq;
    for (const auto& t : m.tools) {
        e << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << t.name << YAML::Key << "version"
          << YAML::Value << YAML::DoubleQuoted << t.version << YAML::Key << "params" << YAML::Value;
        stringMap(e, t.params);
        e << YAML::EndMap;
    }
    e << YAML::EndSeq;
    e << YAML::Key << "env_diff" << YAML::Value;
    stringMap(e, redactEnv(m.envDiff));
    e << YAML::Key << "devices" << YAML::Value << YAML::BeginSeq;
    for (const auto& d : m.devices)
        e << YAML::Flow << YAML::BeginMap << YAML::Key << "vendor" << YAML::Value << d.vendor << YAML::Key << "name"
          << YAML::Value << YAML::DoubleQuoted << d.name << YAML::Key << "arch" << YAML::Value << d.arch << YAML::Key
          << "source" << YAML::Value << d.source << YAML::EndMap;
    e << YAML::EndSeq;
    e << YAML::Key << "host" << YAML::Value << m.host;
    e << YAML::Key << "clocks" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "realtime_ns"
      << YAML::Value << m.clocks.realtimeNs << YAML::Key << "monotonic_ns" << YAML::Value << m.clocks.monotonicNs
      << YAML::Key << "boottime_ns" << YAML::Value << m.clocks.boottimeNs << YAML::Key << "utc_offset_s" << YAML::Value
      << m.clocks.utcOffsetSeconds << YAML::EndMap;
    e << YAML::Key << "start" << YAML::Value << m.start;
    e << YAML::Key << "end" << YAML::Value;
    if (m.end.empty()) e << YAML::Null; else e << m.end;
    e << YAML::Key << "status" << YAML::Value << m.status;
    e << YAML::Key << "exit" << YAML::Value;
    if (m.exitSignal) e << YAML::Flow << YAML::BeginMap << YAML::Key << "signal" << YAML::Value << *m.exitSignal << YAML::EndMap;
    else if (m.exitCode) e << YAML::Flow << YAML::BeginMap << YAML::Key << "code" << YAML::Value << *m.exitCode << YAML::EndMap;
    else e << YAML::Null;
    e << YAML::Key << "slurm_job" << YAML::Value;
    if (m.slurmJob) e << *m.slurmJob; else e << YAML::Null;
    e << YAML::Key << "files" << YAML::Value << YAML::BeginSeq;
    for (const auto& f : m.files) {
        e << YAML::Flow << YAML::BeginMap << YAML::Key << "path" << YAML::Value << YAML::DoubleQuoted << f.path
          << YAML::Key << "size" << YAML::Value << f.size;
        if (!f.tool.empty()) e << YAML::Key << "tool" << YAML::Value << f.tool;
        if (!f.format.empty()) e << YAML::Key << "format" << YAML::Value << f.format;
        e << YAML::EndMap;
    }
    e << YAML::EndSeq;
    if (!m.messages.empty()) {
        e << YAML::Key << "messages" << YAML::Value << YAML::BeginSeq;
        for (const auto& s : m.messages) e << YAML::DoubleQuoted << s;
        e << YAML::EndSeq;
    }
    e << YAML::EndMap;
    return std::string(e.c_str()) + "\n";
}

namespace {

core::Status writeManifestText(const std::string& dir, const std::string& text) {
    const fs::path path = fs::path(dir) / "manifest.yaml";
    const fs::path tmp = fs::path(dir) / ".manifest.yaml.tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << text;
        out.flush();
        if (!out) {
            std::error_code ec;
            fs::remove(tmp, ec);
            return core::Error(core::Location{path.string()}, "cannot write the manifest (disk full or read-only?)");
        }
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) return core::Error(core::Location{path.string()}, "cannot replace the manifest: " + ec.message());
    return core::Ok{};
}

}  // namespace

core::Status writeManifest(const std::string& dir, const RunManifest& m) { return writeManifestText(dir, manifestYaml(m)); }

core::Status markManifestCancelled(const std::string& dir, const std::string& message) {
    const fs::path path = fs::path(dir) / "manifest.yaml";
    try {
        YAML::Node m = YAML::LoadFile(path.string());
        if (!m.IsMap()) return core::Error(core::Location{path.string()}, "not a manifest (no mapping)");
        m["status"] = "cancelled";
        YAML::Node messages = m["messages"];
        if (!messages || !messages.IsSequence()) messages = YAML::Node(YAML::NodeType::Sequence);
        messages.push_back(message);
        m["messages"] = messages;
        YAML::Emitter e;
        e << m;
        return writeManifestText(dir, std::string(e.c_str()) + "\n");
    } catch (const YAML::Exception& e) {
        core::Location where{path.string()};
        if (e.mark.line >= 0) where.line = e.mark.line + 1;
        return core::Error(where, e.msg);
    }
}

}  // namespace strobe::collectors
