#pragma once
// The one definition of a profiler step, shared by the merge (RankData::steps, and through it the summary, the
// analyses and the GPU timeline's step bands): a CPU-side slice named exactly "ProfilerStep#N" (N a non-negative
// decimal integer). CPU-side means category user_annotation (current schema) or cpu_op / Operator: the 2021 schema
// writes the step as an operator. The GPU-side copy (gpu_user_annotation) is not a step.

#include <cstdint>
#include <string_view>

#include "core/model/types.h"

namespace strobe::core {

// "ProfilerStep#N" → N; -1 for any other name.
int64_t profilerStepNumber(std::string_view name);

// True for the event kinds a step slice may have.
constexpr bool isProfilerStepKind(EventKind kind) {
    return kind == EventKind::UserAnnotation || kind == EventKind::CpuOp;
}

}  // namespace strobe::core
