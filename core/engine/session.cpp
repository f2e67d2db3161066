#include "core/engine/session.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

namespace strobe::core {

namespace {

// ---------------------------------------------------------------- writing

std::string doubleText(double v) {
    if (std::isnan(v)) return ".nan";
    if (std::isinf(v)) return v > 0 ? ".inf" : "-.inf";
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);  // shortest text that round-trips
    if (ec != std::errc()) return fmt::format("{:.17g}", v);
    std::string s(buf, end);
    if (s.find_first_of(".eE") == std::string::npos) s += ".0";  // keep it a double on reload
    return s;
}

void emitString(YAML::Emitter& out, const std::string& s) { out << YAML::DoubleQuoted << s; }

// A map key; a long one as an explicit key ("? key"): YAML limits an implicit key to 1024 characters and yaml-cpp's
// reader refuses a longer one ("illegal map value"), so a session holding one (a key of 200 control characters is
// written as 800 escaped ones) did not read back. Found by the session_yaml fuzz target.
void emitKey(YAML::Emitter& out, const std::string& s, bool quoted = true) {
    if (s.size() > 128) out << YAML::LongKey;
    out << YAML::Key;
    if (quoted)
        emitString(out, s);
    else
        out << s;
}

void emitValue(YAML::Emitter& out, const SessionValue& v) {
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, bool>) {
                out << (x ? "true" : "false");
            } else if constexpr (std::is_same_v<T, long long>) {
                out << std::to_string(x);
            } else if constexpr (std::is_same_v<T, double>) {
                out << doubleText(x);
            } else if constexpr (std::is_same_v<T, std::string>) {
                emitString(out, x);
            } else {
                out << YAML::Flow << YAML::BeginSeq;
                for (const auto& s : x) emitString(out, s);
                out << YAML::EndSeq;
            }
        },
        v);
}

void emitIntList(YAML::Emitter& out, const std::vector<int>& v) {
    out << YAML::Flow << YAML::BeginSeq;
    for (int i : v) out << i;
    out << YAML::EndSeq;
}

void emitViewValue(YAML::Emitter& out, const SessionViewValue& v) {
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::vector<long long>>) {
                out << YAML::Flow << YAML::BeginSeq;
                for (long long i : x) out << i;
                out << YAML::EndSeq;
            } else {
                emitValue(out, SessionValue(x));
            }
        },
        v);
}

void emitViewFields(YAML::Emitter& out, const SessionViewFields& fields) {
    for (const auto& f : fields) {
        emitKey(out, f.key, false);
        out << YAML::Value;
        emitViewValue(out, f.value);
    }
}

// ---------------------------------------------------------------- reading

// yaml-cpp reports problems by exception; they stay inside this file and become an Error with the line.
struct ParseFailure {
    YAML::Mark mark;
    std::string message;
};

[[noreturn]] void fail(const YAML::Node& n, std::string message) { throw ParseFailure{n.Mark(), std::move(message)}; }

bool isPlain(const YAML::Node& n) { return n.Tag() == "?"; }

std::string readString(const YAML::Node& n, const char* what) {
    if (!n.IsScalar()) fail(n, fmt::format("expected a text value for '{}'", what));
    return n.Scalar();
}

long long readInt(const YAML::Node& n, const char* what) {
    if (!n.IsScalar()) fail(n, fmt::format("expected an integer for '{}'", what));
    const std::string& s = n.Scalar();
    long long v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size())
        fail(n, fmt::format("expected an integer for '{}', found '{}'", what, s));
    return v;
}

int readSmallInt(const YAML::Node& n, const char* what) {
    long long v = readInt(n, what);
    if (v < INT32_MIN || v > INT32_MAX) fail(n, fmt::format("'{}' is out of range: {}", what, v));
    return static_cast<int>(v);
}

std::vector<int> readIntList(const YAML::Node& n, const char* what) {
    if (!n.IsSequence()) fail(n, fmt::format("expected a list of integers for '{}'", what));
    std::vector<int> out;
    for (const auto& e : n) out.push_back(readSmallInt(e, what));
    return out;
}

std::vector<std::string> readStringList(const YAML::Node& n, const char* what) {
    if (!n.IsSequence()) fail(n, fmt::format("expected a list of text values for '{}'", what));
    std::vector<std::string> out;
    for (const auto& e : n) out.push_back(readString(e, what));
    return out;
}

std::map<std::string, std::string> readStringMap(const YAML::Node& n, const char* what) {
    if (!n.IsMap()) fail(n, fmt::format("expected a mapping for '{}'", what));
    std::map<std::string, std::string> out;
    for (const auto& kv : n) out[readString(kv.first, what)] = readString(kv.second, what);
    return out;
}

bool parseDouble(const std::string& s, double& out) {
    if (s == ".nan" || s == ".NaN" || s == ".NAN") { out = std::nan(""); return true; }
    if (s == ".inf" || s == ".Inf" || s == "+.inf") { out = HUGE_VAL; return true; }
    if (s == "-.inf" || s == "-.Inf") { out = -HUGE_VAL; return true; }
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
}

SessionValue readValue(const YAML::Node& n, const std::string& key) {
    if (n.IsSequence()) {
        std::vector<std::string> list;
        for (const auto& e : n) {
            if (!e.IsScalar()) fail(e, fmt::format("parameter '{}': expected a list of text values", key));
            list.push_back(e.Scalar());
        }
        return list;
    }
    if (!n.IsScalar()) fail(n, fmt::format("parameter '{}': expected a value or a list", key));
    const std::string& s = n.Scalar();
    if (!isPlain(n)) return s;  // quoted: always text
    if (s == "true") return true;
    if (s == "false") return false;
    long long i = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
    if (ec == std::errc() && p == s.data() + s.size()) return i;
    double d = 0;
    if (parseDouble(s, d)) return d;
    return s;  // plain text written by hand
}

// A front end's value (see SessionViewValue): a scalar typed as readValue does, or a list of integers or texts.
SessionViewValue readViewValue(const YAML::Node& n, const std::string& key) {
    if (n.IsSequence()) {
        bool allInts = true;
        std::vector<long long> ints;
        std::vector<std::string> texts;
        for (const auto& e : n) {
            if (!e.IsScalar()) fail(e, fmt::format("'{}': expected a list of values", key));
            texts.push_back(e.Scalar());
            long long i = 0;
            const std::string& t = e.Scalar();
            auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), i);
            if (isPlain(e) && ec == std::errc() && p == t.data() + t.size())
                ints.push_back(i);
            else
                allInts = false;
        }
        if (allInts) return ints;
        return texts;
    }
    if (!n.IsScalar()) fail(n, fmt::format("'{}': expected a value or a list", key));
    SessionValue v = readValue(n, key);
    return std::visit([](auto&& x) -> SessionViewValue { return std::move(x); }, std::move(v));
}

SessionViewField readViewField(const YAML::Node& key, const YAML::Node& value) {
    SessionViewField f;
    f.key = readString(key, "key");
    f.value = readViewValue(value, f.key);
    if (key.Mark().line >= 0) f.line = key.Mark().line + 1;
    return f;
}

SessionRun readRun(const YAML::Node& n) {
    if (!n.IsMap()) fail(n, "expected a run (a mapping with 'paths')");
    SessionRun r;
    if (auto v = n["label"]) r.run.label = readString(v, "label");
    auto paths = n["paths"];
    if (!paths) fail(n, "run without 'paths'");
    r.run.paths = readStringList(paths, "paths");
    if (auto v = n["parameters"]) r.run.parameters = typedParameters(readStringMap(v, "parameters"));
    if (auto v = n["clock_offset_ns"]) r.clockOffsetNs = readInt(v, "clock_offset_ns");
    return r;
}

SessionPlot readPlot(const YAML::Node& n, size_t runCount) {
    if (!n.IsMap()) fail(n, "expected a plot (a mapping with 'id')");
    SessionPlot p;
    auto id = n["id"];
    if (!id) fail(n, "plot without 'id'");
    p.plotId = readString(id, "id");
    if (p.plotId.empty()) fail(id, "empty plot id");
    if (auto v = n["runs"]) {
        p.runs = readIntList(v, "runs");
        for (size_t i = 0; i < p.runs.size(); ++i) {
            if (p.runs[i] < 0 || static_cast<size_t>(p.runs[i]) >= runCount)
                fail(v[i], fmt::format("plot '{}' refers to run {}, but the session has {} run(s)", p.plotId,
                                       p.runs[i], runCount));
        }
    }
    if (auto v = n["values"]) {
        if (!v.IsMap()) fail(v, "expected a mapping of parameter values for 'values'");
        for (const auto& kv : v) {
            std::string key = readString(kv.first, "values");
            p.values[key] = readValue(kv.second, key);
        }
    }
    for (const auto& kv : n) {
        const std::string key = readString(kv.first, "plot");
        if (key != "id" && key != "runs" && key != "values") p.view.push_back(readViewField(kv.first, kv.second));
    }
    return p;
}

SessionSection readSection(const std::string& name, const YAML::Node& n) {
    if (!n.IsMap()) fail(n, fmt::format("expected a mapping for '{}'", name));
    SessionSection section;
    section.name = name;
    if (n.Mark().line >= 0) section.line = n.Mark().line + 1;
    for (const auto& kv : n) section.fields.push_back(readViewField(kv.first, kv.second));
    return section;
}

Session readSession(const YAML::Node& root) {
    if (!root.IsMap()) fail(root, "expected a Strobe session (a mapping with 'strobe_session')");
    Session s;
    auto ver = root["strobe_session"];
    if (!ver) fail(root, "not a Strobe session: the key 'strobe_session' (the format version) is missing");
    s.version = readSmallInt(ver, "strobe_session");
    if (s.version < 1 || s.version > Session::kFormatVersion)
        fail(ver, fmt::format("session format version {} is not supported (this Strobe reads 1 to {})", s.version,
                              Session::kFormatVersion));
    if (auto runs = root["runs"]) {
        if (!runs.IsSequence()) fail(runs, "expected a list for 'runs'");
        for (const auto& r : runs) s.runs.push_back(readRun(r));
    }
    if (auto plots = root["plots"]) {
        if (!plots.IsSequence()) fail(plots, "expected a list for 'plots'");
        for (const auto& p : plots) s.plots.push_back(readPlot(p, s.runs.size()));
    }
    for (const auto& kv : root) {
        const std::string key = readString(kv.first, "session");
        if (key != "strobe_session" && key != "runs" && key != "plots") s.sections.push_back(readSection(key, kv.second));
    }
    return s;
}

Error makeError(const std::string& source, const YAML::Mark& mark, const std::string& message) {
    Location where;
    where.file = source;
    if (mark.line >= 0) where.line = mark.line + 1;
    if (mark.pos >= 0) where.byteOffset = mark.pos;
    return Error(where, message);
}

}  // namespace

const SessionViewField* findViewField(const SessionViewFields& fields, std::string_view key) {
    for (const auto& f : fields)
        if (f.key == key) return &f;
    return nullptr;
}

std::string sessionToYaml(const Session& s) {
    YAML::Emitter out;
    out << YAML::Comment("Strobe workbench session");
    out << YAML::BeginMap;
    out << YAML::Key << "strobe_session" << YAML::Value << s.version;
    out << YAML::Key << "runs" << YAML::Value << YAML::BeginSeq;
    for (const auto& r : s.runs) {
        out << YAML::BeginMap;
        out << YAML::Key << "label" << YAML::Value;
        emitString(out, r.run.label);
        out << YAML::Key << "paths" << YAML::Value << YAML::BeginSeq;
        for (const auto& p : r.run.paths) emitString(out, p);
        out << YAML::EndSeq;
        if (!r.run.parameters.empty()) {
            out << YAML::Key << "parameters" << YAML::Value << YAML::BeginMap;
            for (const auto& [k, v] : r.run.parameters) {
                emitKey(out, k);
                out << YAML::Value;
                emitString(out, runValueText(v));
            }
            out << YAML::EndMap;
        }
        if (r.clockOffsetNs) out << YAML::Key << "clock_offset_ns" << YAML::Value << static_cast<long long>(*r.clockOffsetNs);
        out << YAML::EndMap;
    }
    out << YAML::EndSeq;
    out << YAML::Key << "plots" << YAML::Value << YAML::BeginSeq;
    for (const auto& p : s.plots) {
        out << YAML::BeginMap;
        out << YAML::Key << "id" << YAML::Value;
        emitString(out, p.plotId);
        out << YAML::Key << "runs" << YAML::Value;
        emitIntList(out, p.runs);
        emitViewFields(out, p.view);
        out << YAML::Key << "values" << YAML::Value << YAML::BeginMap;
        for (const auto& [k, v] : p.values) {
            emitKey(out, k);
            out << YAML::Value;
            emitValue(out, v);
        }
        out << YAML::EndMap;
        out << YAML::EndMap;
    }
    out << YAML::EndSeq;
    for (const auto& section : s.sections) {
        emitKey(out, section.name, false);
        out << YAML::Value << YAML::BeginMap;
        emitViewFields(out, section.fields);
        out << YAML::EndMap;
    }
    out << YAML::EndMap;
    std::string text = out.c_str();
    text += '\n';
    return text;
}

Result<Session> sessionFromYaml(const std::string& text, const std::string& sourceName) {
    try {
        YAML::Node root = YAML::Load(text);
        if (!root || root.IsNull()) return Error(Location{sourceName, -1, -1, -1}, "empty session file");
        return readSession(root);
    } catch (const ParseFailure& f) {
        return makeError(sourceName, f.mark, f.message);
    } catch (const YAML::Exception& e) {
        return makeError(sourceName, e.mark, e.msg);
    } catch (const std::exception& e) {
        return Error(Location{sourceName, -1, -1, -1}, e.what());
    }
}

Result<Session> loadSession(const std::string& path) {
    std::error_code ec;
    auto size = std::filesystem::file_size(path, ec);
    if (ec) return Error(Location{path, -1, -1, -1}, "cannot read session: " + ec.message());
    constexpr uintmax_t kMaxSession = 64u << 20;  // a session is small; refuse anything absurd
    if (size > kMaxSession)
        return Error(Location{path, -1, -1, -1}, fmt::format("not a session: {} bytes is too large", size));
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error(Location{path, -1, -1, -1}, "cannot open session for reading");
    std::ostringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    if (text.find('\0') != std::string::npos)
        return Error(Location{path, static_cast<int64_t>(text.find('\0')), -1, -1},
                     "not a session: the file contains binary data");
    return sessionFromYaml(text, path);
}

Status saveSession(const Session& session, const std::string& path) {
    const std::string text = sessionToYaml(session);
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) return Error(Location{path, -1, -1, -1}, "cannot write session: cannot create " + tmp);
        out << text;
        out.flush();
        if (!out) return Error(Location{path, -1, -1, -1}, "cannot write session: write failed");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        return Error(Location{path, -1, -1, -1}, "cannot write session: " + ec.message());
    }
    return Ok{};
}

}  // namespace strobe::core
