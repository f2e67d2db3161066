#pragma once
// Limits on user-written regular expressions, checked before std::regex sees them. libstdc++'s regex compiler
// accumulates a repetition count ("a{N}") or a back-reference number ("\N") in a signed long without an overflow
// check (undefined behaviour, found by the classification_yaml fuzzer), and a large count builds an automaton of
// that many states. Kernel-name patterns need neither: counts up to 1000 and back-references up to \999 pass.

#include <string>
#include <string_view>

#include "core/io/error.h"

namespace strobe::core {

inline constexpr long kMaxRegexRepeat = 1000;

// Ok, or an error naming the offending count and its position in `pattern`.
Status checkRegexLimits(std::string_view pattern);

// `text` with every ECMAScript regex metacharacter escaped, so that the pattern matches it literally.
std::string escapeRegex(std::string_view text);

}  // namespace strobe::core
