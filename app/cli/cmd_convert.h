#pragma once
// strobe-cli convert (issue 29): the parts its local and Slurm runs share, exposed for tests.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/engine/converted_run.h"
#include "core/engine/load_cache.h"
#include "core/engine/rank_summary.h"
#include "core/io/error.h"
#include "core/model/dataset.h"

namespace strobe::app {

enum class ConvertStatus : uint8_t { Converted = 0, Skipped = 1, Failed = 2 };
std::string_view toString(ConvertStatus s);  // "converted", "skipped", "failed"

// One source to convert: its rank as far as the file name says (else its place in the run), replaced by the
// loaded rank's number once it has loaded.
struct ConvertItem {
    int rank = -1;
    std::string path;
};

struct ConvertOutcome {
    int rank = -1;
    std::string path;
    ConvertStatus status = ConvertStatus::Failed;
    std::string reason;  // why it failed ("" otherwise)
};

std::vector<ConvertItem> convertItems(const std::vector<std::string>& sources);

// The per-rank status file in the cache directory (`<entry>.strobe-convert`: lines "key<TAB>value" for rank,
// path, status, reason and job, the Slurm array job it was written in: $SLURM_ARRAY_JOB_ID, "" outside one).
// Written by whoever converts the rank (an array task too), read by the submitter: sacct is not available and
// scontrol forgets finished tasks.
std::filesystem::path convertStatusPath(const std::filesystem::path& dir, const std::string& source);
void writeConvertStatus(const std::filesystem::path& dir, const ConvertOutcome& o);
std::optional<ConvertOutcome> readConvertStatus(const std::filesystem::path& dir, const std::string& source,
                                                std::string* job = nullptr);

// Prints the outcomes (text, or --json) and failures to stderr; the exit code: 0 none failed, 1 some, 3 all.
int reportConvert(const std::vector<ConvertOutcome>& outcomes, bool json);

struct SlurmConvertOptions {
    std::filesystem::path cacheDir;        // absolute
    std::vector<std::string> slurmArgs;    // --slurm-arg values
    size_t ranksPerTask = 0;               // 0: defaultRanksPerTask over the CPUs sinfo reports
    int jobs = 0;                          // --jobs inside each task
    uint64_t optionsKey = 0;
};

// Converts `items` as one Slurm array job (one task per group of ranksPerTask ranks that is not current), waits
// for it (the status files, and squeue until the job has left the queue) and answers one outcome per item; an
// Error when the job could not be submitted.
core::Result<std::vector<ConvertOutcome>> convertThroughSlurm(const std::vector<ConvertItem>& items,
                                                              const SlurmConvertOptions& options);
// The default --ranks-per-task of `convert --slurm` (each array task start waits for a scheduling pass, about 1-3 s
// on a one-node cluster, so the tasks are as few as keep every CPU busy): the ranks spread evenly over `cpus` tasks,
// at least kMinRanksPerTask a task; kMinRanksPerTask when `cpus` is 0 (not known).
inline constexpr size_t kMinRanksPerTask = 8;
size_t defaultRanksPerTask(size_t ranks, size_t cpus);
// The CPUs a partition can start tasks on now, from `sinfo --noheader --format='%P %C'` (lines "NAME[*] A/I/O/T"):
// its idle CPUs, or all of them when none is idle; `partitions` is a comma-separated list (summed), "" the default
// partition (the one marked '*'). 0 when none of them is listed.
size_t partitionCpus(const std::string& sinfoOut, const std::string& partitions);
// Whether `source` has a current cache entry and summary in `dir` (then `rank` receives the summary's rank).
bool convertIsCurrent(const std::filesystem::path& dir, const std::string& source, uint64_t optionsKey, int& rank);

// The shared reading of a converted run (core/engine/converted_run.h).
using core::convertOptionsKey;
using core::readSourceSummaries;
using core::SummaryPlan;
using core::writeSourceSummaries;
// core::planFromSummaries, its warnings printed to stderr as "strobe-cli COMMAND: warning: ...".
std::optional<SummaryPlan> planFromSummaries(const std::vector<std::string>& paths, const std::filesystem::path& cacheDir,
                                             std::string_view command);

}  // namespace strobe::app
