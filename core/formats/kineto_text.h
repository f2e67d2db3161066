#pragma once
// Small text helpers of the Kineto loader: exact µs → ns conversion from the raw number text, integers from
// raw tokens, JSON string unescaping and whitespace compaction of raw JSON values. All work on views into the
// parser's buffer; none allocates except into caller-provided scratch strings.

#include <cstdint>
#include <string>
#include <string_view>

namespace strobe::core::kineto {

// The four whitespace characters JSON allows between tokens (RFC 8259): every raw-text scan of the loader stops or
// skips on all four, so that a pretty-printed trace (newlines, CRLF, tabs) reads like a minified one.
constexpr bool isJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// A raw JSON number (or the content of a string holding one) in microseconds → nanoseconds. Integers and
// decimals are converted exactly (digits past the third decimal are rounded half away from zero); exponent
// forms go through double. Returns false when the text is not a number or overflows int64 ns.
bool parseMicrosToNs(std::string_view text, int64_t& ns);

// A raw JSON number that holds an integer (a decimal with a zero fraction or an exponent form is accepted when
// its value is integral and in range). Returns false otherwise.
bool parseInteger(std::string_view text, int64_t& value);

// A raw JSON number as double. Returns false when the text is not a number.
bool parseDouble(std::string_view text, double& value);

// The content of a JSON string holding an integer, as some tools write ids: decimal ("123", parseInteger's rules)
// or 0x-hexadecimal ("0x1f", at most 16 digits). Returns false otherwise or when the value exceeds int64.
bool parseQuotedInteger(std::string_view content, int64_t& value);

// The content of a raw JSON string token (quotes included). Returns false if `token` is not a string.
inline bool stringContent(std::string_view token, std::string_view& content) {
    if (token.size() < 2 || token.front() != '"' || token.back() != '"') return false;
    content = token.substr(1, token.size() - 2);
    return true;
}

// A raw JSON token holding an integer: a number (parseInteger) or a string holding one (parseQuotedInteger).
inline bool parseIntegerToken(std::string_view token, int64_t& value) {
    if (token.empty() || token.front() != '"') return parseInteger(token, value);
    std::string_view content;
    return stringContent(token, content) && parseQuotedInteger(content, value);
}

// A raw JSON value described for a message: "an object {...}", "an array [...]", "a string \"...\"", or the
// literal/number as written; long values are cut at 40 characters. Allocates: for error paths.
std::string describeJsonValue(std::string_view raw);

// Decodes JSON escapes of a string's content (without quotes) into `out`. Returns false on a malformed escape.
bool unescapeJson(std::string_view content, std::string& out);

// Appends `raw` (a JSON value as written) to `out` without whitespace outside strings.
void appendCompactJson(std::string_view raw, std::string& out);

}  // namespace strobe::core::kineto
