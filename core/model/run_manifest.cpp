#include "core/model/run_manifest.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <tuple>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace strobe::core {

namespace fs = std::filesystem;

// File-local helpers in a named namespace: the unity build puts this file beside others of core.
namespace run_model_io {

// A value written typed: an integer or a float plain (a float always with '.', 'e' or "inf" so that it reads back a
// float), a text double-quoted (so that "64" stays a text).
void emitRunValue(YAML::Emitter& e, const RunValue& v) {
    if (const auto* i = std::get_if<long long>(&v)) {
        e << YAML::Value << *i;
    } else if (const auto* d = std::get_if<double>(&v)) {
        std::string s = runValueText(*d);
        if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
        e << YAML::Value << s;
    } else {
        e << YAML::Value << YAML::DoubleQuoted << std::get<std::string>(v);
    }
}

// A scalar read back: a quoted one is a text; a plain one an integer, a float or a text as its text reads.
RunValue readRunValue(const YAML::Node& n) {
    if (n.Tag() == "!") return n.Scalar();
    return parseRunValue(n.Scalar());
}

void emitStringMap(YAML::Emitter& e, const std::map<std::string, std::string>& m) {
    e << YAML::BeginMap;
    for (const auto& [k, v] : m) e << YAML::Key << k << YAML::Value << YAML::DoubleQuoted << v;
    e << YAML::EndMap;
}

void emitParameters(YAML::Emitter& e, const RunParameters& p) {
    e << YAML::Flow << YAML::BeginMap;
    for (const auto& [k, v] : p) {
        e << YAML::Key << k;
        emitRunValue(e, v);
    }
    e << YAML::EndMap;
}

Location locationAt(const std::string& source, const YAML::Node& n) {
    Location loc{source};
    if (n && n.Mark().line >= 0) loc.line = n.Mark().line + 1;
    return loc;
}

// The shape errors of one document, thrown and caught in the readers below.
struct ShapeError {
    Location where;
    std::string message;
};

[[noreturn]] void shapeError(const std::string& source, const YAML::Node& n, std::string message) {
    throw ShapeError{locationAt(source, n), std::move(message)};
}

std::string scalarOf(const std::string& source, const YAML::Node& n, const char* what) {
    if (!n.IsScalar()) shapeError(source, n, fmt::format("{}: expected a scalar", what));
    return n.Scalar();
}

template <class Int>
Int integerOf(const std::string& source, const YAML::Node& n, const std::string& what) {
    const std::string s = n.IsScalar() ? n.Scalar() : std::string();
    Int x = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size())
        shapeError(source, n, fmt::format("{} is not an integer: '{}'", what, s));
    return x;
}

std::optional<std::string> optionalText(const std::string& source, const YAML::Node& n, const char* what) {
    if (!n || n.IsNull()) return std::nullopt;
    return scalarOf(source, n, what);
}

RunParameters parametersOf(const std::string& source, const YAML::Node& n) {
    RunParameters out;
    if (!n || n.IsNull()) return out;
    if (!n.IsMap()) shapeError(source, n, "parameters: expected a mapping {axis: value}");
    for (const auto& kv : n) {
        const std::string key = scalarOf(source, kv.first, "parameters");
        if (!kv.second.IsScalar()) shapeError(source, kv.second, fmt::format("parameters: '{}' is not a scalar", key));
        out[key] = readRunValue(kv.second);
    }
    return out;
}

std::map<std::string, std::string> stringMapOf(const std::string& source, const YAML::Node& n, const char* what) {
    std::map<std::string, std::string> out;
    if (!n || n.IsNull()) return out;
    if (!n.IsMap()) shapeError(source, n, fmt::format("{}: expected a mapping", what));
    for (const auto& kv : n) out[scalarOf(source, kv.first, what)] = scalarOf(source, kv.second, what);
    return out;
}

ClockAnchor clocksOf(const std::string& source, const YAML::Node& clocks) {
    if (!clocks.IsMap()) shapeError(source, clocks, "clocks: expected a mapping {realtime_ns, monotonic_ns, boottime_ns}");
    ClockAnchor c;
    c.path = source;
    for (auto [key, out] : {std::pair{"realtime_ns", &c.realtimeNs}, std::pair{"monotonic_ns", &c.monotonicNs},
                            std::pair{"boottime_ns", &c.boottimeNs}}) {
        const YAML::Node v = clocks[key];
        if (!v) shapeError(source, clocks, fmt::format("clocks: '{}' is missing", key));
        try {
            *out = integerOf<int64_t>(source, v, fmt::format("clocks: '{}'", key));
        } catch (ShapeError& e) {
            e.where = locationAt(source, clocks);  // the clocks' line: a flow mapping's values have no marks of their own
            throw;
        }
    }
    if (const YAML::Node z = clocks["utc_offset_s"]; z) {
        try {
            c.utcOffsetSeconds = integerOf<int64_t>(source, z, "clocks: 'utc_offset_s'");
        } catch (ShapeError& e) {
            e.where = locationAt(source, clocks);
            throw;
        }
    }
    return c;
}

int versionOf(const std::string& source, const YAML::Node& v, const char* key) {
    const int version = integerOf<int>(source, v, key);
    if (version < 1) shapeError(source, v, fmt::format("{}: {} is not a version (1 or more)", key, version));
    return version;
}

RunManifest manifestOf(const YAML::Node& doc, const std::string& source) {
    RunManifest m;
    m.version = versionOf(source, doc["strobe_manifest"], "strobe_manifest");
    const bool newer = m.version > RunManifest::kVersion;
    if (newer)
        m.warnings.push_back(fmt::format("{}: written by a newer Strobe (strobe_manifest: {}); read as far as version "
                                         "{} knows",
                                         source, m.version, RunManifest::kVersion));
    if (const YAML::Node c = doc["command"]; c && !c.IsNull()) {
        if (!c.IsSequence()) shapeError(source, c, "command: expected a list");
        for (const auto& a : c) m.command.push_back(scalarOf(source, a, "command"));
    }
    m.cwd = optionalText(source, doc["cwd"], "cwd").value_or("");
    m.parameters = parametersOf(source, doc["parameters"]);
    if (const YAML::Node r = doc["repeat"]; r && !r.IsNull()) m.repeat = integerOf<int>(source, r, "repeat");
    if (const YAML::Node t = doc["tools"]; t && !t.IsNull()) {
        if (!t.IsSequence()) shapeError(source, t, "tools: expected a list");
        for (const auto& x : t) {
            if (!x.IsMap()) shapeError(source, x, "tools: an entry is not a mapping {name, version, params}");
            m.tools.push_back({optionalText(source, x["name"], "tools: name").value_or(""),
                               optionalText(source, x["version"], "tools: version").value_or(""),
                               stringMapOf(source, x["params"], "tools: params")});
        }
    }
    m.envDiff = stringMapOf(source, doc["env_diff"], "env_diff");
    if (const YAML::Node d = doc["devices"]; d && !d.IsNull()) {
        if (!d.IsSequence()) shapeError(source, d, "devices: expected a list");
        for (const auto& x : d) {
            if (!x.IsMap()) shapeError(source, x, "devices: an entry is not a mapping");
            m.devices.push_back({optionalText(source, x["vendor"], "devices: vendor").value_or(""),
                                 optionalText(source, x["name"], "devices: name").value_or(""),
                                 optionalText(source, x["arch"], "devices: arch").value_or(""),
                                 optionalText(source, x["source"], "devices: source").value_or("")});
        }
    }
    m.host = optionalText(source, doc["host"], "host").value_or("");
    if (const YAML::Node c = doc["clocks"]; c && !c.IsNull()) m.clocks = clocksOf(source, c);
    m.start = optionalText(source, doc["start"], "start").value_or("");
    m.end = optionalText(source, doc["end"], "end").value_or("");
    // A manifest without a status is taken as completed: hand-written ones (a sweep laid out by a script) say no
    // more than their parameters.
    if (const YAML::Node s = doc["status"]; s && !s.IsNull()) {
        const std::string text = scalarOf(source, s, "status");
        if (auto st = parseRunStatus(text)) {
            m.status = *st;
        } else if (newer) {
            m.status = RunStatus::Incomplete;
            m.statusReason = "status '" + text + "' of a newer Strobe";
            m.warnings.push_back(fmt::format("{}: status '{}' is unknown to this version; read as incomplete", source, text));
        } else {
            shapeError(source, s, fmt::format("status: '{}' is not running, completed, incomplete, failed or cancelled", text));
        }
    } else {
        m.status = RunStatus::Completed;
    }
    if (auto reason = optionalText(source, doc["status_reason"], "status_reason")) m.statusReason = *reason;
    if (auto failure = optionalText(source, doc["failure"], "failure")) m.failure = *failure;
    if (const YAML::Node x = doc["exit"]; x && !x.IsNull()) {
        if (!x.IsMap()) shapeError(source, x, "exit: expected a mapping {code} or {signal}");
        if (x["code"]) m.exitCode = integerOf<int>(source, x["code"], "exit: code");
        if (x["signal"]) m.exitSignal = integerOf<int>(source, x["signal"], "exit: signal");
    }
    m.slurmJob = optionalText(source, doc["slurm_job"], "slurm_job");
    if (const YAML::Node f = doc["files"]; f && !f.IsNull()) {
        if (!f.IsSequence()) shapeError(source, f, "files: expected a list");
        for (const auto& x : f) {
            if (!x.IsMap()) shapeError(source, x, "files: an entry is not a mapping {path, size}");
            ManifestFile file;
            file.path = optionalText(source, x["path"], "files: path").value_or("");
            if (x["size"]) file.size = integerOf<uint64_t>(source, x["size"], "files: size");
            file.tool = optionalText(source, x["tool"], "files: tool").value_or("");
            file.format = optionalText(source, x["format"], "files: format").value_or("");
            m.files.push_back(std::move(file));
        }
    }
    if (const YAML::Node msgs = doc["messages"]; msgs && !msgs.IsNull()) {
        if (!msgs.IsSequence()) shapeError(source, msgs, "messages: expected a list");
        for (const auto& x : msgs) m.messages.push_back(scalarOf(source, x, "messages"));
    }
    return m;
}

// Parses `text`: the document, or an Error naming `source` and the line.
Result<YAML::Node> parseDocument(const std::string& text, const std::string& source) {
    try {
        return YAML::Load(text);
    } catch (const YAML::Exception& e) {
        Location where{source};
        if (e.mark.line >= 0) where.line = e.mark.line + 1;
        return Error(where, "not valid YAML: " + e.msg);
    }
}

Result<std::string> readText(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::error_code ec;
        return Error(Location{path.string()}, fs::exists(path, ec) ? "cannot be read" : "no such file");
    }
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

Status writeAtomically(const fs::path& path, const std::string& text, const char* what) {
    const fs::path tmp = path.parent_path() / ("." + path.filename().string() + ".tmp");
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << text;
        out.flush();
        if (!out) {
            std::error_code ec;
            fs::remove(tmp, ec);
            return Error(Location{path.string()}, fmt::format("cannot write the {} (disk full or read-only?)", what));
        }
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) return Error(Location{path.string()}, fmt::format("cannot replace the {}: {}", what, ec.message()));
    return Ok{};
}

}  // namespace run_model_io

using namespace run_model_io;

const char* toString(RunStatus status) {
    switch (status) {
        case RunStatus::Running: return "running";
        case RunStatus::Completed: return "completed";
        case RunStatus::Incomplete: return "incomplete";
        case RunStatus::Failed: return "failed";
        case RunStatus::Cancelled: return "cancelled";
    }
    return "running";
}

std::optional<RunStatus> parseRunStatus(std::string_view text) {
    for (RunStatus s : {RunStatus::Running, RunStatus::Completed, RunStatus::Incomplete, RunStatus::Failed,
                        RunStatus::Cancelled})
        if (text == toString(s)) return s;
    return std::nullopt;
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

std::string runManifestToYaml(const RunManifest& m) {
    YAML::Emitter e;
    e << YAML::BeginMap;
    e << YAML::Key << "strobe_manifest" << YAML::Value << RunManifest::kVersion;
    e << YAML::Key << "command" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& a : m.command) e << YAML::DoubleQuoted << a;
    e << YAML::EndSeq;
    e << YAML::Key << "cwd" << YAML::Value << YAML::DoubleQuoted << m.cwd;
    e << YAML::Key << "parameters" << YAML::Value;
    emitParameters(e, m.parameters);
    if (m.repeat) e << YAML::Key << "repeat" << YAML::Value << *m.repeat;
    e << YAML::Key << "tools" << YAML::Value << YAML::BeginSeq;
    for (const auto& t : m.tools) {
        e << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << t.name << YAML::Key << "version"
          << YAML::Value << YAML::DoubleQuoted << t.version << YAML::Key << "params" << YAML::Value;
        emitStringMap(e, t.params);
        e << YAML::EndMap;
    }
    e << YAML::EndSeq;
    e << YAML::Key << "env_diff" << YAML::Value;
    emitStringMap(e, redactEnv(m.envDiff));
    e << YAML::Key << "devices" << YAML::Value << YAML::BeginSeq;
    for (const auto& d : m.devices)
        e << YAML::Flow << YAML::BeginMap << YAML::Key << "vendor" << YAML::Value << d.vendor << YAML::Key << "name"
          << YAML::Value << YAML::DoubleQuoted << d.name << YAML::Key << "arch" << YAML::Value << d.arch << YAML::Key
          << "source" << YAML::Value << d.source << YAML::EndMap;
    e << YAML::EndSeq;
    e << YAML::Key << "host" << YAML::Value << m.host;
    if (m.clocks) {
        e << YAML::Key << "clocks" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "realtime_ns"
          << YAML::Value << m.clocks->realtimeNs << YAML::Key << "monotonic_ns" << YAML::Value << m.clocks->monotonicNs
          << YAML::Key << "boottime_ns" << YAML::Value << m.clocks->boottimeNs;
        if (m.clocks->utcOffsetSeconds)
            e << YAML::Key << "utc_offset_s" << YAML::Value << *m.clocks->utcOffsetSeconds;
        e << YAML::EndMap;
    }
    e << YAML::Key << "start" << YAML::Value << m.start;
    e << YAML::Key << "end" << YAML::Value;
    if (m.end.empty()) e << YAML::Null; else e << m.end;
    e << YAML::Key << "status" << YAML::Value << toString(m.status);
    if (!m.statusReason.empty()) e << YAML::Key << "status_reason" << YAML::Value << YAML::DoubleQuoted << m.statusReason;
    e << YAML::Key << "exit" << YAML::Value;
    if (m.exitSignal) e << YAML::Flow << YAML::BeginMap << YAML::Key << "signal" << YAML::Value << *m.exitSignal << YAML::EndMap;
    else if (m.exitCode) e << YAML::Flow << YAML::BeginMap << YAML::Key << "code" << YAML::Value << *m.exitCode << YAML::EndMap;
    else e << YAML::Null;
    if (!m.failure.empty()) e << YAML::Key << "failure" << YAML::Value << YAML::DoubleQuoted << m.failure;
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

// The document of a manifest: nullopt when it is YAML but no strobe_manifest mapping.
namespace run_model_io {
Result<std::optional<RunManifest>> manifestFromText(const std::string& text, const std::string& source) {
    auto doc = parseDocument(text, source);
    if (!doc) return doc.error();
    if (!doc->IsMap() || !(*doc)["strobe_manifest"]) return std::optional<RunManifest>{};
    try {
        return std::optional<RunManifest>{manifestOf(*doc, source)};
    } catch (const ShapeError& e) {
        return Error(e.where, e.message);
    } catch (const YAML::Exception& e) {
        Location where{source};
        if (e.mark.line >= 0) where.line = e.mark.line + 1;
        return Error(where, e.msg);
    }
}
}  // namespace run_model_io

Result<RunManifest> runManifestFromYaml(const std::string& text, const std::string& sourceName) {
    auto m = manifestFromText(text, sourceName);
    if (!m) return m.error();
    if (!*m) return Error(Location{sourceName}, "not a Strobe run manifest (no strobe_manifest)");
    return std::move(**m);
}

Result<std::optional<RunManifest>> readRunManifestFile(const std::string& manifestPath) {
    auto text = readText(manifestPath);
    if (!text) return text.error();
    return manifestFromText(*text, manifestPath);
}

Result<RunManifest> readRunManifest(const std::string& runDir) {
    const std::string path = runManifestPath(runDir);
    auto text = readText(path);
    if (!text) return text.error();
    return runManifestFromYaml(*text, path);
}

Status writeRunManifest(const std::string& runDir, const RunManifest& m) {
    return writeAtomically(runManifestPath(runDir), runManifestToYaml(m), "manifest");
}

Status markRunManifestCancelled(const std::string& runDir, const std::string& message) {
    const std::string path = runManifestPath(runDir);
    auto text = readText(path);
    if (!text) return text.error();
    auto doc = parseDocument(*text, path);
    if (!doc) return doc.error();
    YAML::Node m = *doc;
    if (!m.IsMap()) return Error(Location{path}, "not a manifest (no mapping)");
    try {
        m["status"] = toString(RunStatus::Cancelled);
        YAML::Node messages = m["messages"];
        if (!messages || !messages.IsSequence()) messages = YAML::Node(YAML::NodeType::Sequence);
        messages.push_back(message);
        m["messages"] = messages;
        YAML::Emitter e;
        e << m;
        return writeAtomically(path, std::string(e.c_str()) + "\n", "manifest");
    } catch (const YAML::Exception& e) {
        return Error(Location{path}, e.msg);
    }
}

std::string runManifestPath(const std::string& runDir) { return (fs::path(runDir) / kRunManifestFileName).string(); }

bool hasRunManifest(const std::string& runDir) {
    std::error_code ec;
    return fs::is_regular_file(fs::path(runDir) / kRunManifestFileName, ec);
}

bool isRunManifestFile(std::string_view fileName) {
    return fileName == kRunManifestFileName || fileName == std::string(".") + kRunManifestFileName + ".tmp";
}

std::string findRunManifest(const std::string& sourcePath) {
    std::error_code ec;
    fs::path dir = fs::absolute(sourcePath, ec);
    if (ec) return {};
    if (!fs::is_directory(dir, ec)) dir = dir.parent_path();
    for (int up = 0; up <= 3 && !dir.empty(); ++up) {
        const auto candidate = dir / kRunManifestFileName;
        if (fs::is_regular_file(candidate, ec)) return candidate.string();
        if (dir == dir.root_path()) break;
        dir = dir.parent_path();
    }
    return {};
}

std::vector<std::string> findRunManifestDirs(const std::string& rootText, int maxDepth) {
    const fs::path root(rootText);
    std::vector<fs::path> found;
    std::error_code ec;
    if (hasRunManifest(rootText)) found.push_back(root);
    for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
        if (it.depth() >= maxDepth || it->path().filename().string().starts_with(".")) it.disable_recursion_pending();
        if (it->path().filename() == kRunManifestFileName && it->path().parent_path() != root)
            found.push_back(it->path().parent_path());
    }
    std::sort(found.begin(), found.end());
    std::vector<std::string> out;
    for (const auto& f : found) out.push_back(f.string());
    return out;
}

// ---------------------------------------------------------------- sweep.yaml

namespace {

void emitSweepPlan(YAML::Emitter& e, const SweepPlan& p) {
    e << YAML::Key << "plan" << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "command" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& a : p.command) e << YAML::DoubleQuoted << a;
    e << YAML::EndSeq << YAML::Key << "tools" << YAML::Value << YAML::BeginSeq;
    for (const auto& t : p.tools) {
        e << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << t.name << YAML::Key << "params"
          << YAML::Value << YAML::BeginMap;
        for (const auto& [k, v] : t.params) e << YAML::Key << k << YAML::Value << YAML::DoubleQuoted << v;
        e << YAML::EndMap << YAML::EndMap;
    }
    e << YAML::EndSeq << YAML::Key << "grid" << YAML::Value << YAML::BeginSeq;
    for (const auto& a : p.grid) {
        e << YAML::Flow << YAML::BeginMap << YAML::Key << "key" << YAML::Value << a.key << YAML::Key << "values"
          << YAML::Value << YAML::BeginSeq;
        for (const auto& v : a.values) e << YAML::DoubleQuoted << v;
        e << YAML::EndSeq << YAML::EndMap;
    }
    e << YAML::EndSeq << YAML::Key << "repeats" << YAML::Value << p.repeats << YAML::EndMap;
}

SweepPlan sweepPlanOf(const std::string& source, const YAML::Node& n) {
    if (!n.IsMap()) shapeError(source, n, "plan: expected a mapping {command, tools, grid, repeats}");
    SweepPlan p;
    auto texts = [&](const YAML::Node& list, const char* what) {
        std::vector<std::string> out;
        if (!list || list.IsNull()) return out;
        if (!list.IsSequence()) shapeError(source, list, std::string(what) + ": expected a list");
        for (const auto& x : list) out.push_back(scalarOf(source, x, what));
        return out;
    };
    p.command = texts(n["command"], "plan: command");
    if (const YAML::Node tools = n["tools"]; tools && !tools.IsNull()) {
        if (!tools.IsSequence()) shapeError(source, tools, "plan: tools: expected a list");
        for (const auto& t : tools) {
            SweepPlanTool tool;
            tool.name = optionalText(source, t["name"], "plan: tools: name").value_or("");
            if (const YAML::Node ps = t["params"]; ps && ps.IsMap())
                for (const auto& kv : ps) tool.params[scalarOf(source, kv.first, "plan: tools: params")] =
                    scalarOf(source, kv.second, "plan: tools: params");
            p.tools.push_back(std::move(tool));
        }
    }
    if (const YAML::Node grid = n["grid"]; grid && !grid.IsNull()) {
        if (!grid.IsSequence()) shapeError(source, grid, "plan: grid: expected a list");
        for (const auto& a : grid)
            p.grid.push_back({optionalText(source, a["key"], "plan: grid: key").value_or(""),
                              texts(a["values"], "plan: grid: values")});
    }
    if (n["repeats"]) p.repeats = integerOf<int>(source, n["repeats"], "plan: repeats");
    return p;
}

}  // namespace

std::string sweepFileToYaml(const SweepFile& s) {
    YAML::Emitter e;
    e << YAML::BeginMap << YAML::Key << "strobe_sweep" << YAML::Value << SweepFile::kVersion;
    e << YAML::Key << "axes" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& a : s.axes) e << a;
    e << YAML::EndSeq << YAML::Key << "runs" << YAML::Value << YAML::BeginSeq;
    for (const auto& r : s.runs) {
        e << YAML::Flow << YAML::BeginMap << YAML::Key << "path" << YAML::Value << r.path << YAML::Key << "parameters"
          << YAML::Value << YAML::BeginMap;
        for (const auto& [k, v] : r.parameters) {
            e << YAML::Key << k;
            emitRunValue(e, v);
        }
        e << YAML::EndMap;
        if (r.repeat) e << YAML::Key << "repeat" << YAML::Value << *r.repeat;
        e << YAML::EndMap;
    }
    e << YAML::EndSeq;
    if (s.plan) emitSweepPlan(e, *s.plan);
    e << YAML::EndMap;
    return std::string(e.c_str()) + "\n";
}

Result<SweepFile> sweepFileFromYaml(const std::string& text, const std::string& source) {
    auto doc = parseDocument(text, source);
    if (!doc) return doc.error();
    const YAML::Node& d = *doc;
    if (!d.IsMap() || !d["strobe_sweep"] || !d["runs"] || !d["runs"].IsSequence())
        return Error(Location{source}, "not a strobe_sweep file with a runs: list");
    try {
        SweepFile s;
        s.version = versionOf(source, d["strobe_sweep"], "strobe_sweep");
        if (s.version > SweepFile::kVersion)
            s.warnings.push_back(fmt::format("{}: written by a newer Strobe (strobe_sweep: {}); read as far as "
                                             "version {} knows",
                                             source, s.version, SweepFile::kVersion));
        if (const YAML::Node a = d["axes"]; a && a.IsSequence())
            for (const auto& x : a) s.axes.push_back(scalarOf(source, x, "axes"));
        size_t index = 0;
        for (const auto& entry : d["runs"]) {
            ++index;
            if (!entry.IsMap() || !entry["path"]) {
                s.warnings.push_back(fmt::format("{}: runs[{}] has no path; skipped", source, index - 1));
                continue;
            }
            SweepFileRun r;
            r.path = scalarOf(source, entry["path"], "runs: path");
            r.parameters = parametersOf(source, entry["parameters"]);
            if (entry["repeat"]) r.repeat = integerOf<int>(source, entry["repeat"], "runs: repeat");
            s.runs.push_back(std::move(r));
        }
        if (const YAML::Node plan = d["plan"]; plan && !plan.IsNull()) s.plan = sweepPlanOf(source, plan);
        return s;
    } catch (const ShapeError& e) {
        return Error(e.where, e.message);
    } catch (const YAML::Exception& e) {
        Location where{source};
        if (e.mark.line >= 0) where.line = e.mark.line + 1;
        return Error(where, e.msg);
    }
}

Result<SweepFile> readSweepFile(const std::string& sweepDir) {
    const std::string path = (fs::path(sweepDir) / kSweepFileName).string();
    auto text = readText(path);
    if (!text) return text.error();
    return sweepFileFromYaml(*text, path);
}

bool hasSweepFile(const std::string& sweepDir) {
    std::error_code ec;
    return fs::is_regular_file(fs::path(sweepDir) / kSweepFileName, ec);
}

Status writeSweepFile(const std::string& sweepDir, const SweepFile& sweep) {
    return writeAtomically(fs::path(sweepDir) / kSweepFileName, sweepFileToYaml(sweep), "sweep file");
}

}  // namespace strobe::core
