#pragma once
// Structural diff (issue 22): two runs, or two configurations of a sweep, compared as the tree of CPU operators by
// call site with the GPU work launched beneath each node. Like TraceLens's TraceDiff the trees are matched by
// position (the path of operator names from the root), so that call sites match across GPU vendors (kernel names
// differ entirely between CUDA and ROCm; aten::conv2d does not) and across PyTorch versions (autograd node names
// normalised: normalizedOpName).
//
// The tree: one node per distinct path of normalised CPU-operator names, from the outermost operator of a step
// (ProfilerStep#N ranges are not call sites) down to the innermost operator that launched GPU work; every instance
// with that path is pooled into the node (siblings of one name are one node). Under each operator node, one leaf per
// GPU activity name (kernel, memcpy or memset) it launched itself. An operator whose normalised name is the one of
// the operator just above it is that call site (newer PyTorch's "autograd::engine::evaluate_function: X0" around
// "X0"; old traces have X0 alone): consecutive equal names on a path are one node. GPU activity launched by no
// operator is under the root "(no operator)".
// A node's time: the durations of the kernels, memcpy and memset launched within its subtree, in kept steps (a GPU
// activity's step is the merge's GpuTable::step), divided by the number of kept steps (ProfilerStep#N numbers over
// the side's runs; a run without steps counts as one: "per run"). Its count: the operator instances (CPU operators
// starting inside a kept step of their rank) or GPU activities of the leaf, per kept step. Nodes with no GPU time on
// either side are left out (without any GPU activity on both sides, a node's time is its operators' CPU duration).
// A side without CPU operators (rocprofv3, nsys or rocprof kernel traces) makes the diff flat: one row per GPU
// activity name (messages say so).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/run_set.h"

namespace strobe::core {

// An operator name as a call site, the same on every backend and PyTorch version (one rule, used by the diff and
// by --group-by op):
//   - "autograd::engine::evaluate_function: X" (newer PyTorch's wrapper of autograd nodes) is X;
//   - an autograd node (a name with "Backward" and no "::") loses its trailing digits (the version suffix:
//     "ConvolutionBackward0" -> "ConvolutionBackward") and then one backend prefix Cudnn, Miopen, Native, Mkldnn,
//     Thnn or Cuda ("CudnnConvolutionBackward", "MiopenConvolutionBackward0" -> "ConvolutionBackward");
//   - a namespaced operator whose last component starts with the backend prefix cudnn_, miopen_ or native_ loses
//     it ("aten::cudnn_convolution", "aten::miopen_convolution" -> "aten::convolution"; "aten::cudnn_batch_norm",
//     "aten::native_batch_norm" -> "aten::batch_norm").
// Anything else is unchanged.
std::string normalizedOpName(std::string_view name);

enum class DiffStatus { Same, Changed, Added, Removed };
std::string_view toString(DiffStatus s);  // "same", "changed", "added", "removed"

// One instance of a node in one run of a side, for navigation: the run (index into the side's runs), its rank
// (index into Dataset::ranks), and the CPU slice (operator nodes) or GPU row (leaves).
struct DiffInstance {
    int run = -1;
    int rank = -1;
    int64_t index = -1;
    bool gpu = false;
    int64_t ts = 0;
    int64_t dur = 0;
    bool valid() const { return run >= 0; }
};

struct DiffNode {
    std::string name;              // normalised operator name, or GPU activity name (leaves)
    bool leaf = false;             // a GPU activity name (kernel, memcpy, memset), not an operator
    int parent = -1;               // index into StructuralDiff::nodes
    int depth = 0;
    std::vector<int> children;     // tree order: largest max(per-step a, b) first, then by name
    double countA = 0, countB = 0; // instances per kept step
    double perStepNsA = 0, perStepNsB = 0;
    double deltaNs() const { return perStepNsB - perStepNsA; }
    DiffStatus status = DiffStatus::Same;
    DiffInstance firstA, firstB;   // the earliest instance on each side
};

struct DiffSide {
    std::string label;
    std::vector<std::string> paths;
    size_t runs = 0;
    size_t steps = 0;        // kept steps over the side's runs (a run without steps counts 1)
    bool perRun = false;     // some run has no ProfilerStep#N: its whole run counts as one step
    bool cpuOps = false;     // the side has CPU operators
    double totalNs = 0;      // GPU time per step over the whole tree
    size_t nodes = 0;        // nodes present on this side
};

struct DiffOptions {
    int skipSteps = 0;               // drop the first N step numbers of every run
    // "same within noise": |Δ| < max(noiseFraction x max(a, b), noiseFloorNs) and the count per step differs by
    // less than noiseFraction x max(count a, count b) (or 0.5 instance). 10 %: the repeats of one configuration of
    // the seismic-stencils sweep (MI250X, tests/data/diff) differ by up to 8.6 % in one kernel's time (99.5 vs
    // 108.1 ms), the others by under 0.5 %; the floor keeps µs-sized nodes from flickering.
    double noiseFraction = 0.10;
    double noiseFloorNs = 5000;
};

struct StructuralDiff {
    DiffSide a, b;
    bool byKernelName = false;         // a side had no CPU operators: a flat diff by GPU activity name
    bool cpuTime = false;              // no GPU activity on either side: node times are CPU operator durations
    std::vector<DiffNode> nodes;       // tree order (pre-order); the roots are those with parent -1
    size_t matched = 0;                // nodes present on both sides
    // The share of each side's GPU time per step launched by operators matched on both sides (by kernel name:
    // held by kernel names found on both sides).
    double timeShareA = 0, timeShareB = 0;
    std::vector<std::string> messages;
    // The normalised operator names from the root to node i (the leaf's GPU activity name last).
    std::vector<std::string> path(size_t i) const;
};

// The runs of side a against those of side b (several runs on a side are pooled: their kept steps together).
// Runs without a dataset are left out.
StructuralDiff structuralDiff(const std::vector<const RunEntry*>& a, const std::vector<const RunEntry*>& b,
                              const DiffOptions& options = {});

}  // namespace strobe::core
