#pragma once
// The trace-level keys of a Kineto file (everything outside traceEvents): one key at a time, from its raw
// JSON value text, into TraceInfo. Unknown keys are kept verbatim (compacted) in TraceInfo::otherKeys.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/io/error.h"
#include "core/model/trace_info.h"

namespace strobe::core::kineto {

// `key` is unescaped; `rawValue` is the value as written. A value of the wrong type or out of range — the key's
// own or a field Strobe reads inside it (distributedInfo.rank, .world_size, .pg_config[i].ranks,
// deviceProperties[i].numSms, ...) — adds a warning naming `file`, `offset` (the top-level value's byte offset),
// the key path, what was expected and what was found, and leaves the field unset.
void applyTopLevelKey(TraceInfo& info, std::string_view key, std::string_view rawValue, const std::string& file,
                      uint64_t offset, Diagnostics& diagnostics);

}  // namespace strobe::core::kineto
