#pragma once
// Loading a run: a directory or a list of files → one Dataset. Ranks come from distributedInfo.rank, else the
// file name (rank-3, rank3, worker3, rank_3), else file order; duplicate/missing ranks and mixed world sizes
// become run-level warnings. Ranks load in parallel (one per core), each goes through the load cache.

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/analysis/classify.h"
#include "core/engine/progress.h"
#include "core/io/error.h"
#include "core/model/dataset.h"

namespace strobe::core {

struct RunLoadOptions {
    int threads = 0;                       // 0: one per core
    bool useCache = true;                  // read/write the on-disk load cache
    std::filesystem::path cacheDir;        // empty: userCacheDir()
    const ClassificationRules* rules = nullptr;  // null: ClassificationRules::loadDefault()
};

struct RunCallbacks {
    std::function<void(size_t fileIndex, const TraceInfo&)> onMetadata;  // may be called from worker threads
    ProgressFn onProgress;                                                // may be called from worker threads
    CancelToken cancel;
};

// Expands directories into their trace files (*.json, *.json.gz, *.pt.trace.json ...), sorted by name.
Result<std::vector<std::string>> expandRunPaths(const std::vector<std::string>& paths);

// Parses the rank number out of a file name (rank-3, rank3, rank_3, worker3), -1 if none.
int rankFromFileName(const std::string& fileName);

Result<DatasetPtr> loadRun(const std::vector<std::string>& paths, const RunLoadOptions& options = {},
                           const RunCallbacks& callbacks = {});

}  // namespace strobe::core
