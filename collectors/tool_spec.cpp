#include "collectors/tool_spec.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "collectors/process_tree.h"
#include "core/io/resources.h"

namespace strobe::collectors {

namespace fs = std::filesystem;

const char* toString(ToolKind kind) {
    switch (kind) {
    case ToolKind::Prefix: return "prefix";
    case ToolKind::Env: return "env";
    case ToolKind::Sidecar: return "sidecar";
    }
    return "?";
}

namespace {

core::Error yamlError(const std::string& source, const YAML::Mark& mark, const std::string& message) {
    core::Location where;
    where.file = source;
    if (mark.line >= 0) where.line = mark.line + 1;
    return core::Error(where, message);
}

std::vector<std::string> stringList(const YAML::Node& n) {
    std::vector<std::string> out;
    if (n && n.IsSequence())
        for (const auto& x : n) out.push_back(x.as<std::string>());
    return out;
}

}  // namespace

core::Result<ToolSpec> parseToolSpec(const std::string& text, const std::string& source) {
    ToolSpec t;
    t.source = source;
    try {
        const YAML::Node root = YAML::Load(text);
        if (!root.IsMap()) return yamlError(source, root.Mark(), "a tool spec is a mapping (name, kind, ...)");
        if (!root["name"] || root["name"].as<std::string>().empty())
            return yamlError(source, root.Mark(), "a tool spec needs a `name`");
        t.name = root["name"].as<std::string>();
        if (root["description"]) t.description = root["description"].as<std::string>();
        const std::string kind = root["kind"] ? root["kind"].as<std::string>() : "";
        if (kind == "prefix") t.kind = ToolKind::Prefix;
        else if (kind == "env") t.kind = ToolKind::Env;
        else if (kind == "sidecar") t.kind = ToolKind::Sidecar;
        else
            return yamlError(source, root["kind"] ? root["kind"].Mark() : root.Mark(),
                             fmt::format("tool {}: kind must be prefix, env or sidecar, not '{}'", t.name, kind));
        if (root["vendor"]) t.vendor = root["vendor"].as<std::string>();
        if (t.vendor != "any" && t.vendor != "amd" && t.vendor != "nvidia")
            return yamlError(source, root["vendor"].Mark(),
                             fmt::format("tool {}: vendor must be any, amd or nvidia, not '{}'", t.name, t.vendor));
        if (const YAML::Node probe = root["probe"]) {
            t.probe = stringList(probe["argv"]);
            if (probe["version_regex"]) t.versionRegex = probe["version_regex"].as<std::string>();
        }
        t.command = stringList(root["command"]);
        if (root["stdout"]) t.stdoutFile = root["stdout"].as<std::string>();
        if ((t.kind == ToolKind::Prefix || t.kind == ToolKind::Sidecar) && t.command.empty())
            return yamlError(source, root.Mark(), fmt::format("tool {}: a {} tool needs a `command`", t.name, kind));
        if (const YAML::Node env = root["env"]) {
            if (!env.IsMap()) return yamlError(source, env.Mark(), fmt::format("tool {}: `env` is a mapping", t.name));
            for (const auto& kv : env) t.env[kv.first.as<std::string>()] = kv.second.as<std::string>();
        }
        if (const YAML::Node outs = root["outputs"]) {
            for (const auto& o : outs) {
                ToolOutput out;
                out.glob = o["glob"] ? o["glob"].as<std::string>() : "";
                out.format = o["format"] ? o["format"].as<std::string>() : "";
                out.readByStrobe = o["read_by_strobe"] ? o["read_by_strobe"].as<bool>() : true;
                out.contains = o["contains"] ? o["contains"].as<std::string>() : "";
                if (out.glob.empty()) return yamlError(source, o.Mark(), fmt::format("tool {}: an output needs a `glob`", t.name));
                t.outputs.push_back(std::move(out));
            }
        }
        if (root["no_output_hint"]) t.noOutputHint = root["no_output_hint"].as<std::string>();
        t.conflicts = stringList(root["conflicts"]);
        t.splitArgs = stringList(root["split_args"]);
        if (const YAML::Node params = root["params"]) {
            YAML::Emitter e;
            e << params;
            auto specs = core::specsFromYaml(e.c_str(), source);
            if (!specs) {
                core::Error err = specs.error();
                err.where.line = params.Mark().line + 1;
                err.message = fmt::format("tool {}: params: {}", t.name, err.message);
                return err;
            }
            t.params = std::move(*specs);
        }
        if (!t.versionRegex.empty()) std::regex check(t.versionRegex, std::regex::ECMAScript);
    } catch (const YAML::Exception& e) {
        return yamlError(source, e.mark, e.msg);
    } catch (const std::regex_error& e) {
        return yamlError(source, YAML::Mark(), fmt::format("tool {}: version_regex: {}", t.name, e.what()));
    }
    return t;
}

const ToolSpec* ToolCatalog::find(std::string_view name) const {
    for (const auto& t : tools)
        if (t.name == name) return &t;
    return nullptr;
}

ToolCatalog loadToolCatalog(const std::vector<std::string>& dirs) {
    ToolCatalog c;
    for (const auto& dir : dirs) {
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) continue;
        std::vector<fs::path> files;
        for (const auto& e : fs::directory_iterator(dir, ec))
            if (e.path().extension() == ".yaml" || e.path().extension() == ".yml") files.push_back(e.path());
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
            std::ifstream in(f, std::ios::binary);
            std::stringstream text;
            text << in.rdbuf();
            auto spec = parseToolSpec(text.str(), f.string());
            if (!spec) {
                c.messages.push_back(spec.error().toString());
                continue;
            }
            auto same = std::find_if(c.tools.begin(), c.tools.end(), [&](const ToolSpec& t) { return t.name == spec->name; });
            if (same != c.tools.end()) {
                c.messages.push_back(fmt::format("{} replaces the tool {} of {}", f.string(), spec->name, same->source));
                *same = std::move(*spec);
            } else {
                c.tools.push_back(std::move(*spec));
            }
        }
    }
    std::sort(c.tools.begin(), c.tools.end(), [](const ToolSpec& a, const ToolSpec& b) { return a.name < b.name; });
    return c;
}

ToolCatalog loadToolCatalog() {
    return loadToolCatalog({core::resourcePath("tools").string(), (core::userConfigDir() / "tools").string()});
}

core::Result<std::string> expandTemplate(std::string_view text, const std::map<std::string, std::string>& vars) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
            out += c;
            ++i;
            continue;
        }
        if (c != '{') {
            out += c;
            continue;
        }
        const size_t end = text.find('}', i);
        if (end == std::string_view::npos) return core::Error(fmt::format("'{}': an unclosed '{{'", text));
        const std::string name(text.substr(i + 1, end - i - 1));
        if (name.starts_with("env.")) {
            const char* v = std::getenv(name.substr(4).c_str());
            out += v ? v : "";
        } else if (auto it = vars.find(name); it != vars.end()) {
            out += it->second;
        } else {
            return core::Error(fmt::format("'{}': unknown placeholder {{{}}}", text, name));
        }
        i = end;
    }
    return out;
}

core::Result<std::map<std::string, std::string>> toolVariables(const ToolSpec& spec, const core::ParamValues& values,
                                                               const std::map<std::string, std::string>& builtins) {
    for (const auto& [k, v] : values)
        if (!core::findSpec(spec.params, k))
            return core::Error(fmt::format("tool {} has no parameter '{}'", spec.name, k));
    auto resolved = core::resolveValues(spec.params, values);
    if (!resolved) return core::Error(fmt::format("tool {}: {}", spec.name, resolved.error().message));
    std::map<std::string, std::string> vars = builtins;
    for (const auto& p : spec.params) vars[p.key] = core::valueToString(p, resolved->at(p.key));
    return vars;
}

ToolProbe probeTool(const ToolSpec& spec, const std::map<std::string, std::string>& vars) {
    ToolProbe r;
    if (spec.probe.empty()) {
        r.available = true;
        return r;
    }
    ProcessSpec ps;
    for (const auto& a : spec.probe) {
        auto x = expandTemplate(a, vars);
        if (!x) {
            r.message = fmt::format("{}: probe: {}", spec.name, x.error().message);
            return r;
        }
        ps.argv.push_back(*x);
    }
    auto run = runCaptured(ps, std::chrono::seconds(10));
    if (!run) {
        r.message = fmt::format("{} not found ({})", ps.argv.front(), run.error().message);
        return r;
    }
    const auto& exit = run->exit;
    const std::string text = run->out + run->err;
    if (!exit) {
        r.message = fmt::format("{}: the probe did not finish within 10 s", spec.name);
        return r;
    }
    r.available = exit->status == 0;
    if (!r.available) {
        // Why, in the probe's own words: its last stderr line (a Python traceback ends with the exception).
        std::string why = run->err.empty() ? run->out : run->err;
        while (!why.empty() && std::isspace(static_cast<unsigned char>(why.back()))) why.pop_back();
        if (const size_t nl = why.rfind('\n'); nl != std::string::npos) why = why.substr(nl + 1);
        if (why.size() > 300) why = why.substr(0, 300) + "...";
        r.message = fmt::format("{}: `{}` exited with {}{}", spec.name, ps.argv.front(), exit->status,
                                why.empty() ? "" : ": " + why);
    }
    if (!spec.versionRegex.empty()) {
        std::smatch m;
        if (std::regex_search(text, m, std::regex(spec.versionRegex, std::regex::ECMAScript)))
            r.version = m.size() > 1 ? m[1].str() : m[0].str();
    }
    return r;
}

namespace {

bool isPythonName(const std::string& name) {
    static const std::regex re(R"(^python[0-9.]*$)");
    return std::regex_match(name, re);
}

// argv0 as a file: itself when it holds a '/', else the first executable of that name on PATH ("" when none).
std::string onPath(const std::string& argv0) {
    if (argv0.find('/') != std::string::npos) return argv0;
    const char* path = std::getenv("PATH");
    std::string_view rest = path ? path : "";
    while (!rest.empty()) {
        const size_t colon = rest.find(':');
        const fs::path p = fs::path(std::string(rest.substr(0, colon))) / argv0;
        if (::access(p.c_str(), X_OK) == 0) return p.string();
        if (colon == std::string_view::npos) break;
        rest.remove_prefix(colon + 1);
    }
    return {};
}

bool isShellName(const std::string& name) { return name == "sh" || name == "bash" || name == "dash" || name == "zsh"; }

// A wrapper shell script's interpreter: the first word of its first line that runs Python ("exec /usr/bin/python3
// train.py", "python3 -u train.py \"$@\"", after an optional `exec` and NAME=VALUE assignments); "" when none does.
std::string pythonInShellScript(std::istream& in) {
    for (std::string line; std::getline(in, line);) {
        std::istringstream words(line);
        std::string w;
        while (words >> w && (w == "exec" || (w.find('=') != std::string::npos && w.front() != '='))) {}
        if (!w.empty() && w.front() != '#' && isPythonName(fs::path(w).filename().string())) return w;
    }
    return {};
}

}  // namespace

std::string findPython(const std::vector<std::string>& command, std::string* how) {
    auto said = [&](std::string text) {
        if (how) *how = std::move(text);
    };
    if (command.empty()) {
        said("no command: python3 on PATH");
        return "python3";
    }
    const std::string& argv0 = command.front();
    if (isPythonName(fs::path(argv0).filename().string())) {
        said("the command's interpreter");
        return argv0;
    }
    const std::string file = onPath(argv0);
    std::ifstream in(file, std::ios::binary);
    std::string first;
    if (!file.empty()) std::getline(in, first);
    if (first.starts_with("#!")) {
        // "#!/usr/bin/python3 -u", "#!/usr/bin/env python3", "#!/usr/bin/env -S python3 -u"
        std::vector<std::string> words;
        std::string w;
        for (char c : first.substr(2) + " ") {
            if (c == ' ' || c == '\t' || c == '\r') {
                if (!w.empty()) words.push_back(std::move(w));
                w.clear();
            } else {
                w += c;
            }
        }
        size_t i = 0;
        if (!words.empty() && fs::path(words[0]).filename() == "env")
            for (i = 1; i < words.size() && (words[i].starts_with("-") || words[i].find('=') != std::string::npos);) ++i;
        if (i < words.size() && isPythonName(fs::path(words[i]).filename().string())) {
            said(fmt::format("the shebang of {}", file));
            return words[i];
        }
        if (i < words.size() && isShellName(fs::path(words[i]).filename().string()))
            if (std::string py = pythonInShellScript(in); !py.empty()) {
                said(fmt::format("the Python that the shell script {} runs", file));
                return py;
            }
    }
    said(fmt::format("python3 on PATH ({} names no Python interpreter; give --python PATH)", argv0));
    return "python3";
}

std::string strobeCliPath() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return "strobe-cli";
    if (exe.filename() == "strobe-cli") return exe.string();
    return (exe.parent_path() / "strobe-cli").string();
}

}  // namespace strobe::collectors
