#pragma once
// Loading a run: a directory or a list of files → one Dataset. Ranks come from distributedInfo.rank, else the
// file name (rank-3, rank3, worker3, rank_3), else file order; duplicate/missing ranks and mixed world sizes
// become run-level warnings. Ranks load in parallel (one per core), each goes through the load cache.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/formats/source_format.h"
#include "core/io/error.h"
#include "core/io/progress.h"
#include "core/model/classification.h"
#include "core/model/dataset.h"

namespace strobe::core {

struct RunLoadOptions {
    int threads = 0;                       // 0: one per core
    bool useCache = true;                  // read/write the on-disk load cache
    std::filesystem::path cacheDir;        // empty: userCacheDir()
    bool verifyCache = true;               // hash every cached column on reopen (LoadCache::setVerifyData)
    const ClassificationRules* rules = nullptr;  // null: ClassificationRules::loadDefault()
    // Refuse up front (Error naming the file, the estimate and the limit) a run whose concurrently loading files
    // would need more memory than this (see MemoryBudget). 0: 75% of the available RAM; the environment variable
    // STROBE_MEMORY_LIMIT ("512M", "2G") overrides.
    uint64_t memoryLimitBytes = 0;
    // False when the caller checked and reserved the run's memory itself (the load job, core/engine/load_job.h).
    bool checkMemoryBudget = true;
    // Passed to non-Kineto loaders: --clock-offset anchors sources whose clock is not realtime and that neither the
    // source itself nor the run's manifest.yaml anchors (applyClockOptions, core/formats/source_format.h).
    SourceLoadOptions sources;
    // False when the paths are a part of a run (strobe-cli convert loads one rank at a time): ranks absent from
    // the world size are then not reported missing.
    bool wholeRun = true;
    // The load job (core/engine/load_job.h): a run prepared by `strobe-cli convert` whose events would not fit the
    // memory limit once loaded (MemoryBudget::estimateResident) opens from its ranks' summaries (Dataset::summaryFirst)
    // with the events of `ranks` loaded. Needs useCache. loadRun itself ignores both.
    bool summaryFirst = false;
    // Opens summary-first whatever the budget, with the events of these ranks loaded: most wanted first; a rank whose
    // source would not fit the limit beside the ones before it is left out (RunSummaries::notes says so).
    std::optional<std::vector<int>> ranks;
    // The summaries the run was opened with (a drill-down of a summary-first run): reused as they are when every
    // source is still the one they were made from (path, size, mtime) and the cache directory and options key match,
    // instead of reading every summary file again.
    std::shared_ptr<const RunSummaries> knownSummaries;
};

struct RunCallbacks {
    std::function<void(size_t fileIndex, const TraceInfo&)> onMetadata;  // may be called from worker threads
    ProgressFn onProgress;                                                // may be called from worker threads
    CancelToken cancel;
};

// Expands directories into the sources they hold (core/formats/source_detect.h: every file is recognised by its
// content; Kineto traces are *.json, *.json.gz, *.pt.trace.json[.gz] or any file whose content is one; rocprofv3 CSV
// outputs of one prefix are one source; an `.xr` run directory is one source; hidden files skipped), sorted
// naturally by name (rank2 before rank10). A directory without sources of its own, or with only telemetry (a sampler CSV beside torch/), is searched one
// level down (ranks in subdirectories, a sweep of runs), never deeper (manifest runs: 3), so link loops cannot hang.
// Returns one path per source (its primary file, or its directory), which expands back to the same source.
// Files given explicitly are kept in order (whatever their name); a source reached twice is kept once.
// A missing path, a directory without sources, or an explicit file no format reads, is an Error naming it.
Result<std::vector<std::string>> expandRunPaths(const std::vector<std::string>& paths);

// Parses the rank number out of a file name (rank-3, rank3, rank_3, worker3; any case), -1 if none. Only the
// last path component is looked at.
int rankFromFileName(const std::string& fileName);

// Loads every source of the run in parallel (Kineto files as before; other formats through the registry, each
// giving one or more ranks, numbered after the Kineto ranks in source order) (options.threads or one per core; one
// source per thread), each through the load cache when options.useCache (other formats: loadSourceCached,
// core/engine/source_cache.h): a current cache entry is mapped, otherwise the file is parsed, merged
// and written to the cache (a write failure is a warning in Dataset::diagnostics). Rank = distributedInfo.rank,
// else the file name (or its directory's name), else the file's place in the run (RankData::rankSource says
// which). Run-level warnings: files that failed (the others still load; all failing is an Error), duplicate
// ranks, missing ranks in 0..world-1, mixed world sizes. Callbacks are serialized (never two at once), may come
// from worker threads, and onMetadata fires for cache hits too. A Kineto file that merges several ranks (TraceLens
// TraceFusion: pids per rank, `rank` in the metadata's args) opens as its ranks (RankSource::MergedTrace; not
// cached). A source that holds only telemetry samples (the CPU sampler, nvidia-smi, amd-smi, rocm-smi, a rocpd
// database of monitor samples alone) is its host's (Dataset::hosts), never a rank. A cancelled load returns Error "cancelled" after
// every thread has stopped; nothing partial is returned.
Result<DatasetPtr> loadRun(const std::vector<std::string>& paths, const RunLoadOptions& options = {},
                           const RunCallbacks& callbacks = {});
// loadRun on sources detected already (detectSources(paths)): what the load job calls, so that a run's sources are
// detected once.
Result<DatasetPtr> loadDetectedRun(const std::vector<std::string>& paths, const std::vector<SourceGroup>& groups,
                                   const RunLoadOptions& options = {}, const RunCallbacks& callbacks = {});

// The key loadRun files cache entries under besides the source's identity: a fingerprint of the
// classification rules (their output is cached), so that changed rules invalidate the entries. Never 0.
uint64_t cacheOptionsKey(const ClassificationRules& rules);

}  // namespace strobe::core
