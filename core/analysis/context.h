#pragma once
// AnalysisContext: what the analyses share for one loaded run. Per rank and window it selects the GPU
// activities once (kernel, gpu_memcpy, gpu_memset), sorts them, classifies them by Holistic Trace Analysis'
// kernel types and merges their intervals (all activities, and each type apart); the next analysis on the
// same window reuses that work.
//
// One context per loaded dataset is kept with it (AnalysisContext::of): every plot preparation, CLI analysis and
// view on that dataset shares its caches, and it is freed with the dataset. Thread-safe for concurrent analyses
// (two views preparing at once): every cache entry — a window's selection, a rank's steps, runtime links, kernel
// types — is computed once (std::call_once), by the first thread that needs it, while others asking for the same
// entry wait for it and those asking for other entries go on in parallel. Entries are immutable once built.

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/error.h"
#include "core/model/dataset.h"

namespace strobe::core {

// Holistic Trace Analysis' kernel types (see htaKernelType for the rules).
enum class HtaType : uint8_t { Computation = 0, Communication = 1, Memory = 2, Other = 3, Count = 4 };
std::string_view toString(HtaType t);  // "COMPUTATION", "COMMUNICATION", "MEMORY", "OTHER"

// HTA's rules, in this order: COMMUNICATION if the name starts with nccl, hip or hccl or contains ncclKernel;
// MEMORY if it starts with Memcpy, hipMemcpy, Memset, hipMemset or dma; COMPUTATION unless it starts with nccl,
// hip, hccl, runFunction or "Stream Wait Event", starts with "cuda" followed later by LaunchKernel, or contains
// Memcpy, Memset, dma or Sync; else OTHER. (Python re.match semantics: anchored at the start of the name.)
HtaType htaKernelType(std::string_view name);

struct Interval {
    TimeNs start = 0;
    TimeNs end = 0;
};

// Merges intervals given in start order the way HTA does: a new group begins when a start is strictly after
// the largest end seen so far; a group spans its smallest start to its largest end.
std::vector<Interval> mergeSortedIntervals(std::span<const Interval> sortedByStart);
TimeNs totalLength(std::span<const Interval> merged);
// Length of the intersection of two merged (disjoint, sorted) interval lists.
TimeNs intersectionLength(std::span<const Interval> a, std::span<const Interval> b);

// --window values: all, steps, hta, hta-include-last, auto, FROM_NS:TO_NS; or a step list (--steps 3,4,5).
enum class WindowKind : uint8_t { All, Steps, Hta, HtaIncludeLast, Auto, Range, StepList };

struct WindowSpec {
    WindowKind kind = WindowKind::All;
    TimeNs from = 0;  // Range: [from, to)
    TimeNs to = 0;
    std::vector<int64_t> steps;  // StepList

    // `window` as given to --window; `steps` as given to --steps (either may be empty; --steps wins).
    static Result<WindowSpec> parse(std::string_view window, std::string_view steps = {});
    static WindowSpec stepList(std::vector<int64_t> steps);
    std::string toString() const;  // canonical text, also the cache key
};

struct StepSpan {
    int64_t number = -1;
    TimeNs start = 0;
    TimeNs end = 0;
    int32_t slice = -1;
};

// The GPU activities of one rank selected by a window, sorted by (start, end).
struct RankWindow {
    int rank = -1;              // RankData::rank (index in the dataset when unknown)
    size_t rankIndex = 0;       // index in Dataset::ranks
    const RankData* data = nullptr;
    std::vector<uint32_t> row;      // GpuTable rows
    std::vector<TimeNs> start;      // start/end used by the analyses (HTA windows: HTA's µs rounding, see .cpp)
    std::vector<TimeNs> end;
    std::vector<HtaType> type;
    std::vector<int32_t> runtime;   // launching runtime/driver slice, -1 when none
    bool htaRounded = false;        // times were rounded to whole µs as HTA does
    TimeNs clipFrom = INT64_MIN;    // Range windows clip activities to [clipFrom, clipTo)
    TimeNs clipTo = INT64_MAX;

    std::vector<Interval> mergedAll;                                  // union of every activity
    std::vector<Interval> mergedByType[static_cast<size_t>(HtaType::Count)];  // union per HTA type

    size_t size() const { return row.size(); }
    bool empty() const { return row.empty(); }
    const std::vector<Interval>& merged(HtaType t) const { return mergedByType[static_cast<size_t>(t)]; }
    // Slice start of the launching call (HTA windows: rounded up to whole µs as HTA does), or INT64_MIN.
    TimeNs runtimeStart(size_t i) const;
};

struct WindowSelection {
    WindowSpec spec;                  // as resolved (auto → the chosen step list)
    std::string description;          // for output: "hta", "steps 3,4,5 (auto)", ...
    std::vector<RankWindow> ranks;    // one per dataset rank, same order
    std::vector<std::string> messages;
    bool htaFiltered = false;         // hta windows: the run has ≥ 2 ProfilerStep names, so HTA's filter applies
};
using WindowSelectionPtr = std::shared_ptr<const WindowSelection>;

class AnalysisContext {
public:
    // A context of its own (not shared): tests, one-off analyses. It keeps `dataset` alive.
    explicit AnalysisContext(DatasetPtr dataset);
    ~AnalysisContext();
    AnalysisContext(const AnalysisContext&) = delete;
    AnalysisContext& operator=(const AnalysisContext&) = delete;

    // The context kept with `dataset`: made on first use, then the same one for every caller; it lives as long
    // as the dataset (the pointer returned shares the dataset's ownership). Null for a null dataset.
    static std::shared_ptr<AnalysisContext> of(const DatasetPtr& dataset);

    const Dataset& dataset() const { return *m_data; }
    size_t rankCount() const { return m_data->ranks.size(); }
    int rankNumber(size_t rankIndex) const;

    // The selection for `spec` (built once, then shared). Errors: a malformed spec, auto without steps is not
    // an error (falls back to all, with a message).
    Result<WindowSelectionPtr> select(const WindowSpec& spec);

    // ProfilerStep#N spans of a rank: the merge's StepTable, else found from the CPU-side slices.
    const std::vector<StepSpan>& steps(size_t rankIndex);
    // Launching runtime/driver slice per GpuTable row: the merge's column, else matched by correlation here.
    const std::vector<int32_t>& runtimeOf(size_t rankIndex);
    // HTA type per string id of the rank's pool (classified once per distinct name).
    const std::vector<HtaType>& htaTypeByName(size_t rankIndex);

    // Per string id of the rank's pool: 1 when the name contains "ProfilerStep" (HTA's test), else 0.
    const std::vector<uint8_t>& stepNameIds(size_t rankIndex);

    // Diagnostics (tests, benchmarks): how many window selections this context has built.
    uint64_t selectionsBuilt() const;

private:
    struct Shared {};  // tag: the context kept by the dataset (does not own it)
    AnalysisContext(Shared, const Dataset* dataset);

    struct RankCache {
        std::once_flag stepsOnce, runtimeOnce, typesOnce, stepNamesOnce;
        std::vector<uint8_t> stepNames;
        std::vector<StepSpan> steps;
        std::vector<int32_t> runtime;
        std::vector<HtaType> types;
    };
    struct SelectionEntry {
        std::once_flag once;
        std::optional<Result<WindowSelectionPtr>> result;
    };
    Result<WindowSelectionPtr> build(const WindowSpec& spec);
    void buildRank(WindowSelection& sel, size_t rankIndex, const WindowSpec& spec, bool htaFilter,
                   bool htaIncludeLast);

    DatasetPtr m_owned;            // set for a context of its own; the shared one is owned by its dataset
    const Dataset* m_data = nullptr;
    std::unique_ptr<RankCache[]> m_ranks;  // one per rank, made at construction (once_flags do not move)
    mutable std::mutex m_mutex;    // guards m_selections and m_lru only (never held while computing)
    std::map<std::string, std::shared_ptr<SelectionEntry>> m_selections;
    std::list<std::string> m_lru;  // selection keys, most recent first (a few are kept: see kMaxSelections)
    uint64_t m_selectionsBuilt = 0;
};

// Small statistics shared by the analyses.
namespace stats {
// Linear interpolation between closest ranks (numpy's default); `sorted` ascending, q in [0, 1].
double quantile(std::span<const double> sorted, double q);
double quantile(std::span<const TimeNs> sorted, double q);
double mean(std::span<const TimeNs> v);
// Quantiles of an unsorted vector (reordered in place), by selection: O(n) per quantile; same values as
// sorting then quantile().
std::vector<double> quantilesUnsorted(std::vector<TimeNs>& v, std::span<const double> qs);
// Sample standard deviation (n − 1 in the denominator, as pandas); 0 for fewer than two values.
double stddev(std::span<const TimeNs> v);
}  // namespace stats

}  // namespace strobe::core
