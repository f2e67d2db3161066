#include "plots/param_spec.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <regex>
#include <set>

#include <QJsonArray>

#include <fmt/format.h>

namespace strobe::plots {

namespace {

const char* kTypeNames[] = {"bool", "int", "double", "enum", "string", "stringlist", "rankset", "regex", "color"};

std::string trim(std::string_view s) {
    size_t b = 0, e = s.size();
    while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
    while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
    return std::string(s.substr(b, e - b));
}

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool isListType(ParamType t) { return t == ParamType::StringList || t == ParamType::RankSet; }

std::vector<std::string> splitList(std::string_view text) {
    std::vector<std::string> out;
    std::string cur;
    bool any = false;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == '\\' && i + 1 < text.size()) {
            cur += text[++i];
            any = true;
        } else if (c == ',') {
            out.push_back(trim(cur));
            cur.clear();
            any = true;
        } else {
            cur += c;
            any = true;
        }
    }
    if (any) out.push_back(trim(cur));
    // Drop empty items ("a,,b" or a trailing comma).
    out.erase(std::remove(out.begin(), out.end(), std::string()), out.end());
    return out;
}

std::string joinList(const std::vector<std::string>& items) {
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += ',';
        for (char c : items[i]) {
            if (c == ',' || c == '\\') out += '\\';
            out += c;
        }
    }
    return out;
}

bool parseInt(std::string_view s, long long& out) {
    auto t = trim(s);
    if (t.empty()) return false;
    const char* b = t.data();
    if (*b == '+') ++b;
    auto [p, ec] = std::from_chars(b, t.data() + t.size(), out);
    return ec == std::errc() && p == t.data() + t.size();
}

bool parseDouble(std::string_view s, double& out) {
    auto t = trim(s);
    if (t.empty()) return false;
    const char* b = t.data();
    if (*b == '+') ++b;
    auto [p, ec] = std::from_chars(b, t.data() + t.size(), out);
    return ec == std::errc() && p == t.data() + t.size() && std::isfinite(out);
}

std::string formatDouble(double v) {
    // Shortest text that reads back to the same double.
    char buf[64];
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc() ? std::string(buf, p) : fmt::format("{}", v);
}

bool isColor(const std::string& s) {
    if (s.size() != 7 || s[0] != '#') return false;
    return std::all_of(s.begin() + 1, s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

core::Error specError(const ParamSpec& spec, const std::string& what) {
    return core::Error(fmt::format("parameter '{}': {}", spec.key, what));
}

}  // namespace

const char* toString(ParamType t) {
    auto i = static_cast<size_t>(t);
    return i < std::size(kTypeNames) ? kTypeNames[i] : "unknown";
}

std::optional<ParamType> paramTypeFromString(std::string_view s) {
    for (size_t i = 0; i < std::size(kTypeNames); ++i)
        if (s == kTypeNames[i]) return static_cast<ParamType>(i);
    return std::nullopt;
}

bool valueMatchesType(ParamType t, const ParamValue& v) {
    switch (t) {
    case ParamType::Bool: return std::holds_alternative<bool>(v);
    case ParamType::Int: return std::holds_alternative<long long>(v);
    case ParamType::Double: return std::holds_alternative<double>(v);
    case ParamType::StringList:
    case ParamType::RankSet: return std::holds_alternative<std::vector<std::string>>(v);
    default: return std::holds_alternative<std::string>(v);
    }
}

core::Status validate(const ParamSpec& spec, const ParamValue& value) {
    if (!valueMatchesType(spec.type, value))
        return specError(spec, fmt::format("expected a value of type {}", toString(spec.type)));
    switch (spec.type) {
    case ParamType::Int: {
        auto v = std::get<long long>(value);
        if (spec.hasBounds() && (double(v) < spec.min || double(v) > spec.max))
            return specError(spec, fmt::format("{} is outside [{}, {}]", v, (long long)spec.min, (long long)spec.max));
        break;
    }
    case ParamType::Double: {
        auto v = std::get<double>(value);
        if (!std::isfinite(v)) return specError(spec, "expected a finite number");
        if (spec.hasBounds() && (v < spec.min || v > spec.max))
            return specError(spec, fmt::format("{} is outside [{}, {}]", formatDouble(v), formatDouble(spec.min),
                                               formatDouble(spec.max)));
        break;
    }
    case ParamType::Enum: {
        const auto& v = std::get<std::string>(value);
        if (std::find(spec.choices.begin(), spec.choices.end(), v) == spec.choices.end()) {
            std::string all;
            for (const auto& c : spec.choices) all += (all.empty() ? "" : ", ") + c;
            return specError(spec, fmt::format("'{}' is not one of: {}", v, all));
        }
        break;
    }
    case ParamType::Regex: {
        const auto& v = std::get<std::string>(value);
        try {
            std::regex re(v, std::regex::ECMAScript);
        } catch (const std::regex_error& e) {
            return specError(spec, fmt::format("'{}' is not a valid regular expression ({})", v, e.what()));
        }
        break;
    }
    case ParamType::Color:
        if (!isColor(std::get<std::string>(value)))
            return specError(spec, fmt::format("'{}' is not a colour of the form #rrggbb", std::get<std::string>(value)));
        break;
    case ParamType::RankSet:
        for (const auto& r : std::get<std::vector<std::string>>(value)) {
            long long n = -1;
            if (!parseInt(r, n) || n < 0)
                return specError(spec, fmt::format("'{}' is not a rank number (expected integers >= 0)", r));
        }
        break;
    default: break;
    }
    return core::Ok{};
}

std::string valueToString(const ParamSpec& spec, const ParamValue& value) {
    (void)spec;
    return std::visit(
        [](const auto& v) -> std::string {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
            else if constexpr (std::is_same_v<T, long long>) return std::to_string(v);
            else if constexpr (std::is_same_v<T, double>) return formatDouble(v);
            else if constexpr (std::is_same_v<T, std::string>) return v;
            else return joinList(v);
        },
        value);
}

core::Result<ParamValue> valueFromString(const ParamSpec& spec, std::string_view text) {
    ParamValue out;
    switch (spec.type) {
    case ParamType::Bool: {
        auto t = lower(trim(text));
        if (t == "true" || t == "1" || t == "yes" || t == "on") out = true;
        else if (t == "false" || t == "0" || t == "no" || t == "off") out = false;
        else return specError(spec, fmt::format("'{}' is not a boolean (expected true or false)", text));
        break;
    }
    case ParamType::Int: {
        long long v = 0;
        if (!parseInt(text, v)) return specError(spec, fmt::format("'{}' is not an integer", text));
        out = v;
        break;
    }
    case ParamType::Double: {
        double v = 0;
        if (!parseDouble(text, v)) return specError(spec, fmt::format("'{}' is not a number", text));
        out = v;
        break;
    }
    case ParamType::StringList: out = splitList(text); break;
    case ParamType::RankSet: {
        auto t = lower(trim(text));
        std::vector<std::string> ranks;
        if (t != "all" && !t.empty()) {
            std::set<long long> seen;
            for (const auto& item : splitList(text)) {
                auto dash = item.find('-', 1);
                long long a = -1, b = -1;
                if (dash != std::string::npos) {
                    if (!parseInt(item.substr(0, dash), a) || !parseInt(item.substr(dash + 1), b) || a < 0 || b < a)
                        return specError(spec, fmt::format("'{}' is not a rank range (expected A-B with A <= B)", item));
                    if (b - a > 65536) return specError(spec, fmt::format("rank range '{}' is too large", item));
                } else {
                    if (!parseInt(item, a) || a < 0)
                        return specError(spec, fmt::format("'{}' is not a rank number (expected integers >= 0)", item));
                    b = a;
                }
                for (long long r = a; r <= b; ++r)
                    if (seen.insert(r).second) ranks.push_back(std::to_string(r));
            }
        }
        out = ranks;
        break;
    }
    default: out = std::string(text); break;
    }
    if (auto st = validate(spec, out); !st) return st.error();
    return out;
}

QJsonValue valueToJson(const ParamSpec& spec, const ParamValue& value) {
    (void)spec;
    return std::visit(
        [](const auto& v) -> QJsonValue {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, bool>) return v;
            else if constexpr (std::is_same_v<T, long long>) return static_cast<qint64>(v);
            else if constexpr (std::is_same_v<T, double>) return v;
            else if constexpr (std::is_same_v<T, std::string>) return QString::fromStdString(v);
            else {
                QJsonArray a;
                for (const auto& s : v) a.append(QString::fromStdString(s));
                return a;
            }
        },
        value);
}

core::Result<ParamValue> valueFromJson(const ParamSpec& spec, const QJsonValue& json) {
    ParamValue out;
    switch (spec.type) {
    case ParamType::Bool:
        if (!json.isBool()) return specError(spec, "expected a JSON boolean");
        out = json.toBool();
        break;
    case ParamType::Int: {
        if (!json.isDouble()) return specError(spec, "expected a JSON integer");
        double d = json.toDouble();
        if (d != std::floor(d)) return specError(spec, fmt::format("{} is not an integer", formatDouble(d)));
        out = static_cast<long long>(json.toInteger());
        break;
    }
    case ParamType::Double:
        if (!json.isDouble()) return specError(spec, "expected a JSON number");
        out = json.toDouble();
        break;
    case ParamType::StringList:
    case ParamType::RankSet: {
        if (!json.isArray()) return specError(spec, "expected a JSON array of strings");
        std::vector<std::string> items;
        for (const auto& v : json.toArray()) {
            if (v.isString()) items.push_back(v.toString().toStdString());
            else if (v.isDouble() && spec.type == ParamType::RankSet) items.push_back(std::to_string(v.toInteger()));
            else return specError(spec, "expected a JSON array of strings");
        }
        out = items;
        break;
    }
    default:
        if (!json.isString()) return specError(spec, "expected a JSON string");
        out = json.toString().toStdString();
        break;
    }
    if (auto st = validate(spec, out); !st) return st.error();
    return out;
}

QJsonObject specToJson(const ParamSpec& spec) {
    QJsonObject o;
    o["key"] = QString::fromStdString(spec.key);
    o["label"] = QString::fromStdString(spec.label);
    o["tooltip"] = QString::fromStdString(spec.tooltip);
    o["type"] = QString::fromLatin1(toString(spec.type));
    o["default"] = valueToJson(spec, spec.defaultValue);
    o["affectsPrepare"] = spec.affectsPrepare;
    if (spec.type == ParamType::Int || spec.type == ParamType::Double) {
        if (spec.hasBounds()) {
            o["min"] = spec.min;
            o["max"] = spec.max;
        }
        if (spec.step > 0) o["step"] = spec.step;
    }
    if (spec.type == ParamType::Enum || isListType(spec.type)) {
        QJsonArray c;
        for (const auto& s : spec.choices) c.append(QString::fromStdString(s));
        o["choices"] = c;
    }
    if (!spec.unit.empty()) o["unit"] = QString::fromStdString(spec.unit);
    return o;
}

core::Result<ParamSpec> specFromJson(const QJsonObject& json) {
    ParamSpec spec;
    if (!json["key"].isString() || json["key"].toString().isEmpty())
        return core::Error("parameter spec: expected a non-empty string \"key\"");
    spec.key = json["key"].toString().toStdString();
    auto type = paramTypeFromString(json["type"].toString().toStdString());
    if (!type) return specError(spec, fmt::format("unknown type '{}'", json["type"].toString().toStdString()));
    spec.type = *type;
    spec.label = json["label"].toString().toStdString();
    spec.tooltip = json["tooltip"].toString().toStdString();
    spec.unit = json["unit"].toString().toStdString();
    spec.affectsPrepare = json["affectsPrepare"].toBool(true);
    spec.min = json["min"].toDouble(0);
    spec.max = json["max"].toDouble(0);
    spec.step = json["step"].toDouble(0);
    for (const auto& c : json["choices"].toArray()) spec.choices.push_back(c.toString().toStdString());
    auto def = valueFromJson(spec, json["default"]);
    if (!def) return def.error();
    spec.defaultValue = *def;
    return spec;
}

const ParamSpec* findSpec(const std::vector<ParamSpec>& specs, std::string_view key) {
    for (const auto& s : specs)
        if (s.key == key) return &s;
    return nullptr;
}

core::Result<ParamValues> resolveValues(const std::vector<ParamSpec>& specs, const ParamValues& values) {
    ParamValues out;
    for (const auto& s : specs) out[s.key] = s.defaultValue;
    for (const auto& [key, value] : values) {
        const ParamSpec* spec = findSpec(specs, key);
        if (!spec) return core::Error(fmt::format("unknown parameter '{}'", key));
        ParamValue v = value;
        // Accept an integer for a Double parameter (sessions, JSON).
        if (spec->type == ParamType::Double && std::holds_alternative<long long>(v))
            v = static_cast<double>(std::get<long long>(v));
        if (auto st = validate(*spec, v); !st) return st.error();
        out[key] = std::move(v);
    }
    return out;
}

core::Status applyAssignment(const std::vector<ParamSpec>& specs, std::string_view assignment, ParamValues& values) {
    auto eq = assignment.find('=');
    if (eq == std::string_view::npos || eq == 0)
        return core::Error(fmt::format("'{}': expected key=value", assignment));
    auto key = trim(assignment.substr(0, eq));
    const ParamSpec* spec = findSpec(specs, key);
    if (!spec) {
        std::string keys;
        for (const auto& s : specs) keys += (keys.empty() ? "" : ", ") + s.key;
        return core::Error(fmt::format("unknown parameter '{}' (this plot has: {})", key, keys));
    }
    auto v = valueFromString(*spec, assignment.substr(eq + 1));
    if (!v) return v.error();
    values[key] = *v;
    return core::Ok{};
}

std::string prepareKey(const std::vector<ParamSpec>& specs, const ParamValues& values) {
    std::string out;
    for (const auto& s : specs) {
        if (!s.affectsPrepare) continue;
        auto it = values.find(s.key);
        const ParamValue& v = it != values.end() ? it->second : s.defaultValue;
        auto text = valueToString(s, v);
        // Length-prefixed so that no value can imitate a separator.
        out += fmt::format("{}:{}={};", s.key, text.size(), text);
    }
    return out;
}

bool paramBool(const ParamValues& v, const std::string& key, bool fallback) {
    auto it = v.find(key);
    return it != v.end() && std::holds_alternative<bool>(it->second) ? std::get<bool>(it->second) : fallback;
}
long long paramInt(const ParamValues& v, const std::string& key, long long fallback) {
    auto it = v.find(key);
    if (it == v.end()) return fallback;
    if (std::holds_alternative<long long>(it->second)) return std::get<long long>(it->second);
    if (std::holds_alternative<double>(it->second)) return static_cast<long long>(std::get<double>(it->second));
    return fallback;
}
double paramDouble(const ParamValues& v, const std::string& key, double fallback) {
    auto it = v.find(key);
    if (it == v.end()) return fallback;
    if (std::holds_alternative<double>(it->second)) return std::get<double>(it->second);
    if (std::holds_alternative<long long>(it->second)) return static_cast<double>(std::get<long long>(it->second));
    return fallback;
}
std::string paramString(const ParamValues& v, const std::string& key, const std::string& fallback) {
    auto it = v.find(key);
    return it != v.end() && std::holds_alternative<std::string>(it->second) ? std::get<std::string>(it->second)
                                                                             : fallback;
}
std::vector<std::string> paramList(const ParamValues& v, const std::string& key) {
    auto it = v.find(key);
    return it != v.end() && std::holds_alternative<std::vector<std::string>>(it->second)
               ? std::get<std::vector<std::string>>(it->second)
               : std::vector<std::string>{};
}
std::vector<int> paramRanks(const ParamValues& v, const std::string& key) {
    std::vector<int> out;
    for (const auto& s : paramList(v, key)) {
        long long n = -1;
        if (parseInt(s, n) && n >= 0 && n <= INT32_MAX) out.push_back(static_cast<int>(n));
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

ParamSpec makeSpec(ParamType type, std::string key, std::string label, std::string tooltip, ParamValue defaultValue,
                   std::vector<std::string> choices) {
    ParamSpec s;
    s.key = std::move(key);
    s.label = std::move(label);
    s.tooltip = std::move(tooltip);
    s.type = type;
    s.defaultValue = std::move(defaultValue);
    s.choices = std::move(choices);
    return s;
}

ParamSpec drawOnly(ParamSpec spec) {
    spec.affectsPrepare = false;
    return spec;
}

ParamSpec bounded(ParamSpec spec, double min, double max, double step) {
    spec.min = min;
    spec.max = max;
    spec.step = step;
    return spec;
}

}  // namespace strobe::plots
