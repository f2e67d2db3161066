#pragma once
// Which collectives overlap each computation kernel (issue 9: "for the top GEMMs, each instance's start time and the
// collectives that overlapped it — does communication slow this GEMM down?").
//
// Per rank: every COMPUTATION kernel (Holistic Trace Analysis' kernel types, as the `overlap` analysis uses them)
// with the COMMUNICATION kernels of the same device (any stream) that run during it, each with the length of their
// intersection, and the kernel's overlapped time: the union of those communication kernels intersected with the
// kernel (two collectives running at once over the same part of the kernel count once). One sweep over the
// intervals sorted by start: O((n + m) log + output), never every pair.
//
// Per sweep configuration (repeats pooled): per kernel group (KernelGrouper) the instances, how many overlap
// communication, their durations with and without overlap and the ratio ("slowdown"), the share of the group's
// time overlapped; per rank the communication/computation overlap of HTA (commCompOverlap, pooled over repeats).

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/context.h"
#include "core/analysis/sweep_compare.h"
#include "core/io/error.h"
#include "core/io/progress.h"
#include "core/model/run_set.h"

namespace strobe::core {

// One communication kernel during a computation kernel.
struct CommOverlap {
    uint32_t row = 0;      // the communication kernel's GpuTable row
    TimeNs overlapNs = 0;  // length of its intersection with the computation kernel (> 0)
};

// One computation kernel instance.
struct KernelOverlap {
    uint32_t row = 0;           // GpuTable row
    TimeNs start = 0, end = 0;  // as the window selected it
    TimeNs overlappedNs = 0;    // |(union of the overlapping communication kernels) ∩ [start, end)|
    uint32_t firstComm = 0;     // its communication kernels: RankKernelOverlap::comms[firstComm, +commCount)
    uint32_t commCount = 0;
    TimeNs dur() const { return end - start; }
};

struct RankKernelOverlap {
    int rank = -1;
    size_t rankIndex = 0;
    const RankData* data = nullptr;
    std::vector<KernelOverlap> kernels;  // every COMPUTATION kernel of the window, in start order
    std::vector<CommOverlap> comms;      // per kernel, its communication kernels in start order
    std::span<const CommOverlap> commsOf(const KernelOverlap& k) const {
        return std::span<const CommOverlap>(comms).subspan(k.firstComm, k.commCount);
    }
};

// The kernels of one rank's window with the communication kernels that overlap them (same device only).
RankKernelOverlap kernelOverlapOf(const RankWindow& w);
// Every rank of `window`.
Result<std::vector<RankKernelOverlap>> kernelOverlap(AnalysisContext& ctx, const WindowSpec& window);

struct KernelOverlapOptions {
    SweepGroupBy groupBy = SweepGroupBy::Name;
    std::string groupRegex;
    // Only computation kernels of this Strobe category (core/model/classification); nullopt: every one.
    std::optional<KernelCategory> category = KernelCategory::Gemm;
    int top = 5;             // the K groups with the most time per step in some configuration (0: all)
    std::string group;       // only this group (then `top` is ignored); empty: the top K
    int skipSteps = 0;       // drop the first N ProfilerSteps of every run (the window is then those steps)
    bool instances = false;  // list every instance of the kept groups
};

// One kernel group in one configuration (its repeats pooled).
struct OverlapGroupRow {
    std::string group;
    std::string config;                              // RunEntry::key()
    std::map<std::string, std::string> parameters;   // of the configuration's first run
    uint64_t instances = 0;
    uint64_t overlappedInstances = 0;                // with overlapped time > 0
    double perStepNs = 0;                            // the group's time / steps (all repeats)
    TimeNs totalNs = 0, overlappedNs = 0;            // sum of durations; sum of overlapped time
    double overlappedShare = 0;                      // overlappedNs / totalNs (0..1)
    // Durations of the instances that overlap communication and of those that do not; absent without any.
    std::optional<double> meanOverlappedNs, medianOverlappedNs, meanAloneNs, medianAloneNs;
    std::optional<double> slowdown;      // medianOverlappedNs / medianAloneNs
    std::optional<double> slowdownMean;  // meanOverlappedNs / meanAloneNs
};

struct OverlapCollective {
    std::string_view name;  // into the run's string pool: valid while the run's dataset lives
    TimeNs overlapNs = 0;
};

struct OverlapInstanceRow {
    std::string group;
    size_t run = 0;  // index into the runs given
    std::string config;
    int rank = -1;
    TimeNs startNs = 0, durNs = 0, overlappedNs = 0;
    std::vector<OverlapCollective> collectives;
};

// HTA's communication/computation overlap of one rank number in one configuration, repeats pooled: 100 x (time
// in both) / (merged communication time), summed over the repeats before dividing.
struct OverlapRankRow {
    std::string config;
    std::map<std::string, std::string> parameters;
    int rank = -1;
    size_t runs = 0;  // repeats with this rank
    TimeNs commNs = 0, compNs = 0, overlapNs = 0;
    std::optional<double> overlapPct;  // absent when the rank has no communication kernel
};

struct SweepKernelOverlap {
    std::vector<std::string> messages;
    std::vector<OverlapGroupRow> groups;  // the kept groups (by time per step, largest first) x configurations
    std::vector<OverlapInstanceRow> instances;  // with KernelOverlapOptions::instances, by run, rank, start
    std::vector<OverlapRankRow> ranks;          // configurations x rank numbers
};

// Runs are pooled by RunEntry::key() (a plot may set configurationKey to a colour axis' value). Null datasets
// are skipped. Returns cancelledError-like Error("cancelled") when `cancel` is set.
Result<SweepKernelOverlap> sweepKernelOverlap(const RunSet& runs, const KernelOverlapOptions& o,
                                              const CancelToken* cancel = nullptr);

// The runs with run i pooled under configuration key keys[i] (a plot's colour axis value; its label past the end).
RunSet pooledBy(RunSet runs, const std::vector<std::string>& keys);

}  // namespace strobe::core
