#pragma once
// Sweep comparison (issues 9, 21): per configuration of a sweep, the step time, the GPU's busy and idle time per
// step and, per kernel group, its GPU kernel time per profiled step with its spread over steps; against a baseline
// configuration, the change of each one's median per step (ms and %) with a bootstrap confidence interval,
// Holm-corrected across every comparison of the sweep, and only where the sample allows one (kMinRuns/StepsFor...).

#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <unordered_map>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/dataset.h"
#include "core/model/run_set.h"

namespace strobe::core {

// How kernels are grouped: by name; by Strobe category; by the call site that launched them (the outermost CPU
// operator around the launch, e.g. aten::conv2d: the same on every GPU vendor); by normalised name
// (argument list, template arguments, hashes and tile shapes removed: normalizedKernelName); by a regex (the first
// capture group of SweepCompareOptions::groupRegex, else the whole match; kernels it does not match: "(other)").
enum class SweepGroupBy { Name, Category, Op, Normalized, Regex };

// The one parser of a kernel grouping (the plots' "group_by", strobe-cli's --group-by, the Sweep dock):
// name | category | op | normalized | regex:R; "kernel" is another spelling of name (kernel-breakdown's old
// choice, kept so that its session files and --set group_by=kernel keep working). False, with `error` set, on
// anything else or an invalid regex; the message does not name the source (the caller prefixes its flag or key).
bool parseSweepGroupBy(std::string_view text, SweepGroupBy& by, std::string& regex, std::string& error);

// A kernel name with what varies between builds and shapes taken out, so that one kernel family is one group:
// "void ns::gemm<float, 128>(float*, int)" -> "ns::gemm"; "ampere_sgemm_128x64_tn" -> "ampere_sgemm_tn";
// "Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0" -> "Cijk_Ailk_Bljk_HHS_BH_SN_1LDSB0";
// "kernel_0x7f3a9c2e" and "fused_9f86d081884c7d65" (hex hashes of 8 or more digits) lose the hash.
std::string normalizedKernelName(std::string_view name);

// The group of each kernel of a rank under one SweepGroupBy, memoised per name (per launching operator for Op):
// the one grouping every sweep analysis and plot uses. Not thread-safe; one per thread.
class KernelGrouper {
public:
    explicit KernelGrouper(SweepGroupBy by, const std::string& regex = {});
    ~KernelGrouper();
    KernelGrouper(const KernelGrouper&) = delete;
    KernelGrouper& operator=(const KernelGrouper&) = delete;
    // The group of kernel `i` of `rank` (its GpuTable row). The reference lives as long as the grouper.
    const std::string& of(const RankData& rank, size_t i);

private:
    struct Key {
        const RankData* rank;
        uint32_t id;
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        size_t operator()(const Key& k) const;
    };
    SweepGroupBy m_by;
    std::optional<std::regex> m_re;
    std::unordered_map<Key, std::string, KeyHash> m_cache;
};

// How --top ranks groups: by their largest |change| against the baseline in time per step (|delta_ms|, the one
// ranking every view of a sweep uses; auto with a baseline); by their largest time per step over the configurations
// (auto without a baseline); by their spread across configurations (the standard deviation of the configurations'
// time per step: the groups the sweep's parameters move most). --top only trims what is shown: every comparison is
// resampled and each family's Holm correction (step time; GPU rows; groups) counts all of its comparisons,
// whatever is kept.
enum class SweepRankBy { Auto, Time, Delta, Variance };
bool parseSweepRankBy(std::string_view text, SweepRankBy& by);

struct SweepCompareOptions {
    SweepGroupBy groupBy = SweepGroupBy::Name;
    std::string groupRegex;  // SweepGroupBy::Regex (ECMAScript)
    // "" (no deltas), a run label or path (every configuration vs that run's configuration), or KEY=VALUE (each
    // configuration vs the one that differs from it only in KEY, where KEY has VALUE).
    std::string baseline;
    int skipSteps = 0;   // drop the first N ProfilerSteps of every run
    int top = 0;         // keep the top K groups by rankBy (0: all)
    SweepRankBy rankBy = SweepRankBy::Auto;
    uint64_t seed = 20261125;
    int resamples = 4000;
    double confidence = 0.95;
};

// The configurations of `runs` (RunEntry::key()) in axis order: by each axis in name order, its values numerically
// when all of them are numbers, else as text; a configuration without an axis after those with it; ties in the order
// the runs come.
std::vector<std::string> sweepConfigurationOrder(const RunSet& runs);
// The default baseline of every sweep view (README "Comparing runs"; strobe-cli sweep compare and report, the Sweep
// dock): the first configuration in axis order, named by its first run's path (its label without a path); "" with
// fewer than two configurations.
std::string defaultSweepBaseline(const RunSet& runs);

// An interval needs a noise estimate: at least kMinRunsForInterval runs or kMinStepsForInterval kept steps in the
// configuration and in its baseline; below both, the row has no interval and is never significant (n/a + reason).
inline constexpr size_t kMinRunsForInterval = 2;
inline constexpr size_t kMinStepsForInterval = 5;

// What a row measures per kept step: the step itself (the ProfilerStep#N span: the latest end minus the earliest
// start over the run's ranks), the GPU (busy: the union of kernel, memcpy and memset intervals per GPU, summed over
// GPUs; idle: GPUs x step time - busy; kernels, memcpy, memset: their summed durations; GPU time is kernels +
// memcpy + memset), or one kernel group (CPU operator in runs without GPU activity).
enum class SweepRowKind { Step, Gpu, Group };
std::string_view toString(SweepRowKind kind);  // "step", "gpu", "group"

struct SweepCompareRow {
    SweepRowKind kind = SweepRowKind::Group;
    std::string group;                                // "step" for Step rows; busy/idle/kernels/memcpy/memset for Gpu
    std::string config;                               // configuration key (RunEntry::key)
    std::map<std::string, std::string> parameters;   // axis -> value text
    size_t runs = 0;                                  // runs of the configuration with kept steps
    size_t steps = 0;                                 // kept steps over those runs
    uint64_t count = 0;                               // kernels of the group in the kept steps, all repeats
    double perStepNs = 0;                             // sum of their time / number of kept steps (all repeats)
    double meanNs = 0, medianNs = 0, p5Ns = 0, p95Ns = 0, stddevNs = 0, cv = 0;  // over per-step times
    std::vector<double> stepsNs;                      // those per-step times (kept steps of every repeat), sorted
    double spreadNs = 0;  // the group's standard deviation of perStepNs across configurations (0 where absent)
    // Against the baseline configuration: the change of the median time per step (ns, and in % of the baseline's
    // median), and its bootstrap interval, Holm-corrected within its family (step time, GPU or groups) over the sweep.
    std::optional<double> deltaNs, ciLowNs, ciHighNs;
    std::optional<double> deltaPct, ciLowPct, ciHighPct;
    bool significant = false;
    std::optional<double> p;       // the bootstrap's two-sided p-value (uncorrected), with an interval
    double ciLevel = 0;            // the two-sided level of the interval (Holm: alpha / (m - rank)), with one
    std::string resampled;  // "runs" (then the steps within each) or "steps"; "" without an interval
    std::string reason;     // why there is no change or no interval ("baseline", "n/a: ..."); "" otherwise
};

// Per configuration, the peak allocated device memory per kept step (memory-timeline: Kineto [memory] events or
// rocprofv3 allocations, GPU devices only): per step of a run, the largest memoryPeakPerStep over its ranks and GPUs
// (the most loaded device); over the configuration's kept steps of every repeat. Only configurations whose runs
// have memory events have a row.
struct SweepMemoryRow {
    std::string config;
    std::map<std::string, std::string> parameters;
    size_t runs = 0, steps = 0;
    std::vector<double> stepsBytes;  // the per-step peaks, sorted
    double medianBytes = 0, maxBytes = 0;
};

struct SweepComparison {
    std::optional<std::string> method;  // how the CI was computed; absent without a baseline
    std::optional<double> confidence;
    std::optional<std::string> baseline;
    std::string baselineConfig;         // the baseline's configuration key, when one baseline serves all
    bool gpuActivity = true;            // false: no run has GPU activity; groups are CPU operators
    std::vector<std::string> messages;
    std::vector<SweepCompareRow> stepRows;  // one per configuration: step time
    std::vector<SweepCompareRow> gpuRows;   // per configuration: busy, idle, kernels, memcpy, memset
    std::vector<SweepCompareRow> rows;      // kernel groups (CPU operators without GPU activity), ranked
    std::vector<SweepMemoryRow> memoryRows; // per configuration with memory events: peak allocated per step
};

// "axis=value, axis=value" (axes in name order, `separator` between them): the parameters shown to a reader; ""
// without parameters. The key runs are pooled by is core::configurationKey (RunEntry::key).
std::string parametersText(const std::map<std::string, std::string>& parameters, std::string_view separator = ", ");
std::string parametersText(const RunParameters& parameters, std::string_view separator = ", ");

// Runs are pooled into configurations by RunEntry::key(); runs without a dataset are left out.
SweepComparison compareSweep(const RunSet& runs, const SweepCompareOptions& options);

}  // namespace strobe::core
