#include "core/io/regex_check.h"

#include <algorithm>

#include <fmt/format.h>

namespace strobe::core {

namespace {
bool isDigitRegexCheck(char c) { return c >= '0' && c <= '9'; }
}  // namespace

Status checkRegexLimits(std::string_view pattern) {
    for (size_t i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        const bool backslash = c == '\\';
        if (!backslash && c != '{') continue;
        if (backslash && i + 1 < pattern.size() && !isDigitRegexCheck(pattern[i + 1])) {
            ++i;  // an escaped character ("\{", "\\"): not a count
            continue;
        }
        // The digits after "{" (and after its comma) or after "\": each number at most kMaxRegexRepeat.
        size_t j = i + 1;
        for (int part = 0; part < (backslash ? 1 : 2); ++part) {
            const size_t from = j;
            long value = 0;
            while (j < pattern.size() && isDigitRegexCheck(pattern[j])) {
                if (value <= kMaxRegexRepeat) value = value * 10 + (pattern[j] - '0');
                ++j;
            }
            if (j > from && value > kMaxRegexRepeat)
                return Error(fmt::format("regular expression: character {}: '{}' is too large a {} (at most {})", from + 1,
                                         pattern.substr(from, std::min<size_t>(j - from, 24)),
                                         backslash ? "back-reference" : "repetition count", kMaxRegexRepeat));
            if (backslash || j >= pattern.size() || pattern[j] != ',') break;
            ++j;
        }
        i = j > i ? j - 1 : i;
    }
    return Ok{};
}

std::string escapeRegex(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 8);
    for (char c : text) {
        if (std::string_view("\\^$.|?*+()[]{}/").find(c) != std::string_view::npos) out += '\\';
        out += c;
    }
    return out;
}

}  // namespace strobe::core
