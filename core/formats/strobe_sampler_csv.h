#pragma once
// Strobe's own sampler CSV (DESIGN.md "Samplers"; written by the collectors, flushed per sample):
//   t_realtime_ns,t_monotonic_ns,t_boottime_ns,<metric columns...>
// The three clocks are read together for each sample. Metric columns use Strobe's names
// (core/formats/telemetry_metrics.h): "power_w" is a host-wide metric (device -1) unless a `device` column gives
// the GPU of the row (one row per device and sample); "gpu<N>.<metric>" is metric <metric> of GPU N; any other
// column name ("cpu3.util_pct") is kept as the metric name, host-wide. Empty cells are skipped and counted.
//
// Rank: one rank holding every sample. Clock: CLOCK_REALTIME ns (anchored, offset 0); the first row's three clock
// readings are kept as the source's clock anchors (telemetry::clockAnchorsOf / offsetToRealtime), so that a source
// on CLOCK_BOOTTIME (rocprof) or CLOCK_MONOTONIC recorded on the same host can be placed on realtime. Samples whose
// t_realtime_ns is empty or not an integer are errors (the row is named).

#include <memory>
#include <string>
#include <string_view>

#include "core/formats/source_format.h"

namespace strobe::core {

extern const SourceFormat kStrobeSamplerCsvFormat;  // id "strobe-sampler-csv"

int sniffStrobeSamplerCsv(const SniffInput& in);
Result<std::unique_ptr<RankData>> parseStrobeSamplerCsv(std::string_view text, const std::string& path,
                                                        const SourceLoadOptions& options);

}  // namespace strobe::core
