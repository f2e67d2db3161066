#pragma once
// FLOP and byte models of PyTorch operators from the shapes the profiler records (record_shapes=True: "Input Dims",
// "Input type" and, in PyTorch ≥ 2.1, "Concrete Inputs" — the values of non-tensor arguments as text). Bytes are
// the least traffic an operator needs (each operand read once, each result written once); the element size is the
// operand's own type (gemmDtypeBytes; 8 for integer indices). N below is an element count, bpe bytes per element.
// Where a formula is TraceLens's (AMD-AGI/TraceLens, TraceLens/PerfModel/perf_model.py) it says so; the numbers
// agree within 1 % on the test traces (tests/core/op_models_expected.py computes both).
//
// gemm       the six GEMM ops of gemm_flops.h (2·M·N·K; operands + result);
//            aten::_scaled_mm  a [M, K] × b [K, N]: 2·M·N·K; bytes M·K·bpe_a + K·N·bpe_b + M·N·2 (the result is
//            taken as 16-bit: the trace does not record out_dtype's size)
// attention  q, k, v as [B, H, N, d] (SDPA ops) or [B, N, H, d] (flash_attn::, aiter::), Hq query heads, Hkv
//            key/value heads:
//            fwd   2·B·Hq·Nq·Nkv·(d_qk + d_v), halved when causal (Nq = Nkv); bytes (q + k + v + out)·bpe
//            bwd   2·B·Hq·Nq·Nkv·(2·d_qk + 2·d_v + d_qk) — dV, dP, dQ, dK and the recomputed Q·Kᵀ — halved when
//                  causal; bytes (q + k + v + dO + dQ + dK + dV)·bpe (TraceLens's flash formula without its
//                  GQA reduction term, which is below 0.01 %)
//            ops: aten::scaled_dot_product_attention, aten::_scaled_dot_product_{flash,efficient,cudnn}_attention
//            and their _backward, aten::_efficient_attention_forward/backward, flash_attn::_flash_attn_forward/
//            backward, aiter::mha_fwd/mha_bwd. is_causal is read from "Concrete Inputs" (false when absent).
// conv       x [N, C, *], w [K, C/g, *], y from stride, padding, dilation (and output_padding when transposed):
//            fwd   2·|y|·|w[1:]| (+ |y| with a bias); bytes (|x| + |w| + K·bias + |y|)·bpe
//            bwd   input grad 2·|dy|·|w[1:]| + weight grad 2·|dy|·|w[1:]| (+ |dy| with a bias); bytes
//                  2·(|dy| + |x| + |w|)·bpe (TraceLens's: both gradients counted, output_mask not read)
//            ops: aten::convolution, aten::convolution_backward (the stride etc. come from "Concrete Inputs": a
//            trace without them, as the 2021 schema, leaves convolutions unmodelled and says so)
// norm       x with N elements, C = parameters (channels for batch/group/instance norm, the normalized_shape's
//            elements for layer/RMS norm), training for batch norm from its argument (true for the others):
//            fwd   2·N + 6·C (+ 3·N training); bytes 2·N·bpe + (2 + weight + bias + 2·training)·C·bpe (TraceLens's
//                  Normalization; weight and bias counted when given)
//            RMS   (N/C)·(2·C + 2) + N·(2 with a weight, else 1); bytes 2·N·bpe (+ C·bpe with a weight)
//            bwd   9·N; bytes (3·N + 4·C)·bpe (TraceLens's for training with the input gradient)
// softmax    x with N elements: fwd 3·N FLOPs, 2·N·bpe; bwd twice that (TraceLens's Softmax)
//            ops: aten::softmax, log_softmax, _softmax, _log_softmax and _softmax/_log_softmax_backward_data
// embedding  weight [V, D], indices with I elements: 0 FLOPs; bytes I·8 + 2·I·D·bpe (rows read, output written);
//            backward (grad [..., D]): I·8 + 2·|grad|·bpe
// elementwise (bytes-bound; TraceLens's Unary/BinaryElementwise) unary N FLOPs, N·(bpe_in + bpe_out); binary
//            |broadcast(a, b)| FLOPs, |a|·bpe_a + |b|·bpe_b + |out|·bpe_out (a Python scalar operand: 0 bytes)
// reduction  (bytes-bound) N_in FLOPs; N_in·bpe + N_out·bpe, N_out from the reduced dims in "Concrete Inputs"
//            (all dims when none are given)
// grouped GEMM (MoE; family gemm) G groups, each a matrix product; the result is taken as 16-bit (bf16) for
//            the scaled (FP8) forms, else the first operand's type:
//            aten::_grouped_mm, aten::_scaled_grouped_mm (a, b; offs cut the 2-D operand's grouped dim):
//              a [G, M, K] × b [G, K, N] → [G, M, N]          2·G·M·N·K;  bytes G·(M·K + K·N)·bpe + G·M·N·bpe_out
//              a [ΣM, K]   × b [G, K, N] → [ΣM, N]            2·ΣM·N·K;   bytes (ΣM·K + G·K·N)·bpe + ΣM·N·bpe_out
//              a [G, M, K] × b [K, ΣN]   → [M, ΣN]            2·M·ΣN·K;   bytes (G·M·K + K·ΣN)·bpe + M·ΣN·bpe_out
//              a [M, ΣK]   × b [ΣK, N]   → [G, M, N]          2·M·N·ΣK;   bytes (M·ΣK + ΣK·N)·bpe + G·M·N·bpe_out
//              where a 2-D operand's groups are taken to cover the whole grouped dim (offs' values are not recorded:
//              rows past the last offset, e.g. padding, would be counted — an upper bound then)
//            fbgemm::bf16bf16bf16_grouped_stacked, fbgemm::f8f8bf16_rowwise_grouped_stacked: X [ΣM, K], W [G, N, K]
//              (M_sizes sum to ΣM): 2·ΣM·N·K; bytes (ΣM·K + G·N·K)·bpe + ΣM·N·2
//            fbgemm::bf16bf16bf16_grouped, fbgemm::f8f8bf16_rowwise_grouped (TensorLists X_g [M_g, K_g],
//              W_g [N_g, K_g]): Σ 2·M_g·N_g·K_g; bytes Σ (M_g·K_g + N_g·K_g)·bpe + M_g·N_g·2, bpe from the name
//              (a TensorList's type is not recorded): 2 for bf16bf16bf16, 1 for f8f8bf16
//            vllm::inplace_fused_experts, vllm::outplace_fused_experts: hidden [M, K], w1 [E, N1, K] (gate and up:
//              N1 = 2·I), w2 [E, K, I], topk_ids [M, k]: every token runs k experts' two GEMMs:
//              2·M·k·N1·K + 2·M·k·K·I; bytes (2·M·K)·bpe + the weights of min(E, M·k) experts (the most the routing
//              can touch; each read once) (N1·K + K·I)·min(E, M·k)·bpe_w
//            unmodelled, saying why: fbgemm::*_grouped_dynamic (rows per group are values, zero_start_index_M,
//              not shapes) and AMD aiter's MoE ops (aiter::fmoe*, aiter::ck_moe*, aiter::fused_moe*: tokens per
//              expert come from the sorted ids' values, not shapes)

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strobe::core {

// The shape arguments of one op as recorded.
struct OpArgs {
    std::vector<std::vector<int64_t>> dims;  // "Input Dims"
    std::vector<std::string> types;          // "Input type"
    std::vector<std::string> concrete;       // "Concrete Inputs" ("" entries for tensors; empty when absent)
    // A TensorList argument's tensors' dims ("Input Dims" holds a list of lists there; its `dims` entry is empty);
    // empty for every other argument. Sized like `dims` when any argument is a TensorList, else empty.
    std::vector<std::vector<std::vector<int64_t>>> lists;
};
// From an op's args JSON object text; nullopt when it has no "Input Dims" (record_shapes off) or they are malformed.
std::optional<OpArgs> opArgsOf(std::string_view argsJson);

struct OpCost {
    std::string family;  // gemm, attention, conv, norm, softmax, embedding, elementwise, reduction
    double flops = 0;
    double bytes = 0;
    std::string dtype;  // of the first tensor operand (gemmDtypeOf): "" when the trace does not say
};

// The family of an op that has a model here, "" for any other op.
std::string_view opFamily(std::string_view opName);

// The cost, or why there is none (`why`: "shapes do not fit aten::convolution", "no Concrete Inputs: stride and
// padding not recorded", ...). Only for ops whose opFamily is not empty.
struct OpModelResult {
    std::optional<OpCost> cost;
    std::string why;
};
OpModelResult opCost(std::string_view opName, const OpArgs& args);

}  // namespace strobe::core
