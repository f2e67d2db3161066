// The structural diff (issue 22, core/analysis/structural_diff.h) on real traces, against the independent Python
// computations in tests/data/expected/diff/ (resnet_v100_mi300x.py: json + gzip; seismic.py: csv).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/analysis/structural_diff.h"
#include "core/engine/run_loader.h"
#include "tests/test_paths.h"

namespace strobe::core {
namespace {

TEST(NormalizedOpName, OneRuleAcrossVersionsAndBackends) {
    EXPECT_EQ(normalizedOpName("aten::conv2d"), "aten::conv2d");
    EXPECT_EQ(normalizedOpName("ConvolutionBackward0"), "ConvolutionBackward");
    EXPECT_EQ(normalizedOpName("CudnnConvolutionBackward"), "ConvolutionBackward");
    EXPECT_EQ(normalizedOpName("MiopenConvolutionBackward0"), "ConvolutionBackward");
    EXPECT_EQ(normalizedOpName("NativeBatchNormBackward1"), "BatchNormBackward");
    EXPECT_EQ(normalizedOpName("ReluBackward1"), "ReluBackward");
    EXPECT_EQ(normalizedOpName("autograd::engine::evaluate_function: AddmmBackward0"), "AddmmBackward");
    EXPECT_EQ(normalizedOpName("aten::cudnn_convolution"), "aten::convolution");
    EXPECT_EQ(normalizedOpName("aten::miopen_convolution"), "aten::convolution");
    EXPECT_EQ(normalizedOpName("aten::cudnn_batch_norm"), "aten::batch_norm");
    EXPECT_EQ(normalizedOpName("aten::native_batch_norm"), "aten::batch_norm");
    EXPECT_EQ(normalizedOpName("aten::cudnn_"), "aten::cudnn_");  // nothing left after the prefix: unchanged
    EXPECT_EQ(normalizedOpName("torch::autograd::AccumulateGrad"), "torch::autograd::AccumulateGrad");
    EXPECT_EQ(normalizedOpName("CudaBackward"), "CudaBackward");  // too short to be a prefix plus a node name
}

RunEntry loadEntry(const std::string& label, const std::string& relative) {
    RunLoadOptions options;
    options.useCache = false;
    const std::string path = std::string(STROBE_TEST_DATA_DIR) + "/" + relative;
    auto d = loadRun({path}, options);
    EXPECT_TRUE(d.ok()) << path;
    RunEntry e;
    e.label = label;
    e.paths = {path};
    if (d.ok()) e.dataset = *d;
    return e;
}

std::map<std::string, const DiffNode*> byPath(const StructuralDiff& d) {
    std::map<std::string, const DiffNode*> out;
    for (size_t i = 0; i < d.nodes.size(); ++i) {
        std::string key;
        for (const auto& n : d.path(i)) key += (key.empty() ? "" : " > ") + n;
        out[key] = &d.nodes[i];
    }
    return out;
}

// V100 ResNet-50 (PyTorch 1.9 era: CudnnConvolutionBackward, aten::cudnn_convolution) against the MI300X ResNet
// (newer PyTorch: autograd::engine::evaluate_function wrappers, aten::miopen_convolution, activation
// checkpointing): the convolution and batch-norm subtrees match by call site, with Python's per-step GPU times and
// counts on both sides; their kernels, named differently on each vendor, are added/removed beneath them.
TEST(StructuralDiff, ResNetV100AgainstMI300XMatchesCallSitesAsPython) {
    const RunEntry a = loadEntry("v100", "kineto/kineto-configs/resnet50_num_workers_0");
    const RunEntry b = loadEntry("mi300x", "kineto/tracelens");
    ASSERT_TRUE(a.dataset && b.dataset);
    const StructuralDiff d = structuralDiff({&a}, {&b});
    EXPECT_FALSE(d.byKernelName);
    EXPECT_EQ(d.a.steps, 6u);
    EXPECT_EQ(d.b.steps, 3u);
    const auto nodes = byPath(d);

    simdjson::dom::parser parser;
    simdjson::dom::element expected;
    const std::string file = std::string(STROBE_TEST_DATA_DIR) + "/expected/diff/resnet_v100_mi300x.json";
    ASSERT_EQ(parser.load(file).get(expected), simdjson::SUCCESS) << file;
    size_t compared = 0;
    for (const auto& [side, isA] : {std::pair<const char*, bool>{"v100", true}, {"mi300x", false}}) {
        double total = 0;
        ASSERT_EQ(expected[side]["gpu_ns_per_step"].get(total), simdjson::SUCCESS);
        EXPECT_NEAR(isA ? d.a.totalNs : d.b.totalNs, total, 1.0) << side;
        simdjson::dom::object tree;
        ASSERT_EQ(expected[side]["nodes"].get(tree), simdjson::SUCCESS);
        for (auto [key, value] : tree) {
            const std::string path(key);
            double ns = 0, count = 0;
            ASSERT_EQ(value["per_step_ns"].get(ns), simdjson::SUCCESS);
            ASSERT_EQ(value["count"].get(count), simdjson::SUCCESS);
            auto it = nodes.find(path);
            ASSERT_NE(it, nodes.end()) << side << ": " << path;
            EXPECT_NEAR(isA ? it->second->perStepNsA : it->second->perStepNsB, ns, 1.0) << side << ": " << path;
            EXPECT_NEAR(isA ? it->second->countA : it->second->countB, count, 1e-9) << side << ": " << path;
            ++compared;
        }
    }
    EXPECT_EQ(compared, 25u);
    // Matched by call site on both sides (slower on the V100: fp32 at a larger batch vs bf16 on the MI300X).
    for (const char* site : {"aten::conv2d", "aten::conv2d > aten::convolution > aten::_convolution > aten::convolution",
                             "aten::batch_norm", "aten::batch_norm > aten::_batch_norm_impl_index > aten::batch_norm",
                             "ConvolutionBackward", "ConvolutionBackward > aten::convolution_backward",
                             "BatchNormBackward", "BatchNormBackward > aten::batch_norm_backward"}) {
        ASSERT_TRUE(nodes.count(site)) << site;
        EXPECT_EQ(nodes.at(site)->status, DiffStatus::Changed) << site;
        EXPECT_LT(nodes.at(site)->deltaNs(), 0.0) << site;
    }
    // Beneath the matched forward convolution, every kernel is one vendor's: added or removed, none matched.
    const DiffNode* conv = nodes.at("aten::conv2d > aten::convolution > aten::_convolution > aten::convolution");
    size_t leaves = 0;
    for (int c : conv->children) {
        const DiffNode& k = d.nodes[size_t(c)];
        if (!k.leaf) continue;
        ++leaves;
        EXPECT_TRUE(k.status == DiffStatus::Added || k.status == DiffStatus::Removed) << k.name;
    }
    EXPECT_GT(leaves, 10u);
    EXPECT_GT(d.matched, 20u);
    EXPECT_GT(d.timeShareA, 0.3);
    EXPECT_GT(d.timeShareB, 0.1);
    // Tree order: every node after its parent, children by their larger time per step.
    for (size_t i = 0; i < d.nodes.size(); ++i) {
        if (d.nodes[i].parent >= 0) {
            EXPECT_LT(static_cast<size_t>(d.nodes[i].parent), i);
        }
        const auto& kids = d.nodes[i].children;
        for (size_t k = 1; k < kids.size(); ++k) {
            const DiffNode &x = d.nodes[size_t(kids[k - 1])], &y = d.nodes[size_t(kids[k])];
            EXPECT_GE(std::max(x.perStepNsA, x.perStepNsB), std::max(y.perStepNsA, y.perStepNsB));
        }
    }
}

// Two DataLoader settings of one workload on the V100: the model's GPU work is the same, so every call site is
// `same` (cuDNN's autotuner picks other kernels beneath some of them) but the input batch's copy to the GPU
// (aten::to > aten::copy_, a host-to-device memcpy), 1.9 -> 3.2 ms per step with four loader workers.
TEST(StructuralDiff, TwoConfigurationsOfOneWorkloadHaveTheSameCallSites) {
    const RunEntry a = loadEntry("num_workers=0", "kineto/kineto-configs/resnet50_num_workers_0");
    const RunEntry b = loadEntry("num_workers=4", "kineto/kineto-configs/resnet50_num_workers_4");
    const StructuralDiff d = structuralDiff({&a}, {&b});
    size_t ops = 0;
    for (const DiffNode& n : d.nodes) {
        if (n.leaf || n.name == "(no operator)") continue;
        ++ops;
        if (n.name == "aten::to" || n.name == "aten::copy_") {
            EXPECT_EQ(n.status, DiffStatus::Changed) << n.name;
            EXPECT_GT(n.deltaNs(), 1e6) << n.name;
            continue;
        }
        EXPECT_EQ(n.status, DiffStatus::Same) << n.name << " " << n.perStepNsA << " " << n.perStepNsB;
    }
    EXPECT_GT(ops, 30u);
    EXPECT_NEAR(d.timeShareA, 1.0, 1e-9);
}

const std::string kSeismic = "diff/seismic-stencils/";
const std::string k128a = "03-05-2024_11:34:34_stencils_R_4_vec_2.x_512_512_512_100_128_64_1";
const std::string k128b = "03-05-2024_11:42:38_stencils_R_4_vec_2.x_512_512_512_100_128_64_1";
const std::string k64 = "13-12-2023_15:20:58_stencils_R_4_vec_2.x_512_512_512_100_64_64_1";

// Two repeats of one configuration, kernel traces without CPU operators: a flat diff by kernel name, every row
// `same` within the noise (10 %: the x kernel differs by 8.6 % between these two repeats).
TEST(StructuralDiff, TwoRunsOfOneConfigurationAreSameByKernelName) {
    const RunEntry a = loadEntry("rep0", kSeismic + k128a + "/results.csv");
    const RunEntry b = loadEntry("rep1", kSeismic + k128b + "/results.csv");
    const StructuralDiff d = structuralDiff({&a}, {&b});
    EXPECT_TRUE(d.byKernelName);
    EXPECT_TRUE(d.a.perRun && d.b.perRun);
    ASSERT_FALSE(d.messages.empty());
    EXPECT_NE(d.messages.front().find("no CPU operators"), std::string::npos) << d.messages.front();
    ASSERT_EQ(d.nodes.size(), 13u);
    for (const DiffNode& n : d.nodes) {
        EXPECT_TRUE(n.leaf);
        EXPECT_EQ(n.parent, -1);
        EXPECT_EQ(n.status, DiffStatus::Same) << n.name << " " << n.perStepNsA << " " << n.perStepNsB;
    }
    EXPECT_EQ(d.matched, 13u);
}

// The two configurations, repeats pooled, against Python's per-kernel time per run.
TEST(StructuralDiff, PooledRepeatsMatchPythonPerRun) {
    const RunEntry a0 = loadEntry("rep0", kSeismic + k128a + "/results.csv");
    const RunEntry a1 = loadEntry("rep1", kSeismic + k128b + "/results.csv");
    const RunEntry b = loadEntry("64x64", kSeismic + k64 + "/results.csv");
    const StructuralDiff d = structuralDiff({&a0, &a1}, {&b});
    EXPECT_EQ(d.a.runs, 2u);
    EXPECT_EQ(d.a.steps, 2u);
    const auto nodes = byPath(d);
    simdjson::dom::parser parser;
    simdjson::dom::element expected;
    ASSERT_EQ(parser.load(std::string(STROBE_TEST_DATA_DIR) + "/expected/diff/seismic.json").get(expected),
              simdjson::SUCCESS);
    for (const auto& [config, isA] : {std::pair<const char*, bool>{"work_group_128_64", true}, {"work_group_64_64", false}}) {
        simdjson::dom::object kernels;
        ASSERT_EQ(expected[config]["kernels"].get(kernels), simdjson::SUCCESS);
        for (auto [name, value] : kernels) {
            double ns = 0, count = 0;
            ASSERT_EQ(value["per_run_ns"].get(ns), simdjson::SUCCESS);
            ASSERT_EQ(value["count"].get(count), simdjson::SUCCESS);
            auto it = nodes.find(std::string(name));
            ASSERT_NE(it, nodes.end()) << name;
            EXPECT_NEAR(isA ? it->second->perStepNsA : it->second->perStepNsB, ns, 0.5) << name;
            EXPECT_NEAR(isA ? it->second->countA : it->second->countB, count, 1e-9) << name;
        }
    }
    EXPECT_EQ(nodes.at("compute_fd_xy_kernel")->status, DiffStatus::Added);
    EXPECT_EQ(nodes.at("compute_fd_x_vec_kernel")->status, DiffStatus::Removed);
    EXPECT_EQ(nodes.at("compute_fd_y_kernel")->status, DiffStatus::Changed);
}

}  // namespace
}  // namespace strobe::core
