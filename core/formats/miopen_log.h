#pragma once
// MIOpen's driver-command log (MIOPEN_ENABLE_LOGGING_CMD=1; madengine's `miopen_trace`, the miopen-log tool): MIOpen
// writes to stderr (so, under strobe-cli collect, into workload.log among the workload's own output), per call,
//   [host tid ]MIOpen(HIP)[ elapsed][ (date)]: Command [LogCmdConvolution] ./bin/MIOpenDriver conv -n 128 ... -F 1 -t 1
// (the host and thread id with MIOPEN_ENABLE_LOGGING_MPMT; "MIOpen:" without the backend in TheRock's builds; the
// bracket names the logging function: LogCmdConvolution, LogCmdFindConvolution, LogCmdBNorm, LogCmdFusion, ...).
// Each command becomes one slice (category "miopen") named by the driver's sub-command (conv, convfp16, bnorm,
// CBAInfer, pool, softmax ...) and its direction (-F 1/2/4: fwd, bwd, wrw; bnorm's --forw 1/2 and -b 1: fwd train,
// fwd infer, bwd), with " (find)" when the bracket is a Find* function (MIOpen's search, not a run); args: the
// driver's flags by their long names where the driver documents them (conv: batchsize, in_channels, in_h ...;
// bnorm: batchsize, in_channels, in_h, in_w, mode, forw, back, save, run), other flags as written ("-W"), plus
// "logged_by" (the bracket) and "command" (the whole driver command, to re-run it). One track per thread id when the
// lines carry one. MIOPEN_ENABLE_LOGGING's API call records ("MIOpen(HIP): miopenStatus_t miopenConvolutionForward(
// ...){", one line per parameter, "}") and MIOPEN_LOG_LEVEL's Info/Warning lines are counted, not made calls: the
// driver commands are what MIOpen's documentation has users act on (re-run, tune, report). Lines that are not
// MIOpen's are skipped and counted; a command line that cannot be read is a Warning naming its line.

#include <memory>
#include <string>
#include <string_view>

#include "core/formats/source_format.h"

namespace strobe::core {

extern const SourceFormat kMiopenLogFormat;  // id "miopen-log"

int sniffMiopenLog(const SniffInput& in);
Result<std::unique_ptr<RankData>> parseMiopenLog(std::string_view text, const std::string& path,
                                                 const SourceLoadOptions& options);

}  // namespace strobe::core
