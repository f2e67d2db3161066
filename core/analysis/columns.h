#pragma once
// The column names of every analysis table, declared once. Analyses build their tables from these lists and
// plots read cells through these constants (Table::at(row, col::kIdleNs)), so a misspelled column is a compile
// error rather than a column of nulls drawn as zeros. The names themselves are the stable CSV/JSON column names.

#include <string>
#include <vector>

#include "core/analysis/table.h"

namespace strobe::core {

namespace col {
inline constexpr ColumnKey kRun{"run"};  // added by plots that show several runs
inline constexpr ColumnKey kRank{"rank"};
inline constexpr ColumnKey kWindowNs{"window_ns"};
inline constexpr ColumnKey kIdleNs{"idle_ns"};
inline constexpr ColumnKey kComputeNs{"compute_ns"};
inline constexpr ColumnKey kNonComputeNs{"non_compute_ns"};
inline constexpr ColumnKey kIdlePct{"idle_pct"};
inline constexpr ColumnKey kComputePct{"compute_pct"};
inline constexpr ColumnKey kNonComputePct{"non_compute_pct"};
inline constexpr ColumnKey kActivities{"activities"};
inline constexpr ColumnKey kType{"type"};
inline constexpr ColumnKey kTimeNs{"time_ns"};
inline constexpr ColumnKey kPct{"pct"};
inline constexpr ColumnKey kName{"name"};
inline constexpr ColumnKey kCount{"count"};
inline constexpr ColumnKey kSumNs{"sum_ns"};
inline constexpr ColumnKey kMaxNs{"max_ns"};
inline constexpr ColumnKey kMinNs{"min_ns"};
inline constexpr ColumnKey kMeanNs{"mean_ns"};
inline constexpr ColumnKey kStddevNs{"stddev_ns"};
inline constexpr ColumnKey kCommNs{"comm_ns"};
inline constexpr ColumnKey kCompNs{"comp_ns"};
inline constexpr ColumnKey kOverlapNs{"overlap_ns"};
inline constexpr ColumnKey kOverlapPct{"overlap_pct"};
inline constexpr ColumnKey kStream{"stream"};
inline constexpr ColumnKey kCause{"cause"};
inline constexpr ColumnKey kRatio{"ratio"};
inline constexpr ColumnKey kCollectives{"collectives"};
inline constexpr ColumnKey kWaitNs{"wait_ns"};
inline constexpr ColumnKey kMeanWaitNs{"mean_wait_ns"};
inline constexpr ColumnKey kTimesLast{"times_last"};
inline constexpr ColumnKey kCausedWaitNs{"caused_wait_ns"};
inline constexpr ColumnKey kMeanStartLagNs{"mean_start_lag_ns"};
inline constexpr ColumnKey kRegions{"regions"};
inline constexpr ColumnKey kMeanRegionEndLagNs{"mean_region_end_lag_ns"};
inline constexpr ColumnKey kMaxRegionEndLagNs{"max_region_end_lag_ns"};
inline constexpr ColumnKey kProcessGroup{"process_group"};
inline constexpr ColumnKey kSeq{"seq"};
inline constexpr ColumnKey kRanks{"ranks"};
inline constexpr ColumnKey kStragglerRank{"straggler_rank"};
inline constexpr ColumnKey kMaxWaitNs{"max_wait_ns"};
inline constexpr ColumnKey kTotalWaitNs{"total_wait_ns"};
inline constexpr ColumnKey kStartSpreadNs{"start_spread_ns"};
inline constexpr ColumnKey kOccurrence{"occurrence"};
inline constexpr ColumnKey kSlowestRank{"slowest_rank"};
inline constexpr ColumnKey kEndSpreadNs{"end_spread_ns"};
inline constexpr ColumnKey kMeanDurNs{"mean_dur_ns"};
inline constexpr ColumnKey kCategory{"category"};
inline constexpr ColumnKey kLaunchMeanNs{"launch_mean_ns"};
inline constexpr ColumnKey kLaunchP5Ns{"launch_p5_ns"};
inline constexpr ColumnKey kLaunchP50Ns{"launch_p50_ns"};
inline constexpr ColumnKey kLaunchP95Ns{"launch_p95_ns"};
inline constexpr ColumnKey kLaunchP99Ns{"launch_p99_ns"};
inline constexpr ColumnKey kLaunchMaxNs{"launch_max_ns"};
inline constexpr ColumnKey kPrepCount{"prep_count"};
inline constexpr ColumnKey kPrepMeanNs{"prep_mean_ns"};
inline constexpr ColumnKey kPrepP50Ns{"prep_p50_ns"};
inline constexpr ColumnKey kPrepP95Ns{"prep_p95_ns"};
inline constexpr ColumnKey kQuantilePct{"quantile_pct"};
inline constexpr ColumnKey kLaunchNs{"launch_ns"};
inline constexpr ColumnKey kPhase{"phase"};
inline constexpr ColumnKey kStep{"step"};
inline constexpr ColumnKey kStartNs{"start_ns"};
inline constexpr ColumnKey kEndNs{"end_ns"};
inline constexpr ColumnKey kDurNs{"dur_ns"};
inline constexpr ColumnKey kGpuStartNs{"gpu_start_ns"};
inline constexpr ColumnKey kGpuEndNs{"gpu_end_ns"};
inline constexpr ColumnKey kMinDurNs{"min_dur_ns"};
inline constexpr ColumnKey kMaxDurNs{"max_dur_ns"};
inline constexpr ColumnKey kOutlier{"outlier"};
inline constexpr ColumnKey kKept{"kept"};
inline constexpr ColumnKey kReason{"reason"};
inline constexpr ColumnKey kTotalNs{"total_ns"};
inline constexpr ColumnKey kMedianNs{"median_ns"};
inline constexpr ColumnKey kP5Ns{"p5_ns"};
inline constexpr ColumnKey kP95Ns{"p95_ns"};
inline constexpr ColumnKey kCv{"cv"};
inline constexpr ColumnKey kKind{"kind"};
inline constexpr ColumnKey kDirection{"direction"};
inline constexpr ColumnKey kBytes{"bytes"};
inline constexpr ColumnKey kBandwidthGbps{"bandwidth_gbps"};
inline constexpr ColumnKey kMeanBytes{"mean_bytes"};
}  // namespace col

// Each analysis table's columns, in order.
inline const std::vector<std::string> kTemporalColumns =
    columnNames({col::kRank, col::kWindowNs, col::kIdleNs, col::kComputeNs, col::kNonComputeNs, col::kIdlePct,
                 col::kComputePct, col::kNonComputePct, col::kActivities});
inline const std::vector<std::string> kKernelTypeColumns =
    columnNames({col::kRank, col::kType, col::kTimeNs, col::kPct});
inline const std::vector<std::string> kKernelTypeKernelColumns =
    columnNames({col::kRank, col::kType, col::kName, col::kCount, col::kSumNs, col::kMaxNs, col::kMinNs, col::kMeanNs,
                 col::kStddevNs});
inline const std::vector<std::string> kOverlapColumns =
    columnNames({col::kRank, col::kCommNs, col::kCompNs, col::kOverlapNs, col::kOverlapPct});
inline const std::vector<std::string> kIdleColumns = columnNames(
    {col::kRank, col::kStream, col::kCause, col::kIdleNs, col::kRatio, col::kCount, col::kMeanNs, col::kMaxNs});
inline const std::vector<std::string> kStragglerColumns =
    columnNames({col::kRank, col::kCollectives, col::kWaitNs, col::kMeanWaitNs, col::kTimesLast, col::kCausedWaitNs,
                 col::kMeanStartLagNs, col::kRegions, col::kMeanRegionEndLagNs, col::kMaxRegionEndLagNs});
inline const std::vector<std::string> kStragglerCollectiveColumns =
    columnNames({col::kProcessGroup, col::kSeq, col::kName, col::kRanks, col::kStragglerRank, col::kMaxWaitNs,
                 col::kTotalWaitNs, col::kStartSpreadNs});
inline const std::vector<std::string> kStragglerRegionColumns =
    columnNames({col::kName, col::kOccurrence, col::kRanks, col::kSlowestRank, col::kEndSpreadNs, col::kMeanDurNs});
inline const std::vector<std::string> kLaunchColumns =
    columnNames({col::kRank, col::kCategory, col::kCount, col::kLaunchMeanNs, col::kLaunchP5Ns, col::kLaunchP50Ns,
                 col::kLaunchP95Ns, col::kLaunchP99Ns, col::kLaunchMaxNs, col::kPrepCount, col::kPrepMeanNs,
                 col::kPrepP50Ns, col::kPrepP95Ns});
inline const std::vector<std::string> kLaunchCdfColumns =
    columnNames({col::kRank, col::kCategory, col::kQuantilePct, col::kLaunchNs});
inline const std::vector<std::string> kPhaseColumns = columnNames(
    {col::kRank, col::kPhase, col::kName, col::kStep, col::kStartNs, col::kEndNs, col::kDurNs, col::kCount,
     col::kGpuStartNs, col::kGpuEndNs});
inline const std::vector<std::string> kRankStepColumns =
    columnNames({col::kRank, col::kStep, col::kStartNs, col::kEndNs, col::kDurNs, col::kIdleNs, col::kCollectives,
                 col::kWaitNs, col::kCausedWaitNs, col::kMeanStartLagNs});
inline const std::vector<std::string> kWindowColumns =
    columnNames({col::kStep, col::kStartNs, col::kEndNs, col::kDurNs, col::kMinDurNs, col::kMaxDurNs, col::kRanks,
                 col::kOutlier, col::kKept, col::kReason});
inline const std::vector<std::string> kKernelStatsColumns =
    columnNames({col::kRank, col::kName, col::kCategory, col::kCount, col::kTotalNs, col::kMeanNs, col::kMedianNs,
                 col::kP5Ns, col::kP95Ns, col::kStddevNs, col::kCv, col::kMinNs, col::kMaxNs});
inline const std::vector<std::string> kMemoryColumns =
    columnNames({col::kRank, col::kKind, col::kDirection, col::kCount, col::kBytes, col::kTotalNs, col::kBandwidthGbps,
                 col::kMeanBytes});
inline const std::vector<std::string> kEventColumns =
    columnNames({col::kRank, col::kCategory, col::kCount, col::kDurNs});

}  // namespace strobe::core
