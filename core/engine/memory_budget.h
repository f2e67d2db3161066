#pragma once
// Memory bounds for loading: a run whose files would need more memory than allowed is refused before any
// parsing starts, with a message naming the file, the estimate and the limit — rather than being killed by the
// OOM killer halfway through.
//
// The estimate per file is its JSON text size (plain files: the file size; gzip: the larger of the ISIZE trailer
// and the compressed size times kGzipMinRatio, because ISIZE is the size modulo 2^32) times kPeakRssPerJsonByte,
// the measured peak RSS per byte of JSON of the chunked loader (bench figures: ~0.26×, rounded up to 0.5 to leave
// room for the merge and the cache write). Files that load at the same time add up: the estimate of a run is the
// sum of its `concurrent` largest files.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/io/error.h"

namespace strobe::core {

class MemoryBudget {
public:
    static constexpr double kPeakRssPerJsonByte = 0.5;
    static constexpr uint64_t kGzipMinRatio = 4;  // trace JSON compresses 8-15×; 4× is a floor for ISIZE wrap
    // What a loaded rank keeps resident per byte of its JSON text (bench: 0.43× the file), rounded up.
    static constexpr double kResidentPerJsonByte = 0.45;

    // limitBytes == 0: defaultLimit(). The environment variable STROBE_MEMORY_LIMIT ("512M", "2G", "1048576")
    // overrides both when it is set and parses.
    explicit MemoryBudget(uint64_t limitBytes = 0);

    uint64_t limit() const { return m_limit; }

    // 75% of the available memory: the least of /proc/meminfo MemAvailable (else sysconf physical pages) and the
    // room left in the process's cgroup (cgroupAvailable: a Slurm task sizes itself to its own allocation).
    static uint64_t defaultLimit();
    // The room left under the memory limits of the process's cgroup (`procCgroup` lists it: v2 "0::/path" →
    // ROOT/path/memory.max - memory.current; v1 "N:memory:/path" → ROOT/memory/path/memory.limit_in_bytes -
    // memory.usage_in_bytes) and of the cgroup root as mounted (ROOT, ROOT/memory); the least of those that set a
    // limit, 0 when none does.
    static uint64_t cgroupAvailable(const std::string& root = "/sys/fs/cgroup",
                                    const std::string& procCgroup = "/proc/self/cgroup");
    // "512M", "2G", "1.5g", "100k", "12345" (bytes); 0 when the text does not parse.
    static uint64_t parseSize(const std::string& text);
    // "1.5 GiB"
    static std::string formatSize(uint64_t bytes);

    // Estimated decompressed JSON size of one file (Error if it cannot be stat'ed).
    static Result<uint64_t> jsonSizeOf(const std::string& path);
    // Estimated peak memory to load one file.
    static Result<uint64_t> estimateFile(const std::string& path);

    // Refuses (Error naming the largest file, the estimate and the limit) when the `concurrent` largest files'
    // estimates add up to more than the limit. Files that cannot be stat'ed are left to the loader to report.
    Status check(const std::vector<std::string>& files, size_t concurrent) const;
    // The estimated peak of loading `files` with `concurrent` at a time: the sum of the `concurrent` largest
    // estimates (what a run reserves from the JobRunner's memory gate before it loads).
    static uint64_t estimateRun(const std::vector<std::string>& files, size_t concurrent);
    // What the run's events would occupy once every file is loaded (the sum of their JSON sizes times
    // kResidentPerJsonByte): whether a converted run opens summary-first (core/engine/load_job.h).
    static uint64_t estimateResident(const std::vector<std::string>& files);

private:
    // (estimate, file index) of the files that can be stat'ed, largest first.
    static std::vector<std::pair<uint64_t, size_t>> largestFirst(const std::vector<std::string>& files);
    uint64_t m_limit = 0;
};

}  // namespace strobe::core
