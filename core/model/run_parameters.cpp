#include "core/model/run_parameters.h"

#include <charconv>

namespace strobe::core {

std::string runValueText(const RunValue& value) {
    if (const auto* i = std::get_if<long long>(&value)) return std::to_string(*i);
    if (const auto* d = std::get_if<double>(&value)) {
        char buf[64];
        auto [end, ec] = std::to_chars(buf, buf + sizeof buf, *d);
        return ec == std::errc() ? std::string(buf, end) : std::to_string(*d);
    }
    return std::get<std::string>(value);
}

RunValue parseRunValue(std::string_view text) {
    if (text.empty()) return std::string();
    const char* first = text.data();
    const char* last = text.data() + text.size();
    // "007" is a text (a tag, a device id): its number would not read back as written.
    const std::string_view digits = text.substr(text[0] == '-' ? 1 : 0);
    if (digits.size() > 1 && digits[0] == '0' && digits[1] >= '0' && digits[1] <= '9') return std::string(text);
    long long i = 0;
    if (auto [end, ec] = std::from_chars(first, last, i); ec == std::errc() && end == last && first != last) return i;
    if (text.find_first_of("nN") == std::string_view::npos) {  // not nan, inf, infinity
        double d = 0;
        if (auto [end, ec] = std::from_chars(first, last, d); ec == std::errc() && end == last && first != last)
            return d;
    }
    return std::string(text);
}

RunParameters typedParameters(const std::map<std::string, std::string>& text) {
    RunParameters out;
    for (const auto& [k, v] : text) out.emplace(k, parseRunValue(v));
    return out;
}

std::map<std::string, std::string> parameterTexts(const RunParameters& parameters) {
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : parameters) out.emplace(k, runValueText(v));
    return out;
}

std::string configurationKey(const std::map<std::string, std::string>& parameters) {
    std::string key;
    for (const auto& [k, v] : parameters) {
        if (!key.empty()) key += ',';
        key += k;
        key += '=';
        key += v;
    }
    return key;
}

std::string configurationKey(const RunParameters& parameters) { return configurationKey(parameterTexts(parameters)); }

}  // namespace strobe::core
