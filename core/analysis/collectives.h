#pragma once
// Collectives of a run and of a sweep (issue 9): every communication kernel matched across ranks, its collective
// type, message size, latency, bandwidth and skew, then per configuration x collective type.
//
// Matching (shared with the straggler analysis): every communication kernel (HTA type COMMUNICATION) is keyed by
// (process group, sequence number, kernel name); the process group and sequence come from the kernel's args
// ("Process Group Name", "Seq"/"seq") when the profiler wrote them, else the sequence is the kernel's occurrence
// index among kernels of the same name and group on its rank, in start order (NCCL runs a group's collectives in
// order).
//
// Collective type: the kernel's "Collective name" arg; else its name's classification when that names a collective
// (ncclDevKernel_AllReduce_Sum_f32_RING_LL, ncclKernel_AllGather_RING_LL_Sum_int8_t); else (SendRecv and generic
// kernels) the innermost CPU-side slice of its launch chain that names one (the launching call's enclosing slices,
// then the launching operator's: "nccl:all_to_all", "c10d::alltoall_base_", record_param_comms' "Collective
// name"); else send_recv or other. A SendRecv kernel NCCL runs for an all_to_all is therefore all_to_all.
//
// Message size (bytes, nccl-tests' "size"): from "In msg nelems" / "Out msg nelems" and "dtype" (the kernel's
// args, else the first record_param_comms-like slice of the launch chain that has them): all_gather the output
// (Out msg nelems; In msg nelems x n without it), every other type the input (In, else Out). Else from the
// innermost "nccl:<collective>" annotation of the launch chain: its first input tensor ("Input Dims" product x
// "Input type" size), times n for all_gather (PyTorch records the rank's own chunk there). Unknown otherwise:
// then the bandwidths are null and a message says how many collectives lacked a size. A matched collective takes
// the size seen on its straggler rank, else on the first rank that has one.
//
// n (ranks in the group): the "Group size" arg (kernel, else launch chain); else the size of the process group
// of that name in the trace's distributedInfo.pg_config; else the world size; else the ranks matched.
//
// Latency: the collective's kernel duration on the rank that arrived last (the straggler: the shortest kernel
// among the ranks), i.e. the transfer time without waiting for other ranks; a collective seen on one rank only
// has that rank's duration. algbw = bytes / latency; busbw = algbw x nccl-tests' factor: all_reduce 2(n-1)/n,
// all_gather, reduce_scatter and all_to_all (n-1)/n, broadcast, reduce, send_recv and other 1. Both in GB/s
// (1e9 bytes/s = bytes per ns).
//
// Skew across ranks: start spread = the latest start - the earliest start of the collective's kernels (meaningful
// when the ranks share a clock); wait = a rank's kernel duration - the shortest (the time it waited for the
// others).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/analysis/context.h"
#include "core/analysis/sweep_compare.h"
#include "core/model/types.h"

namespace strobe::core {

// ---- matching across ranks (straggler and collectives) ----

struct CollectiveHit {
    size_t rankPos = 0;  // index into the selection's ranks
    uint32_t row = 0;    // GpuTable row of the kernel on that rank
    TimeNs start = 0, end = 0;
};
using CollectiveKey = std::tuple<std::string, int64_t, std::string>;  // process group, seq, kernel name
std::map<CollectiveKey, std::vector<CollectiveHit>> matchCollectiveKernels(const std::vector<RankWindow>& ranks);

// What each rank accumulates over the collectives matched across ranks (the straggler analysis' per-rank figures).
struct CollectiveWaitTotals {
    int64_t collectives = 0, timesLast = 0;
    TimeNs wait = 0, caused = 0;
    long double startLag = 0;  // sum of start − the collective's earliest start
    double meanStartLagNs() const { return static_cast<double>(startLag / static_cast<long double>(collectives)); }
};
struct MatchedCollective {
    size_t last = 0;  // index into the hits of the kernel that arrived last (the shortest; the first on a tie)
    TimeNs maxWait = 0, totalWait = 0, startSpread = 0;
};
// The rule for one collective seen on two ranks or more (hits in rank order, as matchCollectiveKernels gives
// them): each kernel waited its duration − the shortest; the shortest kernel's rank arrived last and is charged the
// others' waits. Adds every hit to totals[hit.rankPos] (sized to the ranks).
MatchedCollective addMatchedCollective(const std::vector<CollectiveHit>& hits, std::vector<CollectiveWaitTotals>& totals);

// Value of `"key": value` in an args JSON object text (string or number, as written), "" when absent.
std::string argValue(std::string_view json, std::string_view key);

// ---- one run ----

// nccl-tests' bus bandwidth factor of a collective over n ranks (1 for n <= 1 and for types without one).
double busBandwidthFactor(Collective type, int n);
// Bytes of one element of a Kineto "dtype" ("Float", "BFloat16", "Long") or "Input type" ("float", "c10::Half",
// "long int", "signed char"); 0 when unknown.
int dtypeBytes(std::string_view dtype);

struct CollectiveRankTime {
    int rank = -1;
    TimeNs start = 0, dur = 0;
    TimeNs computeOverlapNs = 0;  // time of this kernel during which compute kernels ran on the rank
};

struct CollectiveInstance {
    Collective type = Collective::Other;
    std::string processGroup;
    int64_t seq = 0;
    std::string kernel;
    int64_t step = -1;                  // ProfilerStep number of the first rank's kernel, -1 outside steps
    int groupSize = 1;                  // n
    std::optional<int64_t> bytes;
    TimeNs latencyNs = 0;               // shortest kernel among the ranks
    TimeNs startSpreadNs = 0;
    size_t straggler = 0;               // index into `ranks`
    std::vector<CollectiveRankTime> ranks;  // one per rank it was matched on, rank order
};

struct RunCollectives {
    std::vector<CollectiveInstance> instances;  // in (process group, seq, kernel) order
    std::vector<std::string> messages;
};

// The type and message size of one communication kernel of rank `r` (GpuTable row), as runCollectives gives them
// for a collective seen on that rank alone in process group `processGroup`.
void describeCollectiveKernel(const RankData& r, uint32_t row, const std::string& processGroup, Collective& type,
                              std::optional<int64_t>& bytes);

// Every collective of a dataset (the whole trace); with skipSteps > 0 only those whose first rank's kernel lies
// in a ProfilerStep after the first `skipSteps` step numbers (runs without steps keep everything).
RunCollectives runCollectives(const DatasetPtr& dataset, int skipSteps = 0);

// ---- a sweep ----

struct CollectiveSweepRow {
    std::string config;                              // configuration key
    std::map<std::string, std::string> parameters;   // axis -> value text
    std::string collective;                          // all_reduce, all_gather, ... (toString(Collective))
    uint64_t count = 0;                              // collectives, all repeats
    uint64_t sized = 0;                              // of which with a known size
    std::optional<double> bytes;                     // mean message size of the sized ones
    double latencyMeanNs = 0, latencyP50Ns = 0, latencyP99Ns = 0;
    // Sum of bytes / sum of latency over the sized collectives; busbw weights each by its factor.
    std::optional<double> algbwGbps, busbwGbps;
    double startSkewP50Ns = 0, startSkewMaxNs = 0;   // over the collectives' start spreads
    double waitMeanNs = 0;                           // over every rank of every collective
    std::vector<double> latenciesNs;                 // every collective's latency, sorted
    // Compute overlap of the straggler's kernels and of the other ranks' kernels (ns overlapped, ns of kernel).
    double stragglerOverlapNs = 0, stragglerKernelNs = 0, othersOverlapNs = 0, othersKernelNs = 0;
};

struct CollectiveSweep {
    std::vector<std::string> messages;
    std::vector<CollectiveSweepRow> rows;  // configurations in run order, types in Collective order
};

// Per configuration (repeats pooled) x collective type.
CollectiveSweep collectivesBySweep(const RunSet& runs, int skipSteps = 0);

}  // namespace strobe::core
