#include "collectors/madengine_context.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <fmt/format.h>

namespace strobe::collectors {

namespace {

core::Error at(const std::string& source, size_t index, const std::string& name, const std::string& message) {
    core::Location where;
    where.file = source;
    return core::Error(where, fmt::format("tools[{}]{}: {}", index, name.empty() ? "" : " (" + name + ")", message));
}

// The 1-based line and column of a byte offset.
std::pair<int64_t, int64_t> lineColumn(std::string_view text, size_t offset) {
    offset = std::min(offset, text.size());
    const auto before = text.substr(0, offset);
    const int64_t line = 1 + std::count(before.begin(), before.end(), '\n');
    const size_t nl = before.rfind('\n');
    return {line, static_cast<int64_t>(offset - (nl == std::string_view::npos ? 0 : nl + 1)) + 1};
}

// The first character of `cmd` that only a shell gives meaning to, or '\0'.
char shellSyntax(std::string_view cmd) {
    constexpr std::string_view kShell = "'\"`$|&;<>()*?[]{}\\~#";
    for (char c : cmd)
        if (kShell.find(c) != std::string_view::npos) return c;
    return '\0';
}

std::vector<std::string> splitBlanks(std::string_view s) {
    std::vector<std::string> out;
    std::istringstream in{std::string(s)};
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}


std::string stringValue(const core::ParamValues& values, const std::string& key) {
    const auto it = values.find(key);
    const std::string* s = it == values.end() ? nullptr : std::get_if<std::string>(&it->second);
    return s ? *s : std::string();
}

// madengine's tool names (its scripts/common/tools.json) and the Strobe tool each is: "" when not one of them. The
// GPU samplers follow the context's gpu_vendor (NVIDIA: nvidia-smi, else amd-smi).
std::string_view madengineToolFor(const std::string& name, const std::string& vendor) {
    static const std::map<std::string, std::string_view, std::less<>> kTools{
        {"rocprof", "rocprofv3"},         {"rocprofv3", "rocprofv3"},     {"rpd", "rpd"},
        {"rocblas_trace", "rocblas-log"}, {"miopen_trace", "miopen-log"}, {"tensile_trace", "tensile-log"},
        {"rccl_trace", "rccl-log"},       {"gpu_info_power_profiler", ""}, {"gpu_info_vram_profiler", ""}};
    const auto it = kTools.find(name);
    if (it == kTools.end()) return {};
    if (!it->second.empty()) return it->second;
    return vendor == "NVIDIA" ? "nvidia-smi" : "amd-smi";
}

std::string madengineToolNames() {
    return "rocprof, rocprofv3, rpd, rocblas_trace, miopen_trace, tensile_trace, rccl_trace, gpu_info_power_profiler, "
           "gpu_info_vram_profiler";
}

// The smi sampler's fields for a gpu_info profiler, added to `had` (the fields another gpu_info entry chose).
std::string smiFields(const std::string& name, const std::string& tool, const std::string& had) {
    const bool power = name == "gpu_info_power_profiler";
    std::vector<std::string> fields;
    const char sep = tool == "nvidia-smi" ? ',' : ' ';
    auto add = [&](const std::string& f) {
        if (std::find(fields.begin(), fields.end(), f) == fields.end()) fields.push_back(f);
    };
    std::string item;
    for (char c : had + sep) {
        if (c == sep) {
            if (!item.empty()) add(item);
            item.clear();
        } else {
            item += c;
        }
    }
    if (tool == "nvidia-smi") {
        for (const char* f : {"timestamp", "index", "name"}) add(f);
        add(power ? "power.draw" : "memory.used");
        add(power ? "power.limit" : "memory.total");
    } else {
        add(power ? "--power" : "--mem-usage");
    }
    std::string out;
    for (const auto& f : fields) out += (out.empty() ? "" : std::string(1, sep)) + f;
    return out;
}

// rocprof's and rocprofv3's flags in a madengine cmd ("rocprofv3 --runtime-trace --", "rocprof --hip-trace
// --hsa-trace --stats") onto the rocprofv3 spec's parameters: trace kinds combine into `trace`, --output-format sets
// `format`; where it writes is Strobe's choice; other flags are named in a message, not passed.
void mapRocprofCmd(const std::string& cmd, ToolUse& use, const std::string& where, std::vector<std::string>& messages) {
    static const std::map<std::string, std::string, std::less<>> kKinds{
        {"--kernel-trace", "--kernel-trace"}, {"--hip-trace", "--hip-trace"},   {"--hsa-trace", "--hsa-trace"},
        {"--runtime-trace", "--runtime-trace"}, {"--sys-trace", "--sys-trace"}, {"--memory-copy-trace", "--memory-copy-trace"},
        {"--marker-trace", "--marker-trace"}, {"--roctx-trace", "--marker-trace"}, {"--rccl-trace", "--rccl-trace"},
        {"--scratch-memory-trace", "--scratch-memory-trace"}, {"--stats", "--stats"}, {"--kfd-trace", "--kfd-trace"}};
    const std::vector<std::string> words = splitBlanks(cmd);
    std::vector<std::string> kinds, unmapped, placed;
    size_t i = !words.empty() && words[0].starts_with("rocprof") ? 1 : 0;
    for (; i < words.size() && words[i] != "--"; ++i) {
        const std::string& w = words[i];
        const bool hasNext = i + 1 < words.size() && !words[i + 1].starts_with("-");
        if (auto k = kKinds.find(w); k != kKinds.end()) {
            if (std::find(kinds.begin(), kinds.end(), k->second) == kinds.end()) kinds.push_back(k->second);
        } else if (w == "--output-format" || w.starts_with("--output-format=")) {
            std::string f = w.size() > 15 ? w.substr(16) : (hasNext ? words[++i] : "");
            if (f == "csv" || f == "json" || f == "rocpd" || f == "pftrace") use.values["format"] = f;
            else unmapped.push_back(w + (w.size() > 15 ? "" : " " + f));
        } else if (w == "-d" || w == "-o" || w == "--output-directory" || w == "--output-file" || w == "--timestamp" ||
                   w == "--basenames") {
            placed.push_back(w + (hasNext ? " " + words[i + 1] : ""));
            if (hasNext) ++i;
        } else {
            unmapped.push_back(w);
        }
    }
    std::string trace;
    for (const auto& k : kinds) trace += (trace.empty() ? "" : " ") + k;
    if (!trace.empty()) use.values["trace"] = trace;
    auto join = [](const std::vector<std::string>& v) {
        std::string s;
        for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
        return s;
    };
    messages.push_back(fmt::format("{}: rocprofv3 with trace '{}'{}", where, trace.empty() ? "--kernel-trace (default)" : trace,
                                   use.values.contains("format") ? ", output format " + stringValue(use.values, "format") : ""));
    if (!placed.empty())
        messages.push_back(fmt::format("{}: Strobe chooses where rocprofv3 writes; not used: {}", where, join(placed)));
    if (!unmapped.empty())
        messages.push_back(fmt::format("{}: cmd flags not mapped (not passed to rocprofv3): {}", where, join(unmapped)));
}
}  // namespace

namespace {

// The context's JSON object; an Error naming `source`, the byte offset, line and column of bad JSON.
core::Result<QJsonObject> contextObject(std::string_view text, const std::string& source) {
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray(text.data(), static_cast<qsizetype>(text.size())), &err);
    if (err.error != QJsonParseError::NoError) {
        core::Location where;
        where.file = source;
        where.byteOffset = err.offset;
        const auto [line, column] = lineColumn(text, static_cast<size_t>(std::max(0, static_cast<int>(err.offset))));
        where.line = line;
        return core::Error(where, fmt::format("column {}: not JSON: {}", column, err.errorString().toStdString()));
    }
    core::Location file;
    file.file = source;
    if (!doc.isObject()) return core::Error(file, "a madengine context is a JSON object ({\"tools\": [...]})");
    return doc.object();
}

}  // namespace

core::Result<ContextImport> parseMadengineContext(std::string_view text, const std::string& source,
                                                  const ToolCatalog& catalog) {
    auto object = contextObject(text, source);
    if (!object) return object.error();
    core::Location file;
    file.file = source;
    const QJsonValue tools = object->value("tools");
    if (!tools.isArray()) return core::Error(file, "no \"tools\" list (a madengine context has {\"tools\": [{\"name\": ...}]})");
    ContextImport out;
    const std::string vendor = object->value("gpu_vendor").toString().toUpper().toStdString();
    const QJsonArray list = tools.toArray();
    for (qsizetype i = 0; i < list.size(); ++i) {
        const size_t index = static_cast<size_t>(i);
        if (!list[i].isObject()) return at(source, index, "", "an entry is an object {\"name\": ..., \"env_vars\": {...}}");
        const QJsonObject entry = list[i].toObject();
        const std::string name = entry.value("name").toString().toStdString();
        if (name.empty()) return at(source, index, "", "no \"name\"");
        const QJsonValue envValue = entry.value("env_vars");
        if (!envValue.isUndefined() && !envValue.isNull() && !envValue.isObject())
            return at(source, index, name, "\"env_vars\" is not an object of NAME: value");
        const QJsonObject env = envValue.toObject();
        for (auto it = env.begin(); it != env.end(); ++it) {
            std::string value;
            if (it.value().isString()) value = it.value().toString().toStdString();
            else if (it.value().isDouble()) value = QString::number(it.value().toDouble()).toStdString();
            else if (it.value().isBool()) value = it.value().toBool() ? "true" : "false";
            else return at(source, index, name, fmt::format("env_vars.{}: not a string or number", it.key().toStdString()));
            out.env[it.key().toStdString()] = value;  // the file's order: a later entry wins
        }
        const QJsonValue cmdValue = entry.value("cmd");
        if (!cmdValue.isUndefined() && !cmdValue.isString()) return at(source, index, name, "\"cmd\" is not a string");
        const std::string cmd = cmdValue.toString().trimmed().toStdString();
        const std::string where = fmt::format("{}: tools[{}] {}", source, index, name);
        ToolUse use;
        use.name = name;
        if (const std::string_view mapped = madengineToolFor(name, vendor); !mapped.empty()) {
            use.name = std::string(mapped);
            if (!catalog.find(use.name))
                return at(source, index, name, fmt::format("maps to Strobe's tool {}, which this installation lacks", use.name));
            const bool mappedCmd = use.name == "rocprofv3" && !cmd.empty();
            if (mappedCmd) mapRocprofCmd(cmd, use, where, out.messages);
            else if (!cmd.empty())
                out.messages.push_back(fmt::format("{}: Strobe's tool {} builds its command; the context's cmd '{}' is "
                                                   "not used", where, use.name, cmd));
            if (use.name == "amd-smi" || use.name == "nvidia-smi") {
                auto same = std::find_if(out.tools.begin(), out.tools.end(), [&](const ToolUse& u) { return u.name == use.name; });
                const std::string fields = smiFields(name, use.name, same == out.tools.end() ? "" : stringValue(same->values, "fields"));
                if (same != out.tools.end()) {
                    same->values["fields"] = fields;
                    out.messages.push_back(fmt::format("{}: Strobe's tool {} (the same sampler, fields {})", where,
                                                       use.name, fields));
                    continue;
                }
                use.values["fields"] = fields;
            }
            if (!mappedCmd) out.messages.push_back(fmt::format("{}: Strobe's tool {}", where, use.name));
        } else if (catalog.find(name)) {
            if (!cmd.empty())
                out.messages.push_back(fmt::format("{}: Strobe's tool spec builds its command; the context's cmd '{}' is "
                                                   "not used", where, cmd));
        } else if (cmd.empty()) {
            out.refusal = fmt::format("{}: tools[{}] {}: an unknown tool without a cmd: neither madengine's names Strobe "
                                      "maps ({}) nor a Strobe tool; give a cmd to wrap the command with, or a tool spec",
                                      source, index, name, madengineToolNames());
            return out;
        } else if (const char c = shellSyntax(cmd); c != '\0') {
            return at(source, index, name,
                      fmt::format("cmd '{}' needs a shell ('{}'); Strobe runs argv without one: give the wrapper "
                                  "as plain words, or as a tool spec (resources/tools/*.yaml)", cmd, c));
        } else {
            ToolSpec spec;
            spec.name = name;
            spec.description = "madengine context tool (ad-hoc prefix)";
            spec.kind = ToolKind::Prefix;
            spec.command = splitBlanks(cmd);
            spec.source = fmt::format("{}: tools[{}]", source, index);
            out.adhocTools.push_back(std::move(spec));
        }
        out.tools.push_back(std::move(use));
    }
    std::reverse(out.tools.begin(), out.tools.end());  // madengine: innermost first; Strobe: outermost first
    return out;
}

namespace {
// The text of the context file `path`; the error names it.
core::Result<std::string> readContextFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        core::Location where;
        where.file = path;
        return core::Error(where, "cannot read the madengine context");
    }
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}
}  // namespace

core::Result<ContextImport> loadMadengineContext(const std::string& path, const ToolCatalog& catalog) {
    auto text = readContextFile(path);
    if (!text) return text.error();
    return parseMadengineContext(*text, path, catalog);
}

core::Result<ContextImport> loadMadengineContexts(const std::string& path, const std::string& inlineJson,
                                                  const ToolCatalog& catalog) {
    if (inlineJson.empty()) return loadMadengineContext(path, catalog);
    QJsonObject merged;
    if (!path.empty()) {
        auto text = readContextFile(path);
        if (!text) return text.error();
        auto fromFile = contextObject(*text, path);
        if (!fromFile) return fromFile.error();
        merged = *fromFile;
    }
    auto inlined = contextObject(inlineJson, "--additional-context");
    if (!inlined) return inlined.error();
    for (auto it = inlined->begin(); it != inlined->end(); ++it) merged.insert(it.key(), it.value());  // later wins
    const QByteArray text = QJsonDocument(merged).toJson(QJsonDocument::Compact);
    return parseMadengineContext(std::string_view(text.constData(), static_cast<size_t>(text.size())),
                                 path.empty() ? "--additional-context" : path + " + --additional-context", catalog);
}

std::string applyContext(const ContextImport& context, SessionOptions& options, ToolCatalog& catalog) {
    for (const auto& spec : context.adhocTools) {
        if (catalog.find(spec.name)) return fmt::format("{}: tool {} is already defined", spec.source, spec.name);
        catalog.tools.push_back(spec);
    }
    std::sort(catalog.tools.begin(), catalog.tools.end(),
              [](const ToolSpec& a, const ToolSpec& b) { return a.name < b.name; });
    options.tools.insert(options.tools.end(), context.tools.begin(), context.tools.end());
    for (const auto& [k, v] : context.env) options.env.emplace(k, v);
    return {};
}

}  // namespace strobe::collectors
