#pragma once
// rocprofv3 `--output-format json` results (<host>/<pid>_results.json[.gz]): {"rocprofiler-sdk-tool": [ one object
// per process ]}. Each process is a rank. Read: metadata (pid, command → trace name), agents (GPU agents, type 2:
// product name, gfx arch, wave size, CU count; `gpu_index` or their order → device), kernel_symbols (kernel_id →
// formatted_kernel_name, else demangled, else kernel_name), buffer_records.kernel_dispatch (start/end ns,
// dispatch_info: agent, queue, kernel id, dispatch id, grid/workgroup sizes, LDS = group_segment_size; correlation id
// internal; stream id) and buffer_records.memory_copy (start/end, src/dst agent, bytes). Other record kinds are
// counted in an Info diagnostic. Clock: boot-time ns, not anchored.

#include <string>
#include <string_view>

#include "core/formats/source_format.h"

namespace strobe::core {

extern const SourceFormat kRocprofv3JsonFormat;

Result<std::vector<std::unique_ptr<RankData>>> loadRocprofv3Json(const SourceGroup& group,
                                                                 const SourceLoadOptions& options = {},
                                                                 const CancelToken& cancel = {});
// From JSON text in memory (fuzzing). `name` is used in messages.
Result<std::vector<std::unique_ptr<RankData>>> loadRocprofv3JsonText(std::string_view text, const std::string& name,
                                                                     const SourceLoadOptions& options = {});

}  // namespace strobe::core
