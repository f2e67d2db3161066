#include "core/params/param_spec.h"

#include "core/io/regex_check.h"

#include <QJsonArray>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace strobe::core {

namespace {

const char* kTypeNames[] = {"bool",    "int",   "double", "enum", "string",   "stringlist",
                            "rankset", "regex", "color",  "path", "duration", "keyvaluelist"};

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

bool isListType(ParamType t) {
    return t == ParamType::StringList || t == ParamType::RankSet || t == ParamType::KeyValueList;
}

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

Error specError(const ParamSpec& spec, const std::string& what) {
    return Error(fmt::format("parameter '{}': {}", spec.key, what));
}

__extension__ typedef __int128 i128;  // exact duration arithmetic

struct DurationUnit {
    const char* name;
    long long ns;
};
// Largest first (the writer picks the first that divides the value).
const DurationUnit kDurationUnits[] = {{"min", 60'000'000'000LL}, {"s", 1'000'000'000LL}, {"ms", 1'000'000LL},
                                       {"us", 1'000LL},           {"\xC2\xB5s", 1'000LL}, {"ns", 1LL}};

// "30us", "1.5ms", "250" (ns) → whole nanoseconds; false when malformed, not whole or out of range.
bool parseDuration(std::string_view text, long long& out) {
    const std::string t = trim(text);
    size_t numEnd = 0;
    if (numEnd < t.size() && (t[0] == '-' || t[0] == '+')) ++numEnd;
    while (numEnd < t.size() && (std::isdigit(static_cast<unsigned char>(t[numEnd])) || t[numEnd] == '.')) ++numEnd;
    const std::string num = t.substr(0, numEnd), unit = trim(std::string_view(t).substr(numEnd));
    long long scale = 1;
    if (!unit.empty()) {
        bool found = false;
        for (const auto& u : kDurationUnits)
            if (unit == u.name) scale = u.ns, found = true;
        if (!found) return false;
    }
    const bool negative = !num.empty() && num[0] == '-';
    const std::string body = num.substr(num.empty() || std::isdigit(static_cast<unsigned char>(num[0])) ? 0 : 1);
    const auto dot = body.find('.');
    const std::string intPart = body.substr(0, dot), fracPart = dot == std::string::npos ? "" : body.substr(dot + 1);
    if (intPart.empty() && fracPart.empty()) return false;
    if (intPart.find_first_not_of("0123456789") != std::string::npos ||
        fracPart.find_first_not_of("0123456789") != std::string::npos || intPart.size() > 18 || fracPart.size() > 18)
        return false;
    if (dot != std::string::npos && fracPart.empty()) return false;
    i128 whole = intPart.empty() ? 0 : std::stoll(intPart);
    i128 pow10 = 1, frac = fracPart.empty() ? 0 : std::stoll(fracPart);
    for (size_t i = 0; i < fracPart.size(); ++i) pow10 *= 10;
    if ((frac * scale) % pow10 != 0) return false;  // not whole nanoseconds
    i128 v = whole * scale + frac * scale / pow10;
    if (negative) v = -v;
    if (v > INT64_MAX || v < INT64_MIN) return false;
    out = static_cast<long long>(v);
    return true;
}

// A Duration parameter as its exact text ("30us", "1500ns"): what a session or tool spec writes and reads back (not
// the human-readable core::formatDuration of core/model/duration_text.h).
std::string exactDurationText(long long ns) {
    if (ns == 0) return "0ns";
    for (const auto& u : kDurationUnits) {
        if (std::string_view(u.name) == "\xC2\xB5s") continue;
        if (ns % u.ns == 0) return fmt::format("{}{}", ns / u.ns, u.name);
    }
    return fmt::format("{}ns", ns);
}

// "key=value" with a non-empty key.
bool isKeyValue(const std::string& item) {
    auto eq = item.find('=');
    return eq != std::string::npos && eq > 0;
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
    case ParamType::Int:
    case ParamType::Duration: return std::holds_alternative<long long>(v);
    case ParamType::Double: return std::holds_alternative<double>(v);
    case ParamType::StringList:
    case ParamType::RankSet:
    case ParamType::KeyValueList: return std::holds_alternative<std::vector<std::string>>(v);
    default: return std::holds_alternative<std::string>(v);
    }
}

Status validate(const ParamSpec& spec, const ParamValue& value) {
    if (!valueMatchesType(spec.type, value))
        return specError(spec, fmt::format("expected a value of type {}", toString(spec.type)));
    switch (spec.type) {
    case ParamType::Int: {
        auto v = std::get<long long>(value);
        if (spec.hasBounds() && (double(v) < spec.min || double(v) > spec.max))
            return specError(spec, fmt::format("{} is outside [{}, {}]", v, (long long)spec.min, (long long)spec.max));
        break;
    }
    case ParamType::Duration: {
        auto v = std::get<long long>(value);
        if (spec.hasBounds() && (double(v) < spec.min || double(v) > spec.max))
            return specError(
                spec,
                fmt::format("{} is outside [{}, {}]", exactDurationText(v), exactDurationText((long long)spec.min),
                            exactDurationText((long long)spec.max)));
        break;
    }
    case ParamType::KeyValueList:
        for (const auto& item : std::get<std::vector<std::string>>(value))
            if (!isKeyValue(item)) return specError(spec, fmt::format("'{}' is not of the form key=value", item));
        break;
    case ParamType::Double: {
        auto v = std::get<double>(value);
        if (!std::isfinite(v)) return specError(spec, "expected a finite number");
        if (spec.hasBounds() && (v < spec.min || v > spec.max))
            return specError(
                spec,
                fmt::format("{} is outside [{}, {}]", formatDouble(v), formatDouble(spec.min), formatDouble(spec.max)));
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
        if (auto limits = checkRegexLimits(v); !limits)
            return specError(spec, fmt::format("'{}' is not a valid regular expression ({})", v.substr(0, 64),
                                               limits.error().message));
        try {
            std::regex re(v, std::regex::ECMAScript);
        } catch (const std::regex_error& e) {
            return specError(spec, fmt::format("'{}' is not a valid regular expression ({})", v, e.what()));
        }
        break;
    }
    case ParamType::Color:
        if (!isColor(std::get<std::string>(value)))
            return specError(spec,
                             fmt::format("'{}' is not a colour of the form #rrggbb", std::get<std::string>(value)));
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
    return Ok{};
}

std::string valueToString(const ParamSpec& spec, const ParamValue& value) {
    if (spec.type == ParamType::Duration && std::holds_alternative<long long>(value))
        return exactDurationText(std::get<long long>(value));
    return std::visit(
        [](const auto& v) -> std::string {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, bool>)
                return v ? "true" : "false";
            else if constexpr (std::is_same_v<T, long long>)
                return std::to_string(v);
            else if constexpr (std::is_same_v<T, double>)
                return formatDouble(v);
            else if constexpr (std::is_same_v<T, std::string>)
                return v;
            else
                return joinList(v);
        },
        value);
}

Result<ParamValue> valueFromString(const ParamSpec& spec, std::string_view text) {
    ParamValue out;
    switch (spec.type) {
    case ParamType::Bool: {
        auto t = lower(trim(text));
        if (t == "true" || t == "1" || t == "yes" || t == "on")
            out = true;
        else if (t == "false" || t == "0" || t == "no" || t == "off")
            out = false;
        else
            return specError(spec, fmt::format("'{}' is not a boolean (expected true or false)", text));
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
    case ParamType::Duration: {
        long long v = 0;
        if (!parseDuration(text, v))
            return specError(
                spec, fmt::format("'{}' is not a duration in whole nanoseconds (e.g. 250, 30us, 1.5ms, 2s)", text));
        out = v;
        break;
    }
    case ParamType::StringList:
    case ParamType::KeyValueList: out = splitList(text); break;
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
                        return specError(spec,
                                         fmt::format("'{}' is not a rank range (expected A-B with A <= B)", item));
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
    if (spec.type == ParamType::KeyValueList && std::holds_alternative<std::vector<std::string>>(value)) {
        QJsonObject o;
        for (const auto& item : std::get<std::vector<std::string>>(value)) {
            auto eq = item.find('=');
            o[QString::fromStdString(item.substr(0, eq))] =
                QString::fromStdString(eq == std::string::npos ? std::string() : item.substr(eq + 1));
        }
        return o;
    }
    return std::visit(
        [](const auto& v) -> QJsonValue {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, bool>)
                return v;
            else if constexpr (std::is_same_v<T, long long>)
                return static_cast<qint64>(v);
            else if constexpr (std::is_same_v<T, double>)
                return v;
            else if constexpr (std::is_same_v<T, std::string>)
                return QString::fromStdString(v);
            else {
                QJsonArray a;
                for (const auto& s : v) a.append(QString::fromStdString(s));
                return a;
            }
        },
        value);
}

Result<ParamValue> valueFromJson(const ParamSpec& spec, const QJsonValue& json) {
    // The JSON value as the ParamValue it spells, then the one coercion rule.
    ParamValue given;
    if (json.isBool()) {
        given = json.toBool();
    } else if (json.isDouble()) {
        const double d = json.toDouble();
        if (d == std::floor(d) && std::fabs(d) < 9.0e15)
            given = static_cast<long long>(json.toInteger());
        else
            given = d;
    } else if (json.isString()) {
        given = json.toString().toStdString();
    } else if (json.isArray()) {
        std::vector<std::string> items;
        for (const auto& v : json.toArray()) {
            if (v.isString())
                items.push_back(v.toString().toStdString());
            else if (v.isDouble() && v.toDouble() == std::floor(v.toDouble()))
                items.push_back(std::to_string(v.toInteger()));
            else
                return specError(spec, "expected a JSON array of strings");
        }
        given = items;
    } else if (json.isObject() && spec.type == ParamType::KeyValueList) {
        std::vector<std::string> items;
        const QJsonObject o = json.toObject();
        for (auto it = o.begin(); it != o.end(); ++it) {
            if (!it.value().isString()) return specError(spec, "expected a JSON object of text values");
            items.push_back(it.key().toStdString() + "=" + it.value().toString().toStdString());
        }
        given = items;
    } else {
        return specError(spec, fmt::format("expected a JSON value of type {}", toString(spec.type)));
    }
    return coerceValue(spec, given);
}

QJsonObject specToJson(const ParamSpec& spec) {
    QJsonObject o;
    o["key"] = QString::fromStdString(spec.key);
    o["label"] = QString::fromStdString(spec.label);
    o["tooltip"] = QString::fromStdString(spec.tooltip);
    o["type"] = QString::fromLatin1(toString(spec.type));
    o["default"] = valueToJson(spec, spec.defaultValue);
    o["affectsPrepare"] = spec.affectsPrepare;
    if (spec.type == ParamType::Int || spec.type == ParamType::Double || spec.type == ParamType::Duration) {
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

Result<ParamSpec> specFromJson(const QJsonObject& json) {
    ParamSpec spec;
    if (!json["key"].isString() || json["key"].toString().isEmpty())
        return Error("parameter spec: expected a non-empty string \"key\"");
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
    for (const auto& s : specs)
        if (std::find(s.formerKeys.begin(), s.formerKeys.end(), key) != s.formerKeys.end()) return &s;
    return nullptr;
}

const ParamValue* findValue(const ParamSpec& spec, const ParamValues& values) {
    if (auto it = values.find(spec.key); it != values.end()) return &it->second;
    for (const auto& former : spec.formerKeys)
        if (auto it = values.find(former); it != values.end()) return &it->second;
    return nullptr;
}

namespace {

// A StringList whose choices are the loaded data's keeps only the items among them (an item the data lacks is never
// offered ticked).
void keepItemsTheDataOffers(const ParamSpec& spec, ParamValue& v) {
    if (spec.type != ParamType::StringList || !spec.choicesFromData) return;
    if (auto* items = std::get_if<std::vector<std::string>>(&v))
        std::erase_if(*items, [&](const std::string& item) {
            return std::find(spec.choices.begin(), spec.choices.end(), item) == spec.choices.end();
        });
}

}  // namespace

namespace {

// An Enum choice that was renamed reads as its current name.
std::string currentChoice(const ParamSpec& spec, std::string text) {
    if (spec.type != ParamType::Enum) return text;
    for (const auto& [former, current] : spec.formerChoices)
        if (text == former) return current;
    return text;
}

}  // namespace

Result<ParamValue> coerceValue(const ParamSpec& spec, const ParamValue& given) {
    if (const auto* text = std::get_if<std::string>(&given)) {
        auto parsed = valueFromString(spec, currentChoice(spec, *text));
        if (parsed) keepItemsTheDataOffers(spec, *parsed);
        return parsed;
    }
    ParamValue v = given;
    const auto shown = [&] {
        return std::visit(
            [](const auto& x) -> std::string {
                using T = std::decay_t<decltype(x)>;
                if constexpr (std::is_same_v<T, bool>)
                    return x ? "true" : "false";
                else if constexpr (std::is_same_v<T, long long>)
                    return std::to_string(x);
                else if constexpr (std::is_same_v<T, double>)
                    return formatDouble(x);
                else if constexpr (std::is_same_v<T, std::string>)
                    return x;
                else
                    return "[" + joinList(x) + "]";
            },
            given);
    };
    switch (spec.type) {
    case ParamType::Int:
    case ParamType::Duration:
        if (const auto* d = std::get_if<double>(&v)) {
            if (!std::isfinite(*d) || *d != std::floor(*d) || std::fabs(*d) > 9.2e18)
                return specError(
                    spec,
                    fmt::format("'{}' is not {}", shown(),
                                spec.type == ParamType::Int ? "an integer" : "a whole number of nanoseconds"));
            v = static_cast<long long>(*d);
        }
        break;
    case ParamType::Double:
        if (const auto* i = std::get_if<long long>(&v)) v = static_cast<double>(*i);
        break;
    case ParamType::Enum:
    case ParamType::String:
    case ParamType::Regex:
    case ParamType::Color:
    case ParamType::Path:
        // A scalar written without quotes (YAML 8, true) is the text it was written as.
        if (!std::holds_alternative<std::vector<std::string>>(v)) v = currentChoice(spec, shown());
        break;
    default: break;
    }
    if (!valueMatchesType(spec.type, v))
        return specError(spec, fmt::format("'{}' is not a value of type {}", shown(), toString(spec.type)));
    if (auto st = validate(spec, v); !st) return st.error();
    keepItemsTheDataOffers(spec, v);
    return v;
}

Result<ParamValues> resolveValues(const std::vector<ParamSpec>& specs, const ParamValues& values) {
    ParamValues out;
    for (const auto& s : specs) out[s.key] = s.defaultValue;
    for (const auto& [key, value] : values) {
        const ParamSpec* spec = findSpec(specs, key);
        if (!spec) return Error(fmt::format("unknown parameter '{}'", key));
        // The current key wins over a former one given beside it.
        if (spec->key != key && values.count(spec->key)) continue;
        auto v = coerceValue(*spec, value);
        if (!v) return v.error();
        out[spec->key] = std::move(v.value());
    }
    return out;
}

Status applyAssignment(const std::vector<ParamSpec>& specs, std::string_view assignment, ParamValues& values) {
    auto eq = assignment.find('=');
    if (eq == std::string_view::npos || eq == 0) return Error(fmt::format("'{}': expected key=value", assignment));
    auto key = trim(assignment.substr(0, eq));
    const ParamSpec* spec = findSpec(specs, key);
    if (!spec) {
        std::string keys;
        for (const auto& s : specs) keys += (keys.empty() ? "" : ", ") + s.key;
        return Error(fmt::format("unknown parameter '{}' (this plot has: {})", key, keys));
    }
    auto v = coerceValue(*spec, std::string(assignment.substr(eq + 1)));
    if (!v) return v.error();
    values[spec->key] = *v;
    return Ok{};
}

std::vector<ParamSpec> specsBeforeData(std::vector<ParamSpec> specs) {
    for (auto& s : specs)
        if (s.type == ParamType::Enum && s.choicesFromData) {
            s.type = ParamType::String;  // the same value alternative (std::string): resolveValues re-coerces it
            s.choices.clear();
            s.defaultValue = std::string();
        } else if (s.type == ParamType::StringList && s.choicesFromData) {
            s.choicesFromData = false;  // any items until the data says which it offers
            s.choices.clear();
        }
    return specs;
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

std::vector<int> ranksOf(const ParamValue& value) {
    std::vector<int> out;
    if (const auto* list = std::get_if<std::vector<std::string>>(&value))
        for (const auto& s : *list) {
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

// ---------------------------------------------------------------- YAML

namespace {

// yaml-cpp reports problems by exception; they stay inside this file and become an Error with the line.
struct YamlFailure {
    YAML::Mark mark;
    std::string message;
};

[[noreturn]] void yamlFail(const YAML::Node& n, std::string message) {
    throw YamlFailure{n.Mark(), std::move(message)};
}

// A YAML value as the ParamValue it spells (plain scalars typed as YAML 1.2 core reads them), then coerced.
ParamValue yamlToValue(const ParamSpec& spec, const YAML::Node& n) {
    if (n.IsMap()) {
        if (spec.type != ParamType::KeyValueList)
            yamlFail(n, fmt::format("parameter '{}': a mapping is only a value of a keyvaluelist", spec.key));
        std::vector<std::string> items;
        for (const auto& kv : n) {
            if (!kv.first.IsScalar() || !kv.second.IsScalar())
                yamlFail(kv.first, fmt::format("parameter '{}': expected key: value text", spec.key));
            items.push_back(kv.first.Scalar() + "=" + kv.second.Scalar());
        }
        return items;
    }
    if (n.IsSequence()) {
        std::vector<std::string> items;
        for (const auto& e : n) {
            if (!e.IsScalar()) yamlFail(e, fmt::format("parameter '{}': expected a list of text values", spec.key));
            items.push_back(e.Scalar());
        }
        return items;
    }
    if (!n.IsScalar()) yamlFail(n, fmt::format("parameter '{}': expected a value", spec.key));
    const std::string& text = n.Scalar();
    if (n.Tag() != "?") return text;  // quoted: text, parsed by the string form
    if (text == "true") return true;
    if (text == "false") return false;
    long long i = 0;
    if (parseInt(text, i) && text.find_first_of("+ \t") == std::string::npos) return i;
    double d = 0;
    if (parseDouble(text, d) && text.find_first_of("+ \t") == std::string::npos) return d;
    return text;
}

void emitYamlValue(YAML::Emitter& out, const ParamSpec& spec, const ParamValue& v) {
    if (spec.type == ParamType::KeyValueList && std::holds_alternative<std::vector<std::string>>(v)) {
        out << YAML::BeginMap;
        for (const auto& item : std::get<std::vector<std::string>>(v)) {
            auto eq = item.find('=');
            out << YAML::Key << YAML::DoubleQuoted << item.substr(0, eq) << YAML::Value << YAML::DoubleQuoted
                << (eq == std::string::npos ? std::string() : item.substr(eq + 1));
        }
        out << YAML::EndMap;
        return;
    }
    if (spec.type == ParamType::Duration) {
        out << YAML::DoubleQuoted << valueToString(spec, v);
        return;
    }
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, bool>)
                out << (x ? "true" : "false");
            else if constexpr (std::is_same_v<T, long long>)
                out << std::to_string(x);
            else if constexpr (std::is_same_v<T, double>) {
                std::string t = formatDouble(x);
                if (t.find_first_of(".eE") == std::string::npos) t += ".0";
                out << t;
            } else if constexpr (std::is_same_v<T, std::string>)
                out << YAML::DoubleQuoted << x;
            else {
                out << YAML::Flow << YAML::BeginSeq;
                for (const auto& e : x) out << YAML::DoubleQuoted << e;
                out << YAML::EndSeq;
            }
        },
        v);
}

ParamSpec yamlToSpec(const YAML::Node& n) {
    if (!n.IsMap()) yamlFail(n, "expected a parameter (a mapping with 'key' and 'type')");
    ParamSpec spec;
    auto text = [&](const char* name) -> std::string {
        auto v = n[name];
        if (!v) return {};
        if (!v.IsScalar()) yamlFail(v, fmt::format("expected a text value for '{}'", name));
        return v.Scalar();
    };
    spec.key = text("key");
    if (spec.key.empty()) yamlFail(n, "parameter without 'key'");
    const std::string typeName = text("type");
    auto type = paramTypeFromString(typeName);
    if (!type)
        yamlFail(n["type"] ? n["type"] : n, fmt::format("parameter '{}': unknown type '{}'", spec.key, typeName));
    spec.type = *type;
    spec.label = text("label");
    spec.tooltip = text("tooltip");
    spec.unit = text("unit");
    if (auto v = n["affectsPrepare"]) {
        if (!v.IsScalar() || (v.Scalar() != "true" && v.Scalar() != "false"))
            yamlFail(v, fmt::format("parameter '{}': expected true or false for 'affectsPrepare'", spec.key));
        spec.affectsPrepare = v.Scalar() == "true";
    }
    auto number = [&](const char* name, double& out) {
        auto v = n[name];
        if (!v) return;
        if (spec.type == ParamType::Duration) {
            long long ns = 0;
            if (!v.IsScalar() || !parseDuration(v.Scalar(), ns))
                yamlFail(v, fmt::format("parameter '{}': expected a duration for '{}'", spec.key, name));
            out = double(ns);
        } else if (!v.IsScalar() || !parseDouble(v.Scalar(), out)) {
            yamlFail(v, fmt::format("parameter '{}': expected a number for '{}'", spec.key, name));
        }
    };
    number("min", spec.min);
    number("max", spec.max);
    number("step", spec.step);
    if (auto v = n["choices"]) {
        if (!v.IsSequence()) yamlFail(v, fmt::format("parameter '{}': expected a list for 'choices'", spec.key));
        for (const auto& c : v) {
            if (!c.IsScalar()) yamlFail(c, fmt::format("parameter '{}': expected text choices", spec.key));
            spec.choices.push_back(c.Scalar());
        }
    }
    // Without a default: the type's empty value (false, 0, "", []), or the first Enum choice.
    ParamValue def;
    switch (spec.type) {
    case ParamType::Bool: def = false; break;
    case ParamType::Int:
    case ParamType::Duration: def = static_cast<long long>(spec.hasBounds() ? spec.min : 0); break;
    case ParamType::Double: def = spec.hasBounds() ? spec.min : 0.0; break;
    case ParamType::StringList:
    case ParamType::RankSet:
    case ParamType::KeyValueList: def = std::vector<std::string>{}; break;
    case ParamType::Enum: def = spec.choices.empty() ? std::string() : spec.choices.front(); break;
    case ParamType::Color: def = std::string("#000000"); break;
    default: def = std::string(); break;
    }
    if (auto v = n["default"]) def = yamlToValue(spec, v);
    auto coerced = coerceValue(spec, def);
    if (!coerced) yamlFail(n["default"] ? n["default"] : n, coerced.error().message);
    spec.defaultValue = coerced.value();
    return spec;
}

}  // namespace

std::string specsToYaml(const std::vector<ParamSpec>& specs) {
    YAML::Emitter out;
    out << YAML::BeginSeq;
    for (const auto& spec : specs) {
        out << YAML::BeginMap;
        out << YAML::Key << "key" << YAML::Value << YAML::DoubleQuoted << spec.key;
        out << YAML::Key << "type" << YAML::Value << toString(spec.type);
        if (!spec.label.empty()) out << YAML::Key << "label" << YAML::Value << YAML::DoubleQuoted << spec.label;
        if (!spec.tooltip.empty()) out << YAML::Key << "tooltip" << YAML::Value << YAML::DoubleQuoted << spec.tooltip;
        out << YAML::Key << "default" << YAML::Value;
        emitYamlValue(out, spec, spec.defaultValue);
        if (!spec.affectsPrepare) out << YAML::Key << "affectsPrepare" << YAML::Value << "false";
        if (spec.hasBounds()) {
            for (auto [name, x] : {std::pair{"min", spec.min}, std::pair{"max", spec.max}}) {
                out << YAML::Key << name << YAML::Value;
                if (spec.type == ParamType::Duration)
                    out << YAML::DoubleQuoted << exactDurationText((long long)x);
                else
                    out << formatDouble(x);
            }
        }
        if (spec.step > 0) {
            out << YAML::Key << "step" << YAML::Value;
            if (spec.type == ParamType::Duration)
                out << YAML::DoubleQuoted << exactDurationText((long long)spec.step);
            else
                out << formatDouble(spec.step);
        }
        if (!spec.choices.empty()) {
            out << YAML::Key << "choices" << YAML::Value << YAML::Flow << YAML::BeginSeq;
            for (const auto& c : spec.choices) out << YAML::DoubleQuoted << c;
            out << YAML::EndSeq;
        }
        if (!spec.unit.empty()) out << YAML::Key << "unit" << YAML::Value << YAML::DoubleQuoted << spec.unit;
        out << YAML::EndMap;
    }
    out << YAML::EndSeq;
    return std::string(out.c_str()) + "\n";
}

Result<std::vector<ParamSpec>> specsFromYaml(const std::string& text, const std::string& source) {
    auto error = [&](const YAML::Mark& mark, const std::string& message) {
        Location where;
        where.file = source;
        if (mark.line >= 0) where.line = mark.line + 1;
        if (mark.pos >= 0) where.byteOffset = mark.pos;
        return Error(where, message);
    };
    try {
        YAML::Node root = YAML::Load(text);
        std::vector<ParamSpec> out;
        if (!root || root.IsNull()) return out;
        if (!root.IsSequence()) yamlFail(root, "expected a list of parameters");
        for (const auto& n : root) {
            ParamSpec spec = yamlToSpec(n);
            if (findSpec(out, spec.key)) yamlFail(n, fmt::format("parameter '{}' is declared twice", spec.key));
            out.push_back(std::move(spec));
        }
        return out;
    } catch (const YamlFailure& f) {
        return error(f.mark, f.message);
    } catch (const YAML::Exception& e) {
        return error(e.mark, e.msg);
    } catch (const std::exception& e) {
        return Error(Location{source, -1, -1, -1}, e.what());
    }
}

}  // namespace strobe::core
