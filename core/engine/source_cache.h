#pragma once
// One source's load through the load cache, for every format of the SourceFormat registry: the ranks of a current
// cache entry are mapped; otherwise the format's loader reads the SourceGroup, each rank is merged (core/merge) and
// the ranks are written to the cache. Keyed and validated as Kineto's entries are (core/engine/load_cache.h): the
// identity of every file the group reads (absolute path, size, mtime), the loader and cache format versions, and an
// options key (sourceOptionsKey) of everything else that changes the output: the classification rules, the format,
// --clock-offset and the run manifest's clocks. A changed file is read again; a stale entry is replaced; a corrupt
// or foreign one is replaced with a warning (a rank diagnostic and the log).
//
// A group of several ranks (rocprofv3 or nsys: one per process; a telemetry file) is cached as one entry per rank,
// written by one LoadCache::writeGroup and read back only as a whole (LoadCache::readGroup): each entry is a
// complete single-rank cache file with the same checks, zero-copy columns and fuzzed reader as Kineto's, so the
// group needs no second file layout.

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/engine/load_cache.h"
#include "core/formats/source_format.h"
#include "core/io/error.h"
#include "core/io/progress.h"
#include "core/model/classification.h"
#include "core/model/dataset.h"

namespace strobe::core {

// The key a source's entries are filed under besides its files' identity: `rulesKey` (cacheOptionsKey of the
// classification rules), the format id, and the load options a loader's output depends on (the clock offset when
// set, the manifest's path and clocks when there is one). Never 0.
uint64_t sourceOptionsKey(uint64_t rulesKey, const SourceGroup& group, const SourceLoadOptions& options);

struct SourceLoad {
    std::vector<std::shared_ptr<RankData>> ranks;  // in the loader's order; merged; path/info set (see below)
    CacheLookup lookup = CacheLookup::Missing;     // Hit: the ranks were mapped from the cache
    std::optional<Error> cacheWriteError;          // the entries could not be written (the next open parses again)
};

// Loads one source group: through `cache` when it is not null (a hit maps the ranks; a miss parses, merges and
// writes them), else parses and merges. `parse` replaces the registry's loader when given (the same contract:
// raw ranks of the group). Each rank then gets, hit or miss alike: path and info.path (the group's primary file
// when the loader set none), info.format (the group's format) and the group's unused files in info.alsoPresent.
// A rank's path is stored in the cache as the absolute path of the group's file it names, and given back as that
// file is named now. Errors: the loader's, the merge's, or "cancelled".
Result<SourceLoad> loadSourceCached(
    const SourceGroup& group, const SourceLoadOptions& options, const ClassificationRules& rules, uint64_t rulesKey,
    const LoadCache* cache, const CancelToken& cancel,
    const std::function<Result<std::vector<std::unique_ptr<RankData>>>()>& parse = {});

}  // namespace strobe::core
