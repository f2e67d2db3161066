#pragma once
// A run prepared by `strobe-cli convert` (issue 29), as every front end reads it: which of its ranks have a current
// summary (core/engine/rank_summary.h) and which must be loaded from their traces instead, the summaries made again
// for those, and the whole run's summaries in the loaded run's rank order. `strobe-cli summary`, `analyze
// rank-steps` and the load job's summary-first opening (load_job.h: the workbench opens a run whose full load would
// not fit the memory budget from its summaries and loads the events of the ranks the user picks) share it.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/load_cache.h"
#include "core/engine/rank_summary.h"
#include "core/io/error.h"
#include "core/io/progress.h"
#include "core/model/dataset.h"

namespace strobe::core {

// The options key summaries and cache entries are made with (a fingerprint of the default classification rules).
Result<uint64_t> convertOptionsKey();

// Writes the summary of each rank of `source` in `ds` (every rank when ds.sources holds one path; else the ranks
// whose path is `source`), in the order they come, identified by `stamp` (taken before the load).
Status writeSourceSummaries(const Dataset& ds, const std::string& source, const SourceStamp& stamp,
                            const std::filesystem::path& dir, uint64_t optionsKey);
// Appends the summaries of `source`'s ranks when they are current (its rank 0 first); false when rank 0's is not.
bool readSourceSummaries(const std::filesystem::path& dir, const std::string& source, uint64_t optionsKey,
                         std::vector<StoredRankSummary>& out);

// A converted run: the ranks of the sources whose summaries are current (source order; a source of several ranks
// has one summary per rank), and the sources to load instead (no summary, or one that is stale, corrupt or
// foreign: each of those named in one warning).
struct SummaryPlan {
    std::filesystem::path dir;  // the cache directory
    uint64_t optionsKey = 0;
    std::vector<StoredRankSummary> fromSummary;
    std::vector<std::string> toLoad;
    std::vector<std::string> warnings;  // "stale summary FILE: why; the rank is loaded from its trace and ..."
};
// The plan of the run `paths` in `cacheDir` (empty: userCacheDir()) when it was converted (some source has a summary
// file); nullopt otherwise (the caller loads the run as usual). The caller decides whether summaries apply at all
// (the load cache in use, the default clocks).
std::optional<SummaryPlan> planFromSummaries(const std::vector<std::string>& paths,
                                             const std::filesystem::path& cacheDir);

// Every rank of a converted run from its summaries, and which ranks' events are loaded beside them: what a
// summary-first dataset carries (Dataset::summaryFirst).
struct RunSummaries {
    std::filesystem::path dir;  // the cache directory they were read from
    uint64_t optionsKey = 0;
    std::vector<StoredRankSummary> ranks;  // every rank, by rank number, then source order
    std::vector<int> loaded;               // the ranks whose events the dataset holds, ascending
    size_t remade = 0;                     // summaries made again at this opening (their ranks were loaded)
    uint64_t runEstimate = 0;              // the full load's estimated peak (MemoryBudget) ...
    uint64_t limit = 0;                    // ... and the budget it did not fit (0: summary-first was asked for)
    std::vector<std::string> notes;        // what the opening tells: ranks asked for and left out for the budget

    bool isLoaded(int rank) const;
    const StoredRankSummary* find(int rank) const;
    // The sources (absolute paths) of `ranks`, each once, in the order the ranks come; unknown ranks are skipped.
    std::vector<std::string> sourcesOf(const std::vector<int>& ranks) const;
    // "events of 2 of 512 ranks loaded (3, 17); the others from their summaries"
    std::string loadedText() const;
};

// `known` (summaries read before) when they still describe the run `sources` in `cacheDir` (empty: userCacheDir())
// under `optionsKey`: every source has summaries there and is unchanged since (path, size, mtime), and no summary
// names a source outside the run. nullopt otherwise (read them again: planFromSummaries). Stats each source once.
std::optional<RunSummaries> reuseRunSummaries(const RunSummaries& known, const std::vector<std::string>& sources,
                                              const std::filesystem::path& cacheDir, uint64_t optionsKey);

// Loads sources of the run (a part of it: RunLoadOptions::wholeRun false) for completeRunSummaries.
using PartLoader = std::function<Result<DatasetPtr>(const std::vector<std::string>& sources)>;

// The run's summaries from `plan`: the sources to load are loaded through `load` in batches whose estimated peak
// fits `limitBytes` (one source at least), their summaries written and read back (`remade`), then every rank sorted
// as a loaded run orders them. An Error when a source cannot be loaded or summarised, or when ranks are numbered by
// their files' place in the run (no distributedInfo, no rank in the file name: a part loaded alone would be numbered
// differently), naming the file.
Result<RunSummaries> completeRunSummaries(SummaryPlan plan, const PartLoader& load, uint64_t limitBytes,
                                          const CancelToken& cancel = {});

}  // namespace strobe::core
