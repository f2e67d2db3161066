#pragma once
// Phases and structure of a run, per rank:
//  - step: each ProfilerStep#N;
//  - forward / backward / optimizer inside each step (or over the whole trace without steps), from CPU-side
//    annotations: backward = autograd's "autograd::engine::evaluate_function: …" ops and FSDP's backward hooks
//    (v1 "FullyShardedDataParallel._pre_backward_hook"/"_post_backward_hook", v2 "FSDP::pre_backward"/
//    "FSDP::post_backward…"); optimizer = "Optimizer.step#…" and "Optimizer.zero_grad#…"; forward = from the
//    first forward marker (v1 "FullyShardedDataParallel.forward", v2 "FSDP::pre_forward"/"FSDP::root_pre_forward",
//    "## forward ##") or the step start, to the first backward (or optimizer) marker;
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
// layers, requests for vLLM phases, marker slices otherwise).
Result<Table> phaseStructure(AnalysisContext& ctx, const WindowSpec& window, LayerRows layers = LayerRows::Summary);
AnalysisInfo phasesAnalysisInfo();

}  // namespace strobe::core
