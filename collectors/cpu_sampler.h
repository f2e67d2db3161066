#pragma once
// The CPU/memory sampler (a sidecar of profiling sessions): per-core and whole-machine CPU utilisation from
// /proc/stat and memory from /proc/meminfo, written as Strobe's sampler CSV (DESIGN.md "Samplers";
// core/formats/strobe_sampler_csv.h reads it):
//   t_realtime_ns,t_monotonic_ns,t_boottime_ns,cpu.util_pct,cpu0.util_pct,...,cpuN.util_pct,mem_used_mib,mem_total_mib
// One row per interval, flushed as it is written, so a crash keeps every sample taken so far. Utilisation is the
// busy share of the jiffies that passed since the previous reading (busy = all but idle and iowait).

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/error.h"

namespace strobe::collectors {

// Jiffies of one /proc/stat "cpu" line: busy (user nice system irq softirq steal) and total (busy + idle + iowait).
struct CpuJiffies {
    uint64_t busy = 0, total = 0;
};
struct ProcStat {
    CpuJiffies all;                // the "cpu" line
    std::vector<CpuJiffies> cores;  // "cpu0", "cpu1", ... by number (a missing (offline) core: zeros)
};
std::optional<ProcStat> parseProcStat(std::string_view text);
// 100 × busy share between two readings; nullopt when no jiffy passed.
std::optional<double> utilisationPct(const CpuJiffies& before, const CpuJiffies& after);

struct MemInfo {
    uint64_t totalKiB = 0, availableKiB = 0;
};
std::optional<MemInfo> parseMeminfo(std::string_view text);

struct CpuSamplerOptions {
    std::string outPath;
    double rateHz = 10;
    double durationS = 0;  // 0: until stopped
};

// Samples until `stop` is set (or the duration passes); writes the header at once. An Error names the output
// file when it cannot be written, or /proc/stat when it cannot be read.
core::Status runCpuSampler(const CpuSamplerOptions& options, const std::atomic<bool>& stop);

}  // namespace strobe::collectors
