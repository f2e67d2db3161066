#pragma once
// rocBLAS's profile log (ROCBLAS_LAYER with bit 4 set, written to ROCBLAS_LOG_PROFILE_PATH, or ROCBLAS_LOG_PATH, else
// stderr): one YAML flow mapping per line and per distinct call,
//   - {rocblas_function: rocblas_gemm_ex, transA: T, transB: N, M: 1024, N: 26656, K: 4096, alpha: 1.0, ...,
//      call_count: 6}
// the function, its performance-critical arguments and how many times it was called with them (call_count; the
// bench-list form of the same lines, as rocBLAS's scripts/performance files hold them, says iters instead).
// Each line becomes one slice (kind Unknown, category "rocblas", name = rocblas_function) whose args are the line's
// keys in order (numbers as numbers, the rest as strings) plus "count": the table of calls that the workbench's
// kernel table, tooltips and CSV export show. The log holds no times: the slices are laid end to end, 1 µs each, in
// file order on one track, ClockDomain::Relative, and an Info diagnostic says so. Other lines (trace or bench
// logging, the workload's own output when the log went to stderr) are skipped and counted.

#include <memory>
#include <string>
#include <string_view>

#include "core/formats/source_format.h"

namespace strobe::core {

extern const SourceFormat kRocblasLogFormat;  // id "rocblas-log"

int sniffRocblasLog(const SniffInput& in);
Result<std::unique_ptr<RankData>> parseRocblasLog(std::string_view text, const std::string& path,
                                                  const SourceLoadOptions& options);

}  // namespace strobe::core
