#pragma once
// A strobe-cli --json document parsed once for a test's assertions (simdjson DOM).
#include <simdjson.h>

#include <string>

namespace strobe::test {

struct Json {
    simdjson::dom::parser parser;
    simdjson::padded_string padded;
    simdjson::dom::element root;
    bool ok = false;
    explicit Json(const std::string& text) : padded(text) { ok = parser.parse(padded).get(root) == simdjson::SUCCESS; }
};

}  // namespace strobe::test
