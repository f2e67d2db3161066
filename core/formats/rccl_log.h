#pragma once
// RCCL's (and NCCL's) debug log of collective calls (NCCL_DEBUG=INFO with NCCL_DEBUG_SUBSYS including COLL;
// madengine's `rccl_trace`, the rccl-log tool, one file per process through NCCL_DEBUG_FILE=rccl.%h.%p.log):
//   host:pid:tid [dev] NCCL INFO AllReduce: opCount 0 sendbuff 0x7f... recvbuff 0x7f... count 1024 datatype 7 op 0
//   root 0 comm 0x55... [nranks=2] stream 0x55...
// (NCCL's enqueue.cc INFO(NCCL_COLL, ...); RCCL appends "task N globalrank R"; opCount is hexadecimal).
// Each such line becomes one slice (category "rccl", name = the operation: AllReduce, Broadcast, Send ...); args:
// opCount, count, datatype (named: float32, bfloat16 ...), bytes (count × the datatype's size; absent for a
// datatype id Strobe does not know), reduce_op (sum, prod, max, min, avg), root (peer for Send and Recv), nranks,
// comm, stream, sendbuff, recvbuff, device, and RCCL's task and globalrank when present. One track per device
// ("[dev]"); the process is the file's host and pid from the line prefix; the platform is AMD when the log names
// RCCL or a +hip build, NVIDIA for a +cuda build. Other lines (INIT, other subsystems) are skipped and counted; a
// collective line that cannot be read (truncated, garbled) is a Warning naming its line.

#include <memory>
#include <string>
#include <string_view>

#include "core/formats/source_format.h"

namespace strobe::core {

extern const SourceFormat kRcclLogFormat;  // id "rccl-log"

int sniffRcclLog(const SniffInput& in);
Result<std::unique_ptr<RankData>> parseRcclLog(std::string_view text, const std::string& path,
                                               const SourceLoadOptions& options);

}  // namespace strobe::core
