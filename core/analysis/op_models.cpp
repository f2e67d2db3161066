#include "core/analysis/op_models.h"

#include <simdjson.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>

#include "core/analysis/gemm_flops.h"

namespace strobe::core {

namespace {

double opElements(const std::vector<int64_t>& d) {
    double p = 1;
    for (int64_t x : d) p *= double(x);
    return p;
}

std::string lowerText(std::string_view s) {
    std::string out;
    for (char c : s) out += char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Bytes per element of a recorded type: floating types as gemmDtypeBytes, integer and bool types by their width;
// 0 for a non-tensor argument ("Scalar", "Int", "ScalarList", "").
size_t typeBytes(std::string_view type) {
    const std::string t = lowerText(type);
    if (!gemmDtypeOf(t).empty()) return gemmDtypeBytes(gemmDtypeOf(t));
    if (t == "long int" || t == "long" || t == "int64_t" || t == "unsigned long") return 8;
    if (t == "int" || t == "unsigned int") return 4;
    if (t == "short") return 2;
    if (t == "bool" || t == "unsigned char" || t == "signed char" || t == "char") return 1;
    return 0;
}

bool isTensorArg(const OpArgs& a, size_t i) { return i < a.types.size() && typeBytes(a.types[i]) > 0; }
size_t bpeOf(const OpArgs& a, size_t i) { return i < a.types.size() && typeBytes(a.types[i]) > 0 ? typeBytes(a.types[i]) : 4; }
std::string dtypeOf(const OpArgs& a, size_t i) { return i < a.types.size() ? gemmDtypeOf(a.types[i]) : std::string(); }
const std::vector<int64_t>* dimsAt(const OpArgs& a, size_t i) { return i < a.dims.size() ? &a.dims[i] : nullptr; }

std::string_view concreteAt(const OpArgs& a, int i) {
    return i >= 0 && size_t(i) < a.concrete.size() ? std::string_view(a.concrete[size_t(i)]) : std::string_view();
}
bool concreteTrue(const OpArgs& a, int i) {
    const std::string v = lowerText(concreteAt(a, i));
    return v == "true" || (!v.empty() && std::all_of(v.begin(), v.end(), ::isdigit) && v != "0");
}
// "[2, 2]" or "3" → the integers; nullopt for "" or text that is not one.
std::optional<std::vector<int64_t>> intList(std::string_view s) {
    std::vector<int64_t> out;
    size_t i = 0;
    const bool list = !s.empty() && s.front() == '[';
    if (list) ++i;
    while (i < s.size()) {
        while (i < s.size() && (s[i] == ' ' || s[i] == ',')) ++i;
        if (i >= s.size() || (list && s[i] == ']')) break;
        int64_t v = 0;
        auto [ptr, ec] = std::from_chars(s.data() + i, s.data() + s.size(), v);
        if (ec != std::errc()) return std::nullopt;
        out.push_back(v);
        i = size_t(ptr - s.data());
    }
    if (out.empty() && !list) return std::nullopt;
    return out;
}

OpModelResult fail(std::string why) { return {std::nullopt, std::move(why)}; }
OpModelResult done(std::string family, double flops, double bytes, std::string dtype) {
    OpCost c;
    c.family = std::move(family), c.flops = flops, c.bytes = bytes, c.dtype = std::move(dtype);
    return {std::move(c), {}};
}

struct AttnSpec {
    int q = 0;          // index of the query
    int causal = -1;    // index of is_causal / causal / custom_mask_type in "Concrete Inputs"
    bool bnhd = false;  // [B, N, H, d] (flash_attn, aiter, xformers) rather than [B, H, N, d]
    bool bwd = false;
};
const std::map<std::string, AttnSpec, std::less<>>& attentionOps() {
    static const std::map<std::string, AttnSpec, std::less<>> m{
        {"aten::scaled_dot_product_attention", {0, 5, false, false}},
        {"aten::_scaled_dot_product_flash_attention", {0, 4, false, false}},
        {"aten::_scaled_dot_product_efficient_attention", {0, 6, false, false}},
        {"aten::_scaled_dot_product_cudnn_attention", {0, 6, false, false}},
        {"aten::_scaled_dot_product_flash_attention_backward", {1, 11, false, true}},
        {"aten::_scaled_dot_product_efficient_attention_backward", {1, 11, false, true}},
        {"aten::_scaled_dot_product_cudnn_attention_backward", {1, 14, false, true}},
        {"aten::_efficient_attention_forward", {0, 9, true, false}},
        {"aten::_efficient_attention_backward", {1, 14, true, true}},
        {"flash_attn::_flash_attn_forward", {0, 5, true, false}},
        {"flash_attn::_flash_attn_backward", {1, 11, true, true}},
        {"aiter::mha_fwd", {0, 5, true, false}},
        {"aiter::mha_bwd", {1, 8, true, true}},
    };
    return m;
}

OpModelResult attentionCost(std::string_view op, const AttnSpec& s, const OpArgs& a) {
    const auto* q = dimsAt(a, size_t(s.q));
    const auto* k = dimsAt(a, size_t(s.q + 1));
    const auto* v = dimsAt(a, size_t(s.q + 2));
    if (!q || !k || !v || q->size() != 4 || k->size() != 4 || v->size() != 4)
        return fail(fmt::format("{}: query, key and value are not 4-D", op));
    const size_t h = s.bnhd ? 2 : 1, n = s.bnhd ? 1 : 2;
    const double B = double((*q)[0]), Hq = double((*q)[h]), Nq = double((*q)[n]), dqk = double((*q)[3]);
    const double Hkv = double((*k)[h]), Nkv = double((*k)[n]), dv = double((*v)[3]);
    const bool causal = concreteTrue(a, s.causal);
    if (causal && Nq != Nkv) return fail(fmt::format("{}: causal with {} queries and {} keys", op, Nq, Nkv));
    const double bpe = double(bpeOf(a, size_t(s.q)));
    const double qE = B * Nq * Hq * dqk, kE = B * Nkv * Hkv * dqk, vE = B * Nkv * Hkv * dv, oE = B * Nq * Hq * dv;
    double flops = 2 * B * Hq * Nq * Nkv * (s.bwd ? 3 * dqk + 2 * dv : dqk + dv);
    if (causal) flops /= 2;
    const double bytes = s.bwd ? (2 * (qE + kE + vE) + oE) * bpe : (qE + kE + vE + oE) * bpe;
    return done("attention", flops, bytes, dtypeOf(a, size_t(s.q)));
}

// Output spatial size of a convolution (transposed or not), as PyTorch computes it.
int64_t convOut(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, int64_t op, bool transposed) {
    if (transposed) return (in - 1) * s - 2 * p + d * (k - 1) + op + 1;
    return (in + 2 * p - d * (k - 1) - 1) / s + 1;
}

OpModelResult convForward(const OpArgs& a) {
    const auto* x = dimsAt(a, 0);
    const auto* w = dimsAt(a, 1);
    if (!x || !w || x->size() < 3 || x->size() != w->size())
        return fail("aten::convolution: input and weight shapes do not fit");
    if (a.concrete.size() < 9) return fail("aten::convolution: no Concrete Inputs (stride and padding not recorded)");
    const size_t nd = x->size() - 2;
    std::vector<std::vector<int64_t>> p;  // stride, padding, dilation, output_padding
    for (int i : {3, 4, 5, 7}) {
        auto l = intList(concreteAt(a, i));
        if (!l || l->empty()) l = std::vector<int64_t>{i == 4 || i == 7 ? 0 : 1};
        if (l->size() == 1) l->assign(nd, (*l)[0]);
        if (l->size() != nd) return fail("aten::convolution: stride/padding/dilation do not fit the input");
        p.push_back(*l);
    }
    const bool transposed = concreteTrue(a, 6);
    std::vector<int64_t> y{(*x)[0], transposed ? (*w)[1] : (*w)[0]};
    for (size_t i = 0; i < nd; ++i) {
        if (p[0][i] <= 0) return fail("aten::convolution: a stride that is not positive");
        const int64_t o = convOut((*x)[2 + i], (*w)[2 + i], p[0][i], p[1][i], p[2][i], p[3][i], transposed);
        if (o <= 0) return fail("aten::convolution: stride/padding give no output");
        y.push_back(o);
    }
    const bool bias = a.dims.size() > 2 && !a.dims[2].empty();
    const double wInner = opElements(*w) / double((*w)[0]);
    const double Y = opElements(y), X = opElements(*x), W = opElements(*w);
    const double flops = 2 * (transposed ? X : Y) * wInner + (bias ? Y : 0);
    const double bytes = (X + W + (bias ? double(y[1]) : 0) + Y) * double(bpeOf(a, 0));
    return done("conv", flops, bytes, dtypeOf(a, 0));
}

OpModelResult convBackward(const OpArgs& a) {
    const auto* dy = dimsAt(a, 0);
    const auto* x = dimsAt(a, 1);
    const auto* w = dimsAt(a, 2);
    if (!dy || !x || !w || x->size() < 3 || dy->size() != x->size() || w->size() != x->size())
        return fail("aten::convolution_backward: grad_output, input and weight shapes do not fit");
    const bool transposed = concreteTrue(a, 7);
    const bool bias = a.dims.size() > 3 && !a.dims[3].empty();
    const double DY = opElements(*dy), X = opElements(*x), W = opElements(*w);
    const double wInner = W / double((*w)[0]);
    const double inputGrad = 2 * (transposed ? X : DY) * wInner;
    const double weightGrad = 2 * W * (transposed ? X / double((*x)[1]) : DY / double((*dy)[1]));
    const double flops = inputGrad + weightGrad + (bias ? DY : 0);
    const double bytes = (2 * (DY + X + W) + (bias ? DY + double((*dy)[1]) : 0)) * double(bpeOf(a, 1));
    return done("conv", flops, bytes, dtypeOf(a, 1));
}

enum class NormKind { Batch, Layer, Group, Instance, Rms };
struct NormSpec {
    NormKind kind;
    int input, weight, bias, training, normShape;  // argument indices, -1 when the op has none
    bool bwd;
};
const std::map<std::string, NormSpec, std::less<>>& normOps() {
    using K = NormKind;
    static const std::map<std::string, NormSpec, std::less<>> m{
        {"aten::batch_norm", {K::Batch, 0, 1, 2, 5, -1, false}},
        {"aten::_batch_norm_impl_index", {K::Batch, 0, 1, 2, 5, -1, false}},
        {"aten::native_batch_norm", {K::Batch, 0, 1, 2, 5, -1, false}},
        {"aten::cudnn_batch_norm", {K::Batch, 0, 1, 2, 5, -1, false}},
        {"aten::miopen_batch_norm", {K::Batch, 0, 1, 2, 5, -1, false}},
        {"aten::instance_norm", {K::Instance, 0, 1, 2, -1, -1, false}},
        {"aten::layer_norm", {K::Layer, 0, 2, 3, -1, 1, false}},
        {"aten::native_layer_norm", {K::Layer, 0, 2, 3, -1, 1, false}},
        {"aten::group_norm", {K::Group, 0, 2, 3, -1, -1, false}},
        {"aten::native_group_norm", {K::Group, 0, 1, 2, -1, -1, false}},
        {"aten::rms_norm", {K::Rms, 0, 2, -1, -1, 1, false}},
        {"aten::_fused_rms_norm", {K::Rms, 0, 2, -1, -1, 1, false}},
        {"aten::native_batch_norm_backward", {K::Batch, 1, 2, -1, -1, -1, true}},
        {"aten::cudnn_batch_norm_backward", {K::Batch, 0, 2, -1, -1, -1, true}},
        {"aten::miopen_batch_norm_backward", {K::Batch, 0, 2, -1, -1, -1, true}},
        {"aten::native_layer_norm_backward", {K::Layer, 1, 5, 6, -1, 2, true}},
        {"aten::native_group_norm_backward", {K::Group, 1, 4, -1, -1, -1, true}},
        {"aten::_fused_rms_norm_backward", {K::Rms, 1, 4, -1, -1, 2, true}},
    };
    return m;
}

OpModelResult normCost(std::string_view op, const NormSpec& s, const OpArgs& a) {
    const auto* x = dimsAt(a, size_t(s.input));
    if (!x || x->size() < 2) return fail(fmt::format("{}: the input is not at least 2-D", op));
    auto present = [&](int i) { return i >= 0 && size_t(i) < a.dims.size() && !a.dims[size_t(i)].empty(); };
    double C = double((*x)[1]);
    if (s.normShape >= 0) {
        auto l = intList(concreteAt(a, s.normShape));
        if (l && !l->empty()) C = opElements(*l);
        else if (present(s.weight)) C = opElements(a.dims[size_t(s.weight)]);
        else return fail(fmt::format("{}: normalized_shape not recorded (no Concrete Inputs)", op));
    }
    const double N = opElements(*x), bpe = double(bpeOf(a, size_t(s.input)));
    const std::string dtype = dtypeOf(a, size_t(s.input));
    if (s.bwd) return done("norm", 9 * N, (3 * N + 4 * C) * bpe, dtype);
    const bool weight = present(s.weight), bias = present(s.bias);
    if (s.kind == NormKind::Rms)
        return done("norm", N / C * (2 * C + 2) + N * (weight ? 2 : 1), (2 * N + (weight ? C : 0)) * bpe, dtype);
    const bool training = s.training < 0 || concreteAt(a, s.training).empty() || concreteTrue(a, s.training);
    const double flops = 2 * N + 6 * C + (training ? 3 * N : 0);
    const double params = 2 + (weight ? 1 : 0) + (bias ? 1 : 0) + (training ? 2 : 0);
    return done("norm", flops, (2 * N + params * C) * bpe, dtype);
}

std::optional<std::vector<int64_t>> broadcastShape(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    std::vector<int64_t> out(std::max(a.size(), b.size()));
    for (size_t i = 0; i < out.size(); ++i) {
        const int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1, db = i < b.size() ? b[b.size() - 1 - i] : 1;
        if (da != db && da != 1 && db != 1) return std::nullopt;
        out[out.size() - 1 - i] = std::max(da, db);
    }
    return out;
}

enum class Simple { Unary, Binary, Copy, Fill, Reduce, Softmax, SoftmaxBwd, Embedding, EmbeddingBwd, ScaledMm };
const std::map<std::string, Simple, std::less<>>& simpleOps() {
    static const std::map<std::string, Simple, std::less<>> m = [] {
        std::map<std::string, Simple, std::less<>> o;
        for (const char* n : {"relu", "relu_", "clamp", "clamp_", "clamp_min", "clamp_min_", "clamp_max", "clamp_max_",
                              "sigmoid", "sigmoid_", "tanh", "tanh_", "gelu", "silu", "silu_", "neg", "rsqrt", "sqrt",
                              "exp", "log", "abs", "pow", "hardtanh", "hardtanh_", "threshold", "reciprocal"})
            o[std::string("aten::") + n] = Simple::Unary;
        for (const char* n : {"add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_", "threshold_backward",
                              "sigmoid_backward", "tanh_backward", "gelu_backward", "silu_backward", "maximum",
                              "minimum", "hardtanh_backward"})
            o[std::string("aten::") + n] = Simple::Binary;
        o["aten::copy_"] = Simple::Copy;
        o["aten::fill_"] = Simple::Fill;
        o["aten::zero_"] = Simple::Fill;
        for (const char* n : {"sum", "mean", "amax", "amin", "max", "min", "var", "std", "logsumexp", "norm"})
            o[std::string("aten::") + n] = Simple::Reduce;
        for (const char* n : {"softmax", "log_softmax", "_softmax", "_log_softmax"})
            o[std::string("aten::") + n] = Simple::Softmax;
        o["aten::_softmax_backward_data"] = Simple::SoftmaxBwd;
        o["aten::_log_softmax_backward_data"] = Simple::SoftmaxBwd;
        o["aten::embedding"] = Simple::Embedding;
        o["aten::embedding_backward"] = Simple::EmbeddingBwd;
        o["aten::embedding_dense_backward"] = Simple::EmbeddingBwd;
        o["aten::_scaled_mm"] = Simple::ScaledMm;
        return o;
    }();
    return m;
}

OpModelResult reduceCost(std::string_view op, const OpArgs& a) {
    const auto* x = dimsAt(a, 0);
    if (!x) return fail(fmt::format("{}: no input shape", op));
    const double N = opElements(*x), bpe = double(bpeOf(a, 0));
    double out = 1;  // a full reduction unless dims are given
    if (auto dims = intList(concreteAt(a, op == "aten::norm" ? 2 : 1)); dims && !dims->empty() && !x->empty()) {
        std::vector<bool> reduced(x->size(), false);
        for (int64_t d : *dims) {
            const int64_t r = d < 0 ? d + int64_t(x->size()) : d;
            if (r < 0 || r >= int64_t(x->size())) return fail(fmt::format("{}: dim {} outside the input", op, d));
            reduced[size_t(r)] = true;
        }
        for (size_t i = 0; i < x->size(); ++i)
            if (!reduced[i]) out *= double((*x)[i]);
    }
    return done("reduction", N, (N + out) * bpe, dtypeOf(a, 0));
}

OpModelResult simpleCost(std::string_view op, Simple kind, const OpArgs& a) {
    const auto* x = dimsAt(a, 0);
    if (!x) return fail(fmt::format("{}: no input shape", op));
    const double N = opElements(*x), bpe = double(bpeOf(a, 0));
    switch (kind) {
    case Simple::Unary: return done("elementwise", N, 2 * N * bpe, dtypeOf(a, 0));
    case Simple::Fill: return done("elementwise", 0, N * bpe, dtypeOf(a, 0));
    case Simple::Copy: {
        const auto* src = dimsAt(a, 1);
        const double S = src ? opElements(*src) : N;
        return done("elementwise", 0, S * double(bpeOf(a, 1)) + N * bpe, dtypeOf(a, 0));
    }
    case Simple::Binary: {
        const bool tensorB = isTensorArg(a, 1) && a.dims.size() > 1;
        const std::vector<int64_t> b = tensorB ? a.dims[1] : std::vector<int64_t>{};
        const auto out = broadcastShape(*x, b);
        if (!out) return fail(fmt::format("{}: operand shapes do not broadcast", op));
        const double bpeOut = tensorB ? double(std::max(bpeOf(a, 0), bpeOf(a, 1))) : bpe;
        const double O = opElements(*out);
        return done("elementwise", O, N * bpe + (tensorB ? opElements(b) * double(bpeOf(a, 1)) : 0) + O * bpeOut,
                    dtypeOf(a, 0));
    }
    case Simple::Reduce: return reduceCost(op, a);
    case Simple::Softmax: return done("softmax", 3 * N, 2 * N * bpe, dtypeOf(a, 0));
    case Simple::SoftmaxBwd: return done("softmax", 6 * N, 4 * N * bpe, dtypeOf(a, 0));
    case Simple::Embedding: {
        const auto* idx = dimsAt(a, 1);
        if (!idx || x->size() != 2) return fail("aten::embedding: weight is not 2-D or no indices");
        const double I = opElements(*idx);
        return done("embedding", 0, I * double(bpeOf(a, 1)) + 2 * I * double(x->back()) * bpe, dtypeOf(a, 0));
    }
    case Simple::EmbeddingBwd: {
        const auto* idx = dimsAt(a, 1);
        const double I = idx ? opElements(*idx) : 0;
        return done("embedding", 0, I * double(bpeOf(a, 1)) + 2 * N * bpe, dtypeOf(a, 0));
    }
    case Simple::ScaledMm: {
        const auto* b = dimsAt(a, 1);
        if (!b || x->size() != 2 || b->size() != 2 || (*x)[1] != (*b)[0])
            return fail("aten::_scaled_mm: operands are not [M, K] x [K, N]");
        const double M = double((*x)[0]), K = double((*x)[1]), Nn = double((*b)[1]);
        return done("gemm", 2 * M * Nn * K, M * K * bpe + K * Nn * double(bpeOf(a, 1)) + M * Nn * 2, dtypeOf(a, 0));
    }
    }
    return fail(std::string(op));
}

enum class Grouped { Mm, ScaledMm, Stacked, List, Dynamic, FusedExperts, Aiter };
const std::map<std::string, Grouped, std::less<>>& groupedOps() {
    static const std::map<std::string, Grouped, std::less<>> m{
        {"aten::_grouped_mm", Grouped::Mm},
        {"aten::_scaled_grouped_mm", Grouped::ScaledMm},
        {"fbgemm::bf16bf16bf16_grouped_stacked", Grouped::Stacked},
        {"fbgemm::f8f8bf16_rowwise_grouped_stacked", Grouped::Stacked},
        {"fbgemm::bf16bf16bf16_grouped", Grouped::List},
        {"fbgemm::f8f8bf16_rowwise_grouped", Grouped::List},
        {"fbgemm::bf16bf16bf16_grouped_dynamic", Grouped::Dynamic},
        {"fbgemm::f8f8bf16_rowwise_grouped_dynamic", Grouped::Dynamic},
        {"vllm::inplace_fused_experts", Grouped::FusedExperts},
        {"vllm::outplace_fused_experts", Grouped::FusedExperts},
    };
    return m;
}
std::optional<Grouped> groupedKind(std::string_view op) {
    if (auto it = groupedOps().find(op); it != groupedOps().end()) return it->second;
    if (op.substr(0, 7) == "aiter::" &&
        (op.find("fmoe") != std::string_view::npos || op.find("ck_moe") != std::string_view::npos ||
         op.find("fused_moe") != std::string_view::npos))
        return Grouped::Aiter;
    return std::nullopt;
}

OpModelResult groupedCost(std::string_view op, Grouped kind, const OpArgs& a) {
    if (kind == Grouped::Dynamic)
        return fail(fmt::format("{}: the rows of each group are values (zero_start_index_M), not shapes", op));
    if (kind == Grouped::Aiter)
        return fail(fmt::format("{}: the tokens per expert are values (sorted token ids), not shapes", op));
    double bpe = double(bpeOf(a, 0)), bpeB = double(bpeOf(a, 1));
    std::string dtype = dtypeOf(a, 0);
    if (kind == Grouped::List) {
        // A TensorList's element type is not recorded: the op's name says it (bf16bf16bf16, f8f8bf16).
        const bool fp8 = op.find("f8f8") != std::string_view::npos;
        bpe = bpeB = fp8 ? 1 : 2;
        dtype = fp8 ? "fp8" : "bf16";
        if (a.lists.size() < 2 || a.lists[0].size() != a.lists[1].size() || a.lists[0].empty())
            return fail(fmt::format("{}: X and W are not TensorLists of one length", op));
        double flops = 0, bytes = 0;
        for (size_t g = 0; g < a.lists[0].size(); ++g) {
            const auto& x = a.lists[0][g];
            const auto& w = a.lists[1][g];
            if (x.size() != 2 || w.size() != 2 || x[1] != w[1])
                return fail(fmt::format("{}: group {} is not X [M, K] × W [N, K]", op, g));
            const double M = double(x[0]), K = double(x[1]), N = double(w[0]);
            flops += 2 * M * N * K;
            bytes += M * K * bpe + N * K * bpeB + M * N * 2;
        }
        return done("gemm", flops, bytes, dtype);
    }
    const auto* x = dimsAt(a, 0);
    const auto* w = dimsAt(a, 1);
    if (!x || !w) return fail(fmt::format("{}: no operand shapes", op));
    if (kind == Grouped::Stacked) {
        if (x->size() != 2 || w->size() != 3 || (*x)[1] != (*w)[2])
            return fail(fmt::format("{}: operands are not X [ΣM, K] × W [G, N, K]", op));
        const double M = double((*x)[0]), K = double((*x)[1]), G = double((*w)[0]), N = double((*w)[1]);
        return done("gemm", 2 * M * N * K, (M * K + G * N * K) * bpe + M * N * 2, dtype);
    }
    if (kind == Grouped::FusedExperts) {
        const auto* w2 = dimsAt(a, 2);
        const auto* ids = dimsAt(a, 4);
        if (x->size() != 2 || w->size() != 3 || !w2 || w2->size() != 3 || !ids || ids->size() != 2 ||
            (*w)[2] != (*x)[1] || (*w2)[1] != (*x)[1] || (*ids)[0] != (*x)[0])
            return fail(fmt::format("{}: shapes are not hidden [M, K], w1 [E, N1, K], w2 [E, K, I], topk_ids [M, k]",
                                    op));
        const double M = double((*x)[0]), K = double((*x)[1]), E = double((*w)[0]), N1 = double((*w)[1]);
        const double I = double((*w2)[2]), k = double((*ids)[1]);
        const double experts = std::min(E, M * k);
        return done("gemm", 2 * M * k * N1 * K + 2 * M * k * K * I,
                    2 * M * K * bpe + (N1 * K + K * I) * experts * bpeB, dtype);
    }
    // aten::_grouped_mm / _scaled_grouped_mm.
    const double bpeOut = kind == Grouped::ScaledMm ? 2 : bpe;
    if (x->size() == 3 && w->size() == 3 && (*x)[0] == (*w)[0] && (*x)[2] == (*w)[1]) {
        const double G = double((*x)[0]), M = double((*x)[1]), K = double((*x)[2]), N = double((*w)[2]);
        return done("gemm", 2 * G * M * N * K, G * (M * K * bpe + K * N * bpeB) + G * M * N * bpeOut, dtype);
    }
    if (x->size() == 2 && w->size() == 3 && (*x)[1] == (*w)[1]) {
        const double M = double((*x)[0]), K = double((*x)[1]), G = double((*w)[0]), N = double((*w)[2]);
        return done("gemm", 2 * M * N * K, M * K * bpe + G * K * N * bpeB + M * N * bpeOut, dtype);
    }
    if (x->size() == 3 && w->size() == 2 && (*x)[2] == (*w)[0]) {
        const double G = double((*x)[0]), M = double((*x)[1]), K = double((*x)[2]), N = double((*w)[1]);
        return done("gemm", 2 * M * N * K, G * M * K * bpe + K * N * bpeB + M * N * bpeOut, dtype);
    }
    if (x->size() == 2 && w->size() == 2 && (*x)[1] == (*w)[0]) {
        const auto* offs = dimsAt(a, kind == Grouped::ScaledMm ? 4 : 2);
        if (!offs || offs->size() != 1) return fail(fmt::format("{}: 2-D × 2-D without offs: no group count", op));
        const double M = double((*x)[0]), K = double((*x)[1]), N = double((*w)[1]), G = double((*offs)[0]);
        return done("gemm", 2 * M * N * K, (M * K * bpe + K * N * bpeB) + G * M * N * bpeOut, dtype);
    }
    return fail(fmt::format("{}: operand shapes fit none of 2-D/3-D × 2-D/3-D", op));
}

}  // namespace

std::optional<OpArgs> opArgsOf(std::string_view argsJson) {
    if (argsJson.find("Input Dims") == std::string_view::npos) return std::nullopt;
    simdjson::dom::parser parser;
    simdjson::padded_string text(argsJson);
    simdjson::dom::object obj;
    if (parser.parse(text).get_object().get(obj) != simdjson::SUCCESS) return std::nullopt;
    OpArgs out;
    simdjson::dom::array dims;
    if (obj.at_key("Input Dims").get_array().get(dims) != simdjson::SUCCESS) return std::nullopt;
    auto intsOf = [](simdjson::dom::array arr, std::vector<int64_t>& d) {
        for (simdjson::dom::element v : arr) {
            int64_t n = 0;
            if (v.get_int64().get(n) != simdjson::SUCCESS) return false;
            d.push_back(n);
        }
        return true;
    };
    for (simdjson::dom::element e : dims) {
        std::vector<int64_t> d;
        std::vector<std::vector<int64_t>> list;
        simdjson::dom::array arr;
        if (e.get_array().get(arr) == simdjson::SUCCESS && !intsOf(arr, d)) {
            // A TensorList: a list of the tensors' dims.
            d.clear();
            for (simdjson::dom::element t : arr) {
                simdjson::dom::array inner;
                std::vector<int64_t> td;
                if (t.get_array().get(inner) != simdjson::SUCCESS || !intsOf(inner, td)) return std::nullopt;
                list.push_back(std::move(td));
            }
        }
        if (!list.empty() && out.lists.size() < out.dims.size() + 1) out.lists.resize(out.dims.size() + 1);
        if (!list.empty()) out.lists[out.dims.size()] = std::move(list);
        out.dims.push_back(std::move(d));
    }
    if (!out.lists.empty()) out.lists.resize(out.dims.size());
    for (const char* key : {"Input type", "Concrete Inputs"}) {
        simdjson::dom::array arr;
        if (obj.at_key(key).get_array().get(arr) != simdjson::SUCCESS) continue;
        auto& dst = key[0] == 'I' ? out.types : out.concrete;
        for (simdjson::dom::element e : arr) {
            std::string_view s;
            dst.emplace_back(e.get_string().get(s) == simdjson::SUCCESS ? std::string(s) : std::string());
        }
    }
    return out;
}

std::string_view opFamily(std::string_view op) {
    if (isGemmOp(op) || groupedKind(op)) return "gemm";
    if (attentionOps().count(op)) return "attention";
    if (op == "aten::convolution" || op == "aten::convolution_backward") return "conv";
    if (normOps().count(op)) return "norm";
    if (auto it = simpleOps().find(op); it != simpleOps().end()) {
        switch (it->second) {
        case Simple::Reduce: return "reduction";
        case Simple::Softmax:
        case Simple::SoftmaxBwd: return "softmax";
        case Simple::Embedding:
        case Simple::EmbeddingBwd: return "embedding";
        case Simple::ScaledMm: return "gemm";
        default: return "elementwise";
        }
    }
    return {};
}

OpModelResult opCost(std::string_view op, const OpArgs& a) {
    if (isGemmOp(op)) {
        auto c = gemmCost(op, a.dims, a.types);
        if (!c) return fail(fmt::format("{}: shapes do not fit a matrix product", op));
        return done("gemm", c->flops, c->bytes, c->dtype);
    }
    if (auto g = groupedKind(op)) return groupedCost(op, *g, a);
    if (auto it = attentionOps().find(op); it != attentionOps().end()) return attentionCost(op, it->second, a);
    if (op == "aten::convolution") return convForward(a);
    if (op == "aten::convolution_backward") return convBackward(a);
    if (auto it = normOps().find(op); it != normOps().end()) return normCost(op, it->second, a);
    if (auto it = simpleOps().find(op); it != simpleOps().end()) return simpleCost(op, it->second, a);
    return fail(fmt::format("no model for {}", op));
}

}  // namespace strobe::core
