#pragma once
// The trace-level keys of a Kineto file (everything outside traceEvents): one key at a time, from its raw
// JSON value text, into TraceInfo. Unknown keys are kept verbatim (compacted) in TraceInfo::otherKeys.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/io/error.h"
#include "core/model/trace_info.h"

namespace strobe::core::kineto {

// `key` is unescaped; `rawValue` is the value as written. A value of the wrong type adds a warning (naming
// `file` and `offset`, the value's byte offset) and leaves the field unset.
void applyTopLevelKey(TraceInfo& info, std::string_view key, std::string_view rawValue, const std::string& file,
                      uint64_t offset, Diagnostics& diagnostics);

}  // namespace strobe::core::kineto
