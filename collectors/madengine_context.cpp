#include "collectors/madengine_context.h"

#include <algorithm>
#include <fstream>
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
        ToolUse use;
        use.name = name;
        if (catalog.find(name)) {
            if (!cmd.empty())
                out.messages.push_back(fmt::format("{}: tools[{}] {}: Strobe's tool spec builds its command; the "
                                                   "context's cmd '{}' is not used", source, index, name, cmd));
        } else if (cmd.empty()) {
            out.messages.push_back(fmt::format("{}: tools[{}] {}: no Strobe tool of that name and no cmd: its "
                                               "env_vars are set, madengine's scripts for it are not run",
                                               source, index, name));
            continue;
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
