#pragma once
// Findings (issue 30): ranked answers to "where did my step go". Each rule turns the result of one or more existing
// analyses (idle, overlap, temporal, launch, straggler, gemm_flops, the window selection's merged intervals) into the
// time it puts at stake per step, the numbers that show it (evidence), the ranks and the time ranges on each rank's
// clock where it happens, and what to try. Nothing here recomputes idle time or overlap a second way.
//
// Window: the ProfilerSteps (WindowSpec "steps": GPU activities launched between the first step's start and the last
// step's end) when any rank has them, else the whole trace. Per rank: S = its number of steps (1 without steps) and
// its step time = the mean ProfilerStep duration (without steps: the temporal analysis' window, first GPU activity
// start to last end). The run's step time is the mean over ranks.
//
// Per rule, each rank's time at stake in the window is divided by S (ns per step); the finding's ms_per_step is the
// mean of that over the ranks (ranks without it count 0), share = ms_per_step ÷ the run's step time, at most 1 (the
// GPU work launched in the steps can run past them; a message then says so). A finding is
// reported when share ≥ 1 % (FindingsOptions::minShare) and the rule's own condition holds; `ranks` lists the
// ranks whose own share is ≥ 1 % (straggler and rank_imbalance: the rank that caused it). Severity by share:
// high ≥ 10 %, medium ≥ 3 %, low below. Findings are not additive: one idle interval can count under several rules
// (a host sync that leaves the GPU idle is also host_wait).
//
// Rules (ids and definitions; findingRules() gives the same text):
//   exposed_comm      communication not overlapped by computation: per rank, merged COMMUNICATION kernel time −
//                     its overlap with merged COMPUTATION time (the overlap analysis, HTA's definition).
//   launch_bound      GPU idle waiting for the CPU: per rank, the idle analysis' host_wait time on the stream with
//                     the most of it; only when at least half of the window's kernels ran shorter than the
//                     runtime call (cudaLaunchKernel, hipLaunchKernel...) that launched them (evidence also gives
//                     the launch analysis' median launch delay).
//   dataloader_stall  GPU idle while the data loader runs: CPU slices whose name contains "DataLoader"
//                     (enumerate(DataLoader)#..., merged), minus the part of them during which any GPU activity ran.
//   host_sync         the CPU blocked on the GPU inside the step: durations of the runtime/driver calls
//                     cuda/hip DeviceSynchronize, StreamSynchronize, EventSynchronize and the blocking cudaMemcpy /
//                     hipMemcpy (not the Async forms) that start in the window (.item() shows up as these calls).
//   pageable_h2d      host-to-device copies from pageable memory: durations of GPU memcpys named
//                     "Memcpy HtoD (Pageable -> Device)" in the window.
//   straggler         the rank the others waited for: the straggler analysis' caused_wait_ns of the rank with the
//                     most, divided by the number of other ranks (what each of them waited on average).
//   gemm_below_peak   GEMMs far below the GPU's peak: GEMM kernel time (Strobe category gemm) − the time the
//                     steps' GEMM FLOPs (gemm_flops: shapes from record_shapes) take at the peak of the GPU for the
//                     data type (arch_constants.yaml); only when the achieved share of peak is < 50 % and both the
//                     shapes and the peak are known.
//   small_elementwise kernels of category elementwise shorter than 10 µs, their total time; only with ≥ 50 of them
//                     per step (fusion removes their launches and memory round trips).
//   rank_imbalance    the temporal analysis' compute time of the busiest rank − the mean over ranks (≥ 2 ranks).
//   inter_step_gaps   GPU idle between consecutive ProfilerSteps: first start of the GPU activities launched in a
//                     step − last end of those launched in the step before, when positive (an activity belongs to
//                     the step whose span holds its launching call's start, or its own start without one). The
//                     ProfilerStep spans tile the loop (torch.profiler closes one step where it opens the next), so
//                     work between steps shows as this idle GPU, not as a gap between the spans.
//
// Critical path: when the run is small enough (FindingsOptions::criticalPathMaxEvents), the strobe critical path of
// the first step of the first rank (every rank) decides `on_critical_path`: true when the path spends at least 1 % of
// its length in the rule's class (exposed_comm: communication; launch_bound: launch_latency; host_sync: sync_wait; gemm_below_peak:
// kernel:gemm; small_elementwise: kernel:elementwise; pageable_h2d: kernel:memcpy; dataloader_stall: cpu_op),
// false when less; null with a reason otherwise (rules without a class, run too big, no step).

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/context.h"
#include "core/io/error.h"

namespace strobe::core {

struct FindingRule {
    const char* id;
    const char* title;
    const char* definition;
    const char* whatToTry;
};
// Every rule, in the order the header lists them.
const std::vector<FindingRule>& findingRules();

struct FindingRange {
    int rank = -1;
    TimeNs start = 0, end = 0;  // on the rank's clock
};

struct Finding {
    std::string rule;
    std::string title;
    std::string definition;
    std::string whatToTry;
    std::string severity;  // high, medium, low
    double msPerStep = 0;
    double share = 0;      // 0–1 of the run's step time
    std::vector<std::pair<std::string, double>> evidence;  // named numbers, in the rule's order
    std::vector<int> ranks;
    std::vector<FindingRange> ranges;
    std::optional<bool> onCriticalPath;
    std::string criticalPathReason;
};

struct FindingsOptions {
    double minShare = 0.01;
    size_t maxRanges = 20;                    // per finding, the longest ones
    bool criticalPath = true;
    size_t criticalPathMaxEvents = 300000;    // slices + GPU activities of the run; above: not computed
};

struct FindingsResult {
    std::string window;     // "steps" or "all"
    double stepMs = 0;      // the run's step time
    int64_t steps = 0;      // steps of the first rank (1 without steps)
    std::vector<Finding> findings;  // ms_per_step descending
    std::vector<std::string> messages;
};

Result<FindingsResult> computeFindings(AnalysisContext& ctx, const FindingsOptions& options = {});

// Severity of a share: "high" (≥ 0.10), "medium" (≥ 0.03), "low".
const char* findingSeverity(double share);

// {"schema": 1, "window": ..., "step_ms": ..., "findings": [{"rule", "severity", "ms_per_step", "share", "evidence",
// "ranks", "ranges", "title", "definition", "what_to_try", "on_critical_path", "critical_path_reason"}],
// "messages": [...]}
std::string findingsJson(const FindingsResult& r);

}  // namespace strobe::core
