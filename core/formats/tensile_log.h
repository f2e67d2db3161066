#pragma once
// Tensile's kernel-selection log (TENSILE_DB bit 0x8000; madengine's `tensile_trace`, the tensile-log tool): Tensile
// prints to stdout (so, under strobe-cli collect, into workload.log among the workload's own output), per solved
// problem,
//   Running kernel: Cijk_Ailk_Bljk_SB_MT064x032x32_...
// (ContractionSolution::solve). With bit 0x40 each launch also prints "Kernel <name>", its launch sizes and its
// arguments, one per line, "[first..last] name: <bytes in hex> (<value>)" (KernelArguments.cpp); the problem sizes
// are the arguments size_0, size_1 ... (for a GEMM Cijk kernel: the free indices I and J, the batch K, the
// summation L).
// Each "Running kernel:" line becomes one slice (category "tensile", name = the kernel); args: "kernel", and the
// size_* arguments of the "Kernel <name>" block that follows it when 0x40 printed one (a block with no "Running
// kernel" line of its name before it is a call of its own: a multi-kernel solution's extra launches). Other lines
// (Tensile's other debug output, the workload's own) are skipped and counted; a "Running kernel:" line without a
// kernel name is a Warning naming its line.

#include <memory>
#include <string>
#include <string_view>

#include "core/formats/source_format.h"

namespace strobe::core {

extern const SourceFormat kTensileLogFormat;  // id "tensile-log"

int sniffTensileLog(const SniffInput& in);
Result<std::unique_ptr<RankData>> parseTensileLog(std::string_view text, const std::string& path,
                                                  const SourceLoadOptions& options);

}  // namespace strobe::core
