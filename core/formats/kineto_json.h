#pragma once
// Kineto (PyTorch profiler) Chrome-trace JSON loader: plain .json or .json.gz, both schemas, the object form
// ({"traceEvents": [...], ...}) and the bare array form ([ {...}, ... ], closing bracket optional).
// Streams the text in ~1 MB chunks cut at event boundaries (never holds the whole JSON), parses each chunk
// with simdjson On-Demand in error-code mode and appends to columns.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "core/io/error.h"
#include "core/io/progress.h"
#include "core/model/dataset.h"

namespace strobe::core {

struct KinetoLoadOptions {
    int threads = 1;                 // parser threads for this one file (1 or 2 are useful here)
    size_t chunkBytes = 1u << 20;    // target chunk size
};

struct KinetoCallbacks {
    // Trace-level facts, as soon as they are known (before the events are parsed when they come first in
    // the file, as Kineto writes them). Called at most once, from the loading thread.
    std::function<void(const TraceInfo&)> onMetadata;
    ProgressFn onProgress;           // stages "read"/"parse"; throttled by the caller
    CancelToken cancel;              // polled at chunk boundaries; a cancelled load returns an Error
};

// Loads one file into a RankData with raw tables filled (derived merge columns are left empty: run
// mergeRank() afterwards). Truncated files keep their complete events and carry a warning diagnostic naming
// the byte offset where the text ends and how many events were kept.
Result<std::unique_ptr<RankData>> loadKinetoTrace(const std::string& path, const KinetoLoadOptions& options = {},
                                                  const KinetoCallbacks& callbacks = {});

// Same, from text in memory (tests, fuzzing). `name` is used in messages.
Result<std::unique_ptr<RankData>> loadKinetoText(std::string_view text, const std::string& name,
                                                 const KinetoLoadOptions& options = {},
                                                 const KinetoCallbacks& callbacks = {});

}  // namespace strobe::core
