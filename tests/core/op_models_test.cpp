// Operator FLOP/byte models (core/analysis/op_models) and the per-instance analysis (core/analysis/op_efficiency).
// Hand-built events: each cost worked by hand in the comment (SDPA, FP8 and the other families absent from the
// shared traces). Real traces: per family, the instances, kernels, kernel time, FLOPs and bytes equal an independent
// Python implementation kept beside this test, which also computes TraceLens's formulas for the same instances:
//   /usr/bin/python3 tests/core/op_models_expected.py tests/data/kineto/tracelens/mi300x_resnet_act_checkpoint_rank0of8.json.gz
//   /usr/bin/python3 tests/core/op_models_expected.py tests/data/kineto/memory/tracelens_normalization_layer_test_profile_memory.json.gz
//   /usr/bin/python3 tests/core/op_models_expected.py tests/data/kineto/multirank/cifar100_ddp_4rank_tracefusion_first_quarter.json.gz
#include "core/analysis/op_efficiency.h"
#include "core/analysis/op_models.h"

#include <map>
#include <string>

#include <gtest/gtest.h>

#include "core/engine/run_loader.h"
#include "tests/test_paths.h"

using namespace strobe::core;

namespace {

OpArgs opArgs(std::vector<std::vector<int64_t>> dims, std::vector<std::string> types,
              std::vector<std::string> concrete = {}) {
    OpArgs a;
    a.dims = std::move(dims), a.types = std::move(types), a.concrete = std::move(concrete);
    return a;
}

OpCost costOf(std::string_view op, const OpArgs& a) {
    OpModelResult r = opCost(op, a);
    EXPECT_TRUE(r.cost) << op << ": " << r.why;
    return r.cost ? *r.cost : OpCost{};
}

struct FamilyTotals {
    int64_t instances = 0, kernels = 0;
    TimeNs kernelNs = 0;
    double flops = 0, bytes = 0;
};

std::map<std::string, FamilyTotals> familyTotals(const std::string& rel, TimeNs* total = nullptr,
                                                 TimeNs* modelled = nullptr) {
    RunLoadOptions o;
    o.useCache = false;
    auto d = loadRun({std::string(STROBE_TEST_DATA_DIR) + "/" + rel}, o);
    EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error().toString());
    std::map<std::string, FamilyTotals> out;
    if (!d.ok()) return out;
    for (const auto& r : d.value()->ranks) {
        const OpEfficiency e = opEfficiency(*r);
        if (total) *total += e.totalKernelNs;
        if (modelled) *modelled += e.modelledKernelNs;
        for (const OpInstance& i : e.ops) {
            FamilyTotals& f = out[i.cost.family];
            f.instances += 1, f.kernels += i.kernels, f.kernelNs += i.kernelNs;
            f.flops += i.cost.flops, f.bytes += i.cost.bytes;
        }
    }
    return out;
}

void expectFamily(const std::map<std::string, FamilyTotals>& got, const std::string& family, int64_t instances,
                  int64_t kernels, TimeNs kernelNs, double flops, double bytes) {
    auto it = got.find(family);
    ASSERT_NE(it, got.end()) << family;
    EXPECT_EQ(it->second.instances, instances) << family;
    EXPECT_EQ(it->second.kernels, kernels) << family;
    EXPECT_EQ(it->second.kernelNs, kernelNs) << family;
    EXPECT_NEAR(it->second.flops, flops, flops * 1e-12) << family;
    EXPECT_NEAR(it->second.bytes, bytes, bytes * 1e-12) << family;
}

}  // namespace

TEST(OpModels, AttentionByHand) {
    // SDPA q, k, v [B 2, H 8, N 128, d 64] bf16, is_causal (argument 5) true: 2·2·8·128·128·(64 + 64) / 2 = 33,554,432;
    // bytes (q + k + v + out) = 4 · 131,072 elements · 2 B = 1,048,576.
    const std::vector<int64_t> qkv{2, 8, 128, 64};
    auto c = costOf("aten::scaled_dot_product_attention",
                    opArgs({qkv, qkv, qkv, {}, {}, {}, {}}, {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "",
                                                             "Scalar", "Scalar", "", "Scalar"},
                           {"", "", "", "", "0.", "True", "", "False"}));
    EXPECT_EQ(c.family, "attention");
    EXPECT_DOUBLE_EQ(c.flops, 33554432.0);
    EXPECT_DOUBLE_EQ(c.bytes, 1048576.0);
    EXPECT_EQ(c.dtype, "bf16");
    // Not causal: twice the FLOPs.
    c = costOf("aten::_scaled_dot_product_flash_attention",
               opArgs({qkv, qkv, qkv}, {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16"}, {"", "", "", "0.", "False"}));
    EXPECT_DOUBLE_EQ(c.flops, 67108864.0);
    // Backward (grad_out, q, k, v, out, ...), is_causal argument 11 false: 2·2·8·128·128·(3·64 + 2·64) = 167,772,160;
    // bytes (2·(q + k + v) + dO) = 7 · 131,072 · 2 B = 1,835,008.
    std::vector<std::string> concrete(12, "");
    concrete[11] = "False";
    c = costOf("aten::_scaled_dot_product_flash_attention_backward",
               opArgs({qkv, qkv, qkv, qkv, qkv, {2, 8, 128}}, {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16",
                                                               "c10::BFloat16", "c10::BFloat16", "float"},
                      concrete));
    EXPECT_DOUBLE_EQ(c.flops, 167772160.0);
    EXPECT_DOUBLE_EQ(c.bytes, 1835008.0);
    // flash_attn's [B, N, H, d] with grouped-query heads: q [1, 256, 32, 128], k/v [1, 256, 8, 128], causal
    // (argument 5): 2·1·32·256·256·(128 + 128) / 2 = 536,870,912; bytes (1,048,576 + 2·262,144 + 1,048,576) · 2 B.
    c = costOf("flash_attn::_flash_attn_forward",
               opArgs({{1, 256, 32, 128}, {1, 256, 8, 128}, {1, 256, 8, 128}},
                      {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16"}, {"", "", "", "0.0", "0.088", "True"}));
    EXPECT_DOUBLE_EQ(c.flops, 536870912.0);
    EXPECT_DOUBLE_EQ(c.bytes, 5242880.0);
    // Causal with fewer queries than keys (decode) is not modelled: the halving would be wrong.
    OpModelResult r = opCost("aten::_scaled_dot_product_flash_attention",
                             opArgs({{1, 8, 1, 64}, {1, 8, 128, 64}, {1, 8, 128, 64}}, {"float", "float", "float"},
                                    {"", "", "", "0.", "True"}));
    EXPECT_FALSE(r.cost);
    EXPECT_NE(r.why.find("causal"), std::string::npos) << r.why;
}

TEST(OpModels, GemmConvolutionAndTheRestByHand) {
    // _scaled_mm [64, 128] fp8 × [128, 256] fp8: 2·64·256·128 = 4,194,304; bytes 8,192 + 32,768 + 64·256·2 = 73,728.
    auto c = costOf("aten::_scaled_mm", opArgs({{64, 128}, {128, 256}, {}, {}}, {"c10::Float8_e4m3fn",
                                                                                 "c10::Float8_e4m3fn", "float", "float"}));
    EXPECT_EQ(c.family, "gemm");
    EXPECT_EQ(c.dtype, "fp8");
    EXPECT_DOUBLE_EQ(c.flops, 4194304.0);
    EXPECT_DOUBLE_EQ(c.bytes, 73728.0);
    // Convolution x [1, 3, 8, 8], w [4, 3, 3, 3], stride 2, padding 1: out (8 + 2 − 2 − 1) / 2 + 1 = 4, y [1, 4, 4, 4];
    // 2·64·27 = 3,456 FLOPs; bytes (192 + 108 + 64)·4 = 1,456.
    const std::vector<std::string> conv{"", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"};
    c = costOf("aten::convolution", opArgs({{1, 3, 8, 8}, {4, 3, 3, 3}, {}}, {"float", "float", ""}, conv));
    EXPECT_DOUBLE_EQ(c.flops, 3456.0);
    EXPECT_DOUBLE_EQ(c.bytes, 1456.0);
    // Its backward (dy [1, 4, 4, 4], x, w): input and weight gradients 2·3,456; bytes 2·(64 + 192 + 108)·4 = 2,912.
    c = costOf("aten::convolution_backward",
               opArgs({{1, 4, 4, 4}, {1, 3, 8, 8}, {4, 3, 3, 3}, {}}, {"float", "float", "float", "ScalarList"}));
    EXPECT_DOUBLE_EQ(c.flops, 6912.0);
    EXPECT_DOUBLE_EQ(c.bytes, 2912.0);
    // Without Concrete Inputs (the 2021 schema) the output size is unknown: unmodelled, with the reason.
    OpModelResult r = opCost("aten::convolution", opArgs({{1, 3, 8, 8}, {4, 3, 3, 3}, {}}, {"float", "float", ""}));
    EXPECT_FALSE(r.cost);
    EXPECT_NE(r.why.find("Concrete Inputs"), std::string::npos) << r.why;
    // Layer norm x [4, 1024] bf16 over [1024] with weight and bias: 2·4,096 + 6·1,024 + 3·4,096 = 26,624 FLOPs;
    // bytes (2·4,096 + 6·1,024)·2 = 28,672.
    c = costOf("aten::layer_norm", opArgs({{4, 1024}, {}, {1024}, {1024}, {}}, {"c10::BFloat16", "ScalarList",
                                                                               "c10::BFloat16", "c10::BFloat16", "Scalar"},
                                          {"", "[1024]", "", "", "1e-05"}));
    EXPECT_EQ(c.family, "norm");
    EXPECT_DOUBLE_EQ(c.flops, 26624.0);
    EXPECT_DOUBLE_EQ(c.bytes, 28672.0);
    // Embedding weight [1000, 64] float, indices [4, 16] int64: 64·8 + 2·64·64·4 = 33,280 bytes, no FLOPs.
    c = costOf("aten::embedding", opArgs({{1000, 64}, {4, 16}}, {"float", "long int"}));
    EXPECT_EQ(c.family, "embedding");
    EXPECT_DOUBLE_EQ(c.flops, 0.0);
    EXPECT_DOUBLE_EQ(c.bytes, 33280.0);
    // Broadcast add [8, 1, 16] + [4, 1] float → [8, 4, 16]: 512 FLOPs; 128·4 + 4·4 + 512·4 = 2,576 bytes.
    c = costOf("aten::add", opArgs({{8, 1, 16}, {4, 1}, {}}, {"float", "float", "Scalar"}));
    EXPECT_EQ(c.family, "elementwise");
    EXPECT_DOUBLE_EQ(c.flops, 512.0);
    EXPECT_DOUBLE_EQ(c.bytes, 2576.0);
    // A Python scalar operand costs no traffic: mul [10] × 2.0 = 10 FLOPs, 80 bytes.
    c = costOf("aten::mul", opArgs({{10}, {}}, {"float", "Scalar"}));
    EXPECT_DOUBLE_EQ(c.bytes, 80.0);
    // sum [8, 16] over dim 1: 128 FLOPs, (128 + 8)·4 = 544 bytes.
    c = costOf("aten::sum", opArgs({{8, 16}, {}, {}, {}}, {"float", "ScalarList", "Scalar", ""}, {"", "[1]", "False", ""}));
    EXPECT_EQ(c.family, "reduction");
    EXPECT_DOUBLE_EQ(c.bytes, 544.0);
    // softmax [32, 100] half: 3·3,200 = 9,600 FLOPs; 2·3,200·2 = 12,800 bytes.
    c = costOf("aten::_softmax", opArgs({{32, 100}, {}, {}}, {"c10::Half", "Scalar", "Scalar"}));
    EXPECT_EQ(c.family, "softmax");
    EXPECT_DOUBLE_EQ(c.flops, 9600.0);
    EXPECT_DOUBLE_EQ(c.bytes, 12800.0);
    EXPECT_EQ(opFamily("vllm::unified_attention_with_output"), "");
}

// Grouped GEMMs of MoE (absent from the shared traces): hand-built events, each cost worked by hand.
TEST(OpModels, GroupedGemmByHand) {
    const std::string bf = "c10::BFloat16", f8 = "c10::Float8_e4m3fn";
    // _grouped_mm 2-D × 3-D: a [96, 64] × b [4, 64, 32], offs [4]: 2·96·32·64 = 393,216 FLOPs;
    // bytes 96·64·2 + 4·64·32·2 + 96·32·2 = 12,288 + 16,384 + 6,144 = 34,816.
    auto c = costOf("aten::_grouped_mm", opArgs({{96, 64}, {4, 64, 32}, {4}, {}, {}}, {bf, bf, "int", "", ""}));
    EXPECT_EQ(c.family, "gemm");
    EXPECT_EQ(c.dtype, "bf16");
    EXPECT_DOUBLE_EQ(c.flops, 393216.0);
    EXPECT_DOUBLE_EQ(c.bytes, 34816.0);
    // 3-D × 3-D: a [4, 16, 64] × b [4, 64, 32]: 2·4·16·32·64 = 262,144; bytes 4·(2,048 + 4,096) + 4·16·32·2 = 28,672.
    c = costOf("aten::_grouped_mm", opArgs({{4, 16, 64}, {4, 64, 32}, {}, {}, {}}, {bf, bf, "", "", ""}));
    EXPECT_DOUBLE_EQ(c.flops, 262144.0);
    EXPECT_DOUBLE_EQ(c.bytes, 28672.0);
    // 3-D × 2-D: a [4, 16, 64] × b [64, 96], offs [4]: 2·16·96·64 = 196,608;
    // bytes 4·16·64·2 + 64·96·2 + 16·96·2 = 8,192 + 12,288 + 3,072 = 23,552.
    c = costOf("aten::_grouped_mm", opArgs({{4, 16, 64}, {64, 96}, {4}, {}, {}}, {bf, bf, "int", "", ""}));
    EXPECT_DOUBLE_EQ(c.flops, 196608.0);
    EXPECT_DOUBLE_EQ(c.bytes, 23552.0);
    // 2-D × 2-D (the weight gradient): a [16, 256] × b [256, 32], offs [4] → [4, 16, 32]: 2·16·32·256 = 262,144;
    // bytes (4,096 + 8,192)·2 + 4·16·32·2 = 24,576 + 4,096 = 28,672.
    c = costOf("aten::_grouped_mm", opArgs({{16, 256}, {256, 32}, {4}, {}, {}}, {bf, bf, "int", "", ""}));
    EXPECT_DOUBLE_EQ(c.flops, 262144.0);
    EXPECT_DOUBLE_EQ(c.bytes, 28672.0);
    // FP8: _scaled_grouped_mm a [96, 64] × b [4, 64, 32] e4m3, scales, offs at argument 4: 393,216 FLOPs;
    // bytes 96·64 + 4·64·32 + 96·32·2 (bf16 result) = 6,144 + 8,192 + 6,144 = 20,480.
    c = costOf("aten::_scaled_grouped_mm",
               opArgs({{96, 64}, {4, 64, 32}, {96}, {4, 32}, {4}}, {f8, f8, "float", "float", "int"}));
    EXPECT_EQ(c.dtype, "fp8");
    EXPECT_DOUBLE_EQ(c.flops, 393216.0);
    EXPECT_DOUBLE_EQ(c.bytes, 20480.0);
    // fbgemm stacked: X [96, 64] × W [4, 32, 64], M_sizes [4]: 2·96·32·64 = 393,216;
    // bytes (6,144 + 8,192)·2 + 96·32·2 = 28,672 + 6,144 = 34,816.
    c = costOf("fbgemm::bf16bf16bf16_grouped_stacked", opArgs({{96, 64}, {4, 32, 64}, {4}}, {bf, bf, "long int"}));
    EXPECT_DOUBLE_EQ(c.flops, 393216.0);
    EXPECT_DOUBLE_EQ(c.bytes, 34816.0);
    // fbgemm TensorLists, read from the args as the profiler writes them: X [[8, 64], [24, 64]], W [[32, 64], [16, 64]]:
    // 2·8·32·64 + 2·24·16·64 = 32,768 + 49,152 = 81,920 FLOPs; bytes (1,024 + 4,096 + 512) + (3,072 + 2,048 + 768)
    // = 11,520 (bf16 from the name).
    auto args = opArgsOf(R"({"Input Dims": [[[8, 64], [24, 64]], [[32, 64], [16, 64]]], "Input type": ["TensorList", "TensorList"]})");
    ASSERT_TRUE(args);
    ASSERT_EQ(args->lists.size(), 2u);
    c = costOf("fbgemm::bf16bf16bf16_grouped", *args);
    EXPECT_EQ(c.dtype, "bf16");
    EXPECT_DOUBLE_EQ(c.flops, 81920.0);
    EXPECT_DOUBLE_EQ(c.bytes, 11520.0);
    // vLLM fused experts: hidden [4, 64], w1 [8, 256, 64], w2 [8, 64, 128], topk_weights, topk_ids [4, 2]:
    // 2·4·2·256·64 + 2·4·2·64·128 = 262,144 + 131,072 = 393,216 FLOPs; min(8, 4·2) = 8 experts:
    // bytes 2·4·64·2 + (256·64 + 64·128)·8·2 = 1,024 + 393,216 = 394,240.
    c = costOf("vllm::outplace_fused_experts",
               opArgs({{4, 64}, {8, 256, 64}, {8, 64, 128}, {4, 2}, {4, 2}}, {bf, bf, bf, "float", "int"}));
    EXPECT_DOUBLE_EQ(c.flops, 393216.0);
    EXPECT_DOUBLE_EQ(c.bytes, 394240.0);
    // One token, top-2: 2·2·256·64 + 2·2·64·128 = 98,304 FLOPs; 2 experts: 256 + 24,576·2·2 = 98,560 bytes.
    c = costOf("vllm::inplace_fused_experts",
               opArgs({{1, 64}, {8, 256, 64}, {8, 64, 128}, {1, 2}, {1, 2}}, {bf, bf, bf, "float", "int"}));
    EXPECT_DOUBLE_EQ(c.flops, 98304.0);
    EXPECT_DOUBLE_EQ(c.bytes, 98560.0);
    // Shapes that do not determine the FLOPs: unmodelled, with the reason.
    OpModelResult r = opCost("fbgemm::bf16bf16bf16_grouped_dynamic", opArgs({{4, 32, 64}, {4, 32, 64}, {4}}, {bf, bf, "long int"}));
    EXPECT_FALSE(r.cost);
    EXPECT_NE(r.why.find("zero_start_index_M"), std::string::npos) << r.why;
    EXPECT_EQ(opFamily("aiter::fmoe"), "gemm");
    r = opCost("aiter::fmoe", opArgs({{4, 64}}, {bf}));
    EXPECT_FALSE(r.cost);
    EXPECT_NE(r.why.find("tokens per expert"), std::string::npos) << r.why;
    EXPECT_EQ(opFamily("aiter::moe_sorting"), "");
    r = opCost("aten::_grouped_mm", opArgs({{96, 64}, {4, 48, 32}}, {bf, bf}));  // K differs
    EXPECT_FALSE(r.cost);
}

// TraceLens's MI300X ResNet (activation checkpointing, rank 0 of 8): the Python implementation gives the same totals,
// and TraceLens's formulas give the same FLOPs and bytes for GEMM, convolution and normalisation (equal: ratio 1).
TEST(OpEfficiency, ResNetMi300xMatchesPythonAndTraceLens) {
    TimeNs total = 0, modelled = 0;
    const auto got = familyTotals("kineto/tracelens/mi300x_resnet_act_checkpoint_rank0of8.json.gz", &total, &modelled);
    expectFamily(got, "conv", 177, 1239, 10057056, 428173885440.0, 1330677120.0);
    expectFamily(got, "elementwise", 537, 537, 2210169, 292471533.0, 1713028062.0);
    expectFamily(got, "gemm", 9, 9, 61071, 92160000.0, 9488160.0);
    expectFamily(got, "norm", 177, 411, 6465671, 1295465088.0, 947279616.0);
    expectFamily(got, "reduction", 9, 9, 64231, 812640.0, 1662006.0);
    EXPECT_EQ(modelled, 10057056 + 2210169 + 61071 + 6465671 + 64231);
    EXPECT_EQ(total, 97255826);  // the rest: 73.5 % one long all-reduce, 752 kernels with no launching call
}

// TraceLens's normalization test (MI300X): equal to Python. TraceLens's formulas give 50,926,032 FLOPs and
// 78,978,624 bytes for the same 60 instances (6.5 % and 4.1 % fewer): it counts weight and bias of every norm as
// present, and for native_batch_norm_backward reads "training" as bool() of its text; here they are counted only when
// the trace records them (see op_models.h).
TEST(OpEfficiency, NormalizationTraceMatchesPythonAndShowsTraceLensDifference) {
    const auto got = familyTotals("kineto/memory/tracelens_normalization_layer_test_profile_memory.json.gz");
    expectFamily(got, "norm", 60, 120, 815582, 54463680.0, 82313856.0);
    expectFamily(got, "elementwise", 30, 30, 81050, 67782.0, 2386332.0);
    expectFamily(got, "reduction", 9, 9, 57315, 393984.0, 1576332.0);
    const double traceLensFlops = 50926032.0, traceLensBytes = 78978624.0;
    EXPECT_NEAR(got.at("norm").flops / traceLensFlops, 1.0695, 0.001);
    EXPECT_NEAR(got.at("norm").bytes / traceLensBytes, 1.0422, 0.001);
}

// The CIFAR-100 DDP run merged by TraceFusion (4 ranks, fp16): convolution, GEMM and softmax equal TraceLens's;
// normalisation differs (TraceLens 2,091,292,416 FLOPs, 1,859,564,032 bytes): TraceLens takes miopen_batch_norm_backward
// as not training (no input-gradient term), here every batch-norm backward computes it (9·N).
TEST(OpEfficiency, CifarDdpFourRanksMatchesPython) {
    const auto got = familyTotals("kineto/multirank/cifar100_ddp_4rank_tracefusion_first_quarter.json.gz");
    expectFamily(got, "conv", 424, 1660, 43217135, 512476839936.0, 3293409792.0);
    expectFamily(got, "elementwise", 1857, 1857, 7810031, 731337583.0, 5736171772.0);
    expectFamily(got, "gemm", 12, 24, 132835, 1258291200.0, 18112512.0);
    expectFamily(got, "norm", 424, 424, 5340322, 3252271616.0, 2324720640.0);
    expectFamily(got, "reduction", 12, 12, 105436, 2200576.0, 8598320.0);
    expectFamily(got, "softmax", 8, 8, 40901, 921600.0, 1228800.0);
}

// TraceLens's vLLM prefill+decode trace: unified_attention_with_output's shapes lack per-sequence lengths, and the
// kernels replayed by graph launches have no operator: both unmodelled, each with its reason.
TEST(OpEfficiency, UnmodelledOpsSayWhy) {
    RunLoadOptions o;
    o.useCache = false;
    auto d = loadRun({std::string(STROBE_TEST_DATA_DIR) + "/kineto/graphs/tracelens_vllm_prefilldecode_piecewise_graph_execution.json.gz"}, o);
    ASSERT_TRUE(d.ok()) << d.error().toString();
    const OpEfficiency e = opEfficiency(*d.value()->ranks[0]);
    std::map<std::string, std::string> why;
    for (const UnmodelledOp& u : e.unmodelled) why[u.op] = u.why;
    EXPECT_NE(why["vllm::unified_attention_with_output"].find("per-sequence"), std::string::npos);
    EXPECT_NE(why["(no CPU op)"].find("graph launch"), std::string::npos);
    EXPECT_EQ(e.ops.size(), 3u);
}
