#include "core/formats/kineto_text.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace strobe::core::kineto {

namespace {

inline bool isDigit(char c) { return c >= '0' && c <= '9'; }

bool viaDouble(std::string_view text, double& v) {
    char buf[64];
    if (text.empty() || text.size() >= sizeof(buf)) return false;
    std::memcpy(buf, text.data(), text.size());
    buf[text.size()] = '\0';
    char* end = nullptr;
    v = std::strtod(buf, &end);
    return end == buf + text.size() && std::isfinite(v);
}

void appendUtf8(uint32_t cp, std::string& out) {
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

// s[begin, end) as hexadecimal digits (at most 16). False on any other character.
bool hexDigits(std::string_view s, size_t begin, size_t end, uint64_t& v) {
    v = 0;
    for (size_t i = begin; i < end; ++i) {
        const char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= static_cast<uint64_t>(c - '0');
        else if (c >= 'a' && c <= 'f') v |= static_cast<uint64_t>(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= static_cast<uint64_t>(c - 'A' + 10);
        else return false;
    }
    return true;
}

bool hex4(std::string_view s, size_t at, uint32_t& v) {
    uint64_t wide = 0;
    if (at + 4 > s.size() || !hexDigits(s, at, at + 4, wide)) return false;
    v = static_cast<uint32_t>(wide);
    return true;
}

// Reads an optional '-' and then at most `maxDigits` decimal digits from t[i], leaving i on the first character not
// read. False when no digit follows the sign.
bool readSignAndDigits(std::string_view t, size_t& i, bool& neg, uint64_t& v, size_t maxDigits) {
    neg = i < t.size() && t[i] == '-';
    if (neg) ++i;
    if (i >= t.size() || !isDigit(t[i])) return false;
    for (size_t digits = 0; digits < maxDigits && i < t.size() && isDigit(t[i]); ++digits, ++i)
        v = v * 10 + static_cast<uint64_t>(t[i] - '0');
    return true;
}

}  // namespace

bool parseMicrosToNs(std::string_view t, int64_t& ns) {
    size_t i = 0;
    const size_t n = t.size();
    bool neg = false;
    uint64_t whole = 0;
    if (!readSignAndDigits(t, i, neg, whole, 16)) return false;
    if (i < n && isDigit(t[i])) return false;  // > 9.2e15 µs cannot be held in int64 ns
    uint64_t frac = 0;
    if (i < n && t[i] == '.') {
        ++i;
        if (i >= n || !isDigit(t[i])) return false;
        int fd = 0;
        bool roundUp = false;
        while (i < n && isDigit(t[i])) {
            if (fd < 3) frac = frac * 10 + static_cast<uint64_t>(t[i] - '0');
            else if (fd == 3) roundUp = t[i] >= '5';
            ++fd;
            ++i;
        }
        for (int k = fd; k < 3; ++k) frac *= 10;
        if (roundUp) ++frac;
    }
    if (i < n && (t[i] == 'e' || t[i] == 'E')) {
        double d = 0;
        if (!viaDouble(t, d)) return false;
        const double scaled = std::round(d * 1000.0);
        if (!(scaled > -9.2e18 && scaled < 9.2e18)) return false;
        ns = static_cast<int64_t>(scaled);
        return true;
    }
    if (i != n) return false;
    const uint64_t total = whole * 1000 + frac;
    if (total > static_cast<uint64_t>(INT64_MAX)) return false;
    ns = neg ? -static_cast<int64_t>(total) : static_cast<int64_t>(total);
    return true;
}

bool parseInteger(std::string_view t, int64_t& value) {
    size_t i = 0;
    const size_t n = t.size();
    bool neg = false;
    uint64_t v = 0;
    if (!readSignAndDigits(t, i, neg, v, 18)) return false;  // more digits: i != n, read as a double below
    if (i == n) {
        value = neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
        return true;
    }
    double d = 0;
    if (!viaDouble(t, d) || d != std::floor(d) || !(d > -9.2e18 && d < 9.2e18)) return false;
    value = static_cast<int64_t>(d);
    return true;
}

bool parseDouble(std::string_view t, double& value) {
    int64_t iv = 0;
    size_t i = (!t.empty() && t[0] == '-') ? 1 : 0;
    bool simpleInt = i < t.size() && t.size() - i <= 15;
    for (size_t k = i; simpleInt && k < t.size(); ++k) simpleInt = isDigit(t[k]);
    if (simpleInt && parseInteger(t, iv)) {
        value = static_cast<double>(iv);
        return true;
    }
    return viaDouble(t, value);
}

bool parseQuotedInteger(std::string_view content, int64_t& value) {
    if (parseInteger(content, value)) return true;
    if (content.size() <= 2 || content.size() > 18 || content[0] != '0' || (content[1] != 'x' && content[1] != 'X'))
        return false;
    uint64_t v = 0;
    if (!hexDigits(content, 2, content.size(), v) || v > static_cast<uint64_t>(INT64_MAX)) return false;
    value = static_cast<int64_t>(v);
    return true;
}

std::string describeJsonValue(std::string_view raw) {
    constexpr size_t kShown = 40;
    std::string text;
    appendCompactJson(raw, text);
    if (text.size() > kShown) text = text.substr(0, kShown) + "...";
    if (text.empty()) return "nothing";
    switch (text.front()) {
    case '{': return "an object " + text;
    case '[': return "an array " + text;
    case '"': return "a string " + text;
    default: return text;  // true, false, null or a number
    }
}

bool unescapeJson(std::string_view s, std::string& out) {
    out.clear();
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c != '\\') {
            out.push_back(c);
            continue;
        }
        if (++i >= s.size()) return false;
        switch (s[i]) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case '/': out.push_back('/'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'u': {
            uint32_t cp = 0;
            if (!hex4(s, i + 1, cp)) return false;
            i += 4;
            if (cp >= 0xD800 && cp < 0xDC00) {
                uint32_t lo = 0;
                if (i + 2 < s.size() && s[i + 1] == '\\' && s[i + 2] == 'u' && hex4(s, i + 3, lo) && lo >= 0xDC00 &&
                    lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    i += 6;
                } else {
                    cp = 0xFFFD;  // lone high surrogate
                }
            } else if (cp >= 0xDC00 && cp < 0xE000) {
                cp = 0xFFFD;  // lone low surrogate
            }
            appendUtf8(cp, out);
            break;
        }
        default: return false;
        }
    }
    return true;
}

void appendCompactJson(std::string_view raw, std::string& out) {
    bool inString = false;
    bool escape = false;
    for (const char c : raw) {
        if (inString) {
            out.push_back(c);
            if (escape) escape = false;
            else if (c == '\\') escape = true;
            else if (c == '"') inString = false;
            continue;
        }
        if (isJsonSpace(c)) continue;
        if (c == '"') inString = true;
        out.push_back(c);
    }
}

}  // namespace strobe::core::kineto
