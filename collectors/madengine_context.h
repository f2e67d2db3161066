#pragma once
// madengine's context (its --additional-context / --additional-context-file JSON) as a Strobe tool stack. The part
// read is `tools`, a list of {"name": ..., "cmd": ..., "env_vars": {...}} (other keys are madengine's own: gpu_vendor,
// guest_os, pre_scripts/post_scripts ...; they are ignored). madengine applies the list innermost first (each tool
// wraps what the ones before it wrapped); Strobe lists tools outermost first, so the list is reversed. Per entry:
//   - one of madengine's own tool names becomes the Strobe tool that does its job: rocprof and rocprofv3 →
//     rocprofv3, with the cmd's flags mapped onto its parameters (trace kinds combine: "--hip-trace --hsa-trace";
//     --output-format; where it writes stays Strobe's; other flags are named in a message); rpd → rpd (the
//     rocmProfileData tracer); rocblas_trace, miopen_trace, tensile_trace, rccl_trace → rocblas-log, miopen-log,
//     tensile-log, rccl-log (each sets its library's logging variables and keeps the logs); gpu_info_power_profiler
//     and gpu_info_vram_profiler → the vendor's smi sampler (amd-smi, or nvidia-smi when gpu_vendor is NVIDIA) with
//     its power or VRAM fields (both entries: one sampler with both);
//   - another name that is a Strobe tool spec (nsys, amd-smi, ...) becomes that tool with its spec's defaults; its
//     `cmd`, if any, is not used (the spec builds the command; a message says so);
//   - another name with a non-empty `cmd` (a wrapper: "timeout 600", "numactl --interleave=all") becomes an ad-hoc
//     prefix tool named like the entry, its argv the cmd split at blanks, never run through a shell. A cmd with
//     shell syntax (quotes, $, `, |, &, ;, <, >, parentheses, globs, braces, backslashes) is refused with the file
//     and the tool's index: Strobe runs argv, and guessing how a shell would have split it is not safe;
//   - another name without a cmd is refused (ContextImport::refusal; strobe-cli exits 125) naming tools[i]: Strobe
//     cannot know what it would run.
// Every entry's env_vars merge into the workload's environment in the file's order: a later entry wins.
// Errors name the file and where: the byte offset, line and column of bad JSON, or tools[i] for a bad entry.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/session.h"
#include "collectors/tool_spec.h"
#include "core/io/error.h"

namespace strobe::collectors {

struct ContextImport {
    std::vector<ToolUse> tools;                // outermost first: the context's list reversed
    std::vector<ToolSpec> adhocTools;          // prefix tools made from unknown entries' cmd, for the catalog
    std::map<std::string, std::string> env;    // every entry's env_vars, a later entry winning
    std::vector<std::string> messages;         // how entries were taken ("tools[1] gpu_info_power_profiler: ...")
    // Set when an entry is refused (an unknown name without a cmd): the session must not start (exit 125); the
    // text names the source and tools[i].
    std::string refusal;
};

core::Result<ContextImport> parseMadengineContext(std::string_view text, const std::string& source,
                                                  const ToolCatalog& catalog);
core::Result<ContextImport> loadMadengineContext(const std::string& path, const ToolCatalog& catalog);
// madengine's --additional-context-file FILE (`path`, may be empty) and --additional-context JSON (`inlineJson`, may
// be empty) merged as madengine merges them: the file's top-level keys first, the inline ones last, a later key
// winning (an inline "tools" replaces the file's). Bad inline JSON is an Error naming --additional-context, its line
// and column.
core::Result<ContextImport> loadMadengineContexts(const std::string& path, const std::string& inlineJson,
                                                  const ToolCatalog& catalog);

// Adds an import to session options: its tools after (inside) the ones already there, its ad-hoc tools to the
// catalog, its environment under the options' own variables (those already set win). A usage error, or "".
std::string applyContext(const ContextImport& context, SessionOptions& options, ToolCatalog& catalog);

}  // namespace strobe::collectors
