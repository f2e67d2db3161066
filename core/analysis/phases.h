#pragma once
// Phases and structure of a run, per rank:
//  - step: each ProfilerStep#N (the one definition in core/model/profiler_step.h, as the summary and the plots);
//  - forward / backward / optimizer inside each step (or over the whole trace without steps). Backward work is
//    found from what the trace holds: backward annotations (autograd's "autograd::engine::evaluate_function: …",
//    FSDP's backward hooks: v1 "FullyShardedDataParallel._pre_backward_hook"/"_post_backward_hook", v2
//    "FSDP::pre_backward"/"FSDP::post_backward…", "## backward"), autograd operators (CPU ops named "…Backward"
//    or "…Backward<N>", "…_backward…", "torch::autograd::AccumulateGrad"), the operators at the backward end of
//    fwdbwd flows, and every CPU op of an autograd thread (a thread holding such operators and no ProfilerStep:
//    the engine runs backward on its own thread). backward = first to last backward slice of the step;
//    optimizer = "Optimizer.step#…"/"Optimizer.zero_grad#…"/"## optimizer" starting after backward began (after
//    the forward marker without backward: a zero_grad at the top of the step is not part of it); forward = from
//    the first forward marker (v1 "FullyShardedDataParallel.forward", v2 "FSDP::pre_forward"/
//    "FSDP::root_pre_forward", "## forward") or the step start, to backward (or the optimizer). count = backward
//    slices for backward, marker slices otherwise;
//  - prefill / decode / mixed: vLLM's "execute_context_C(T)_generation_G(U)" annotations (C context requests,
//    G generation requests): C > 0 and G = 0 prefill, C = 0 decode, both mixed;
//  - layer: transformer layers found from repeated kernel patterns when no annotation names a layer: each
//    attention kernel belongs to the layer that begins at the run of GEMM kernels just before it (the QKV
//    projection). `layers` = rows gives one row per detected layer (phase "layer"); summary (the default) one
//    row per rank (phase "layers": count = layers, dur_ns = mean layer duration, start/end of the first/last).

#include "core/analysis/registry.h"

namespace strobe::core {

enum class LayerRows : uint8_t { None, Summary, Rows };

// Columns: rank, phase, name, step (null outside steps), start_ns, end_ns, dur_ns, count (kernels for
// layers, requests for vLLM phases, marker slices otherwise), gpu_start_ns, gpu_end_ns. start/end are CPU times
// (the annotations and operators) except for layers, which come from kernels; gpu_start/gpu_end are the first start
// and last end of the GPU activities launched in [start, end) (by their launching runtime call, else their own
// start), null when the phase launched none: the GPU runs behind the CPU, so a backward pass's last kernels run
// while the CPU is already in the optimizer, and the GPU timeline draws the phases at these times.
Result<Table> phaseStructure(AnalysisContext& ctx, const WindowSpec& window, LayerRows layers = LayerRows::Summary);
AnalysisInfo phasesAnalysisInfo();

}  // namespace strobe::core
