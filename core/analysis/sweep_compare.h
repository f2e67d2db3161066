#pragma once
// Sweep comparison (issue 9): per kernel group and per configuration of a sweep, the group's GPU kernel time per
// profiled step, its spread over steps, and the change against a baseline configuration with a bootstrap
// confidence interval, Holm-corrected across all groups x configurations.

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

// How --top ranks groups: by their largest time per step over the configurations; by their largest |delta| against
// the baseline (only the top K groups are resampled; their intervals are Bonferroni-corrected over every testable
// comparison, so keeping K does not shrink the correction); by their spread across configurations (the standard deviation of the configurations' time per
// step: the groups the sweep's parameters move most). Auto: delta with a baseline, else time.
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

struct SweepCompareRow {
    std::string group;
    std::string config;                               // configuration key (RunEntry::key)
    std::map<std::string, std::string> parameters;   // axis -> value text
    uint64_t count = 0;                               // kernels of the group in the kept steps, all repeats
    double perStepNs = 0;                             // sum of their time / number of kept steps (all repeats)
    double meanNs = 0, medianNs = 0, p5Ns = 0, p95Ns = 0, stddevNs = 0, cv = 0;  // over per-step times
    std::vector<double> stepsNs;                      // those per-step times (kept steps of every repeat), sorted
    double spreadNs = 0;  // the group's standard deviation of perStepNs across configurations (0 where absent)
    std::optional<double> deltaPct, ciLowPct, ciHighPct;  // vs the baseline configuration; CI Holm-corrected
    bool significant = false;
};

struct SweepComparison {
    std::optional<std::string> method;  // how the CI was computed; absent without a baseline
    std::optional<double> confidence;
    std::optional<std::string> baseline;
    std::vector<std::string> messages;
    std::vector<SweepCompareRow> rows;
};

// "axis=value, axis=value" (axes in name order, `separator` between them): the parameters shown to a reader; ""
// without parameters. The key runs are pooled by is core::configurationKey (RunEntry::key).
std::string parametersText(const std::map<std::string, std::string>& parameters, std::string_view separator = ", ");
std::string parametersText(const RunParameters& parameters, std::string_view separator = ", ");

// Runs are pooled into configurations by RunEntry::key(); runs without a dataset are left out.
SweepComparison compareSweep(const RunSet& runs, const SweepCompareOptions& options);

}  // namespace strobe::core
