#pragma once
// Per-rank summary file (issue 29): what the cross-rank views of a large run need, written beside each rank's load
// cache entry by `strobe-cli convert`, so that a run of a thousand ranks is summarised without loading its events.
//
// Every value is taken from the analyses that compute it on a loaded rank (one concept, one shape): the rank's
// RankSummary (core/analysis/summary.h: events, kernel time, GPU time by category, top kernels, steps...); per
// ProfilerStep, the kernel statistics grouped by category (kernelStatistics, group-by category) and the temporal
// breakdown's idle time (temporalBreakdown), both on the window of that one step (WindowSpec::stepList: the GPU
// activities launched inside it); per communication kernel, as the straggler analysis keys it on the window of its
// step (matchCollectiveKernels: process group, sequence, name) with its type and size (describeCollectiveKernel),
// start and end. So the rank × step table (rankStepsAnalysis) is made again from the summaries of a run's ranks
// alone, cell for cell (rankStepsFromSummaries).
//
// Version 2: the collectives are keyed per step window (version 1 keyed them over the whole trace, took one kernel
// per key and the merge's step of the kernel, which differs from the window's when step spans overlap).
//
// File `<cache entry>.strobe-summary` (LoadCache::entryFor with that extension), native byte order:
//   magic "STROBESM" | u32 endian tag | u32 summary format version | u64 payload size | payload | u64 checksum
// The checksum (LoadCache::checksum) covers every byte before it. The payload is a length-prefixed field list
// (the load cache's metadata encoding) opening with the identity: the source's absolute path, size and mtime (ns),
// the rank's index in its source, the load cache format and loader versions and the options key (classification
// rules) the summary was made with. readRankSummaryFile checks every length and count against the file before it
// allocates, and answers a clear Error naming the file and byte offset for any corrupt input.

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/context.h"
#include "core/analysis/summary.h"
#include "core/analysis/table.h"
#include "core/engine/load_cache.h"
#include "core/io/error.h"
#include "core/model/dataset.h"

namespace strobe::core {

inline constexpr uint32_t kRankSummaryVersion = 2;  // bump when the payload changes
inline constexpr const char* kRankSummaryExtension = ".strobe-summary";

// Which source, at which version, through which build the summary was made from.
struct SummaryIdentity {
    std::string sourcePath;  // absolute
    uint64_t sourceSize = 0;
    int64_t sourceMtimeNs = 0;
    uint32_t rankIndex = 0;  // the rank's index among its source's ranks (0 for a Kineto file)
    uint32_t cacheFormatVersion = kCacheFormatVersion;
    uint32_t loaderVersion = kLoaderVersion;
    uint64_t optionsKey = 0;
};

// One ProfilerStep of the rank.
struct StepSummary {
    int64_t number = 0;
    TimeNs startNs = 0, endNs = 0;
    TimeNs idleNs = 0;      // temporalBreakdown's idle_ns over the step's activities (0 when it has none)
    uint64_t activities = 0;  // GPU activities launched in the step
    std::vector<std::pair<std::string, TimeNs>> timeByCategory;  // kernelStatistics by category: name, total_ns
};

// One communication kernel of the rank in one step window: the straggler analysis' matching on
// WindowSpec::stepList({step}) (a kernel belongs to step N when its launch lies in a span of ProfilerStep#N; one
// record per step window that holds it), in the window's order within a key; then the kernels launched in no step
// (step -1), keyed among themselves.
struct CollectiveSummary {
    std::string name;          // the kernel's name
    std::string type;          // all_reduce, all_gather, ... (toString(Collective))
    std::string processGroup;
    int64_t seq = 0;           // the profiler's Seq, else the occurrence among the window's kernels of name and group
    int64_t bytes = -1;        // message size, -1 when unknown
    int64_t step = -1;         // ProfilerStep number, -1 outside steps
    TimeNs startNs = 0, endNs = 0;
};

struct StoredRankSummary {
    SummaryIdentity identity;
    RankSummary rank;  // summarizeRank's, warnings included
    std::vector<StepSummary> steps;
    std::vector<CollectiveSummary> collectives;
};

// The summary of dataset.ranks[rankIndex] (its analyses run on that rank alone). `identity` is stored as given.
// Its steps are AnalysisContext::steps' (the analyses' spans).
StoredRankSummary buildRankSummary(const Dataset& dataset, size_t rankIndex, SummaryIdentity identity,
                                   size_t topN = 10);

// The summary file of rank `rankIndex` of `sourcePath` in the cache directory `cacheDir` (empty: userCacheDir()).
std::filesystem::path rankSummaryPath(const std::filesystem::path& cacheDir, const std::string& sourcePath,
                                      uint32_t rankIndex = 0);

// The file image, and writing it atomically (a temp file beside it, renamed over it).
std::string encodeRankSummary(const StoredRankSummary& s);
Status writeRankSummaryFile(const std::filesystem::path& file, const StoredRankSummary& s);

// Parses an image; `file` names it in errors ("file: byte N: what was wrong").
Result<StoredRankSummary> decodeRankSummary(const std::string& image, const std::string& file);
Result<StoredRankSummary> readRankSummaryFile(const std::filesystem::path& file);

// Tests and fuzzing: rewrites an image's payload size and checksum to match its bytes (when it holds the frame), so
// that a deliberately malformed payload gets past them to the field checks behind them, which must hold by
// themselves. False when the image is shorter than the frame.
bool resealRankSummary(std::string& image);

// Why a summary file is not current for a source as it is now.
enum class SummaryState : uint8_t { Current, Missing, Stale, Corrupt, Foreign };
std::string_view toString(SummaryState s);

struct SummaryLookup {
    SummaryState state = SummaryState::Missing;
    std::string reason;  // "" when current
    std::filesystem::path file;
    StoredRankSummary summary;  // when current
};

// Reads the summary of `sourcePath`'s rank `rankIndex` in `cacheDir` and checks it against the source as it is
// now (path, size, mtime), this build's cache format and loader versions and `optionsKey` (0: any).
SummaryLookup lookupRankSummary(const std::filesystem::path& cacheDir, const std::string& sourcePath,
                                uint32_t rankIndex = 0, uint64_t optionsKey = 0);

// The rank × step table (rankStepsAnalysis, core/analysis/rank_steps.h: same columns, rows and values) from the
// summaries of a run's ranks, given in the loaded run's rank order (by rank number, then source order): start, end,
// dur and idle from each rank's step records; collectives, wait, caused wait and mean start lag by matching the
// step's collective records across ranks with the straggler analysis' key and rule (addMatchedCollective). Each
// summary's rank number is rank.rank. The window, when it lists steps, limits the steps.
Table rankStepsFromSummaries(const std::vector<StoredRankSummary>& ranks, const WindowSpec& window);

}  // namespace strobe::core
