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
