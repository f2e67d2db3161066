#pragma once
// Datasets built in memory, without a trace file: makeRank from a list of activities, and syntheticRun, a large
// run shaped like a DLRM step (bench_plots). Header-only; the plot tests build their small datasets with it too
// (tests/plots/plot_test_data.h), bench/ never includes anything of tests/.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/model/dataset.h"

namespace strobe::plots::testdata {

struct K {
    int64_t ts = 0;
    int64_t dur = 0;
    std::string name;
    int stream = 7;
    core::KernelCategory cat = core::KernelCategory::Other;
    core::EventKind kind = core::EventKind::Kernel;
};

struct StepRange {
    int64_t number, start, end;
};

// One rank with the given activities and steps. With `mergeColumns`, category and step are filled the way the
// merge does; without, they are left empty (plots then fall back on their own heuristics).
inline std::shared_ptr<core::RankData> makeRank(int rank, const std::vector<K>& ks,
                                                const std::vector<StepRange>& steps = {}, bool mergeColumns = true) {
    auto r = std::make_shared<core::RankData>();
    r->rank = rank;
    r->path = "rank" + std::to_string(rank) + ".json";
    auto& g = r->gpu;
    auto kernelCat = r->strings.intern("kernel");
    for (const auto& s : steps) {
        r->steps.number.push_back(s.number);
        r->steps.start.push_back(s.start);
        r->steps.end.push_back(s.end);
        r->steps.slice.push_back(-1);
    }
    // Each activity is launched by a cudaLaunchKernel call 20..60 ns before it starts (linked by correlation).
    auto launchName = r->strings.intern("cudaLaunchKernel");
    auto runtimeCat = r->strings.intern("cuda_runtime");
    auto& sl = r->slices;
    for (size_t i = 0; i < ks.size(); ++i) {
        sl.ts.push_back(ks[i].ts - 20 - int64_t(i % 5) * 10);
        sl.dur.push_back(8);
        sl.name.push_back(launchName);
        sl.cat.push_back(runtimeCat);
        sl.kind.push_back(core::EventKind::Runtime);
        sl.phase.push_back('X');
        sl.track.push_back(1);
        sl.externalId.push_back(core::kNone);
        sl.correlation.push_back(int64_t(i) + 1);
        sl.sequence.push_back(core::kNone);
        sl.args.push_back(core::kEmptyStr);
        sl.parent.push_back(-1);
        sl.depth.push_back(0);
    }
    size_t idx = 0;
    for (const auto& k : ks) {
        g.ts.push_back(k.ts);
        g.dur.push_back(k.dur);
        g.name.push_back(r->strings.intern(k.name));
        g.cat.push_back(kernelCat);
        g.kind.push_back(k.kind);
        g.track.push_back(0);
        g.device.push_back(0);
        g.stream.push_back(k.stream);
        g.queue.push_back(-1);
        g.correlation.push_back(int64_t(idx) + 1);
        g.externalId.push_back(core::kNone);
        g.runtime.push_back(int32_t(idx));
        ++idx;
        g.cpuOp.push_back(-1);
        g.annotation.push_back(-1);
        if (mergeColumns) {
            g.category.push_back(k.cat);
            int32_t st = -1;
            for (size_t i = 0; i < steps.size(); ++i)
                if (k.ts >= steps[i].start && k.ts < steps[i].end) st = int32_t(i);
            g.step.push_back(st);
        }
    }
    return r;
}

// Nests every launch call of `r` (makeRank's cudaLaunchKernel slices) under `levels` CPU operators, one per depth
// (aten::linear ⊃ aten::addmm ⊃ … ⊃ the call), each a few ns longer than the one inside, and links each GPU
// activity to its innermost operator (cpuOp): `levels` + 1 CPU slices per activity, as a PyTorch eager trace has.
// Launches of overlapping activities (communication) go on a second thread, so that slices of one depth of one
// thread never overlap.
inline void addCpuStacks(core::RankData& r, int levels) {
    if (levels <= 0) return;
    auto& sl = r.slices;
    auto& g = r.gpu;
    const size_t calls = sl.size();
    const char* opNames[] = {"aten::linear", "aten::addmm", "aten::mm", "aten::matmul", "aten::_efficient_op"};
    const auto opCat = r.strings.intern("cpu_op");
    std::vector<uint32_t> names;
    for (int d = 0; d < levels; ++d) names.push_back(r.strings.intern(opNames[d % 5]));
    for (size_t i = 0; i < calls; ++i) {
        const uint32_t track = g.stream[i] == 7 ? 1 : 2;
        sl.track.at(i) = track;
        sl.depth.at(i) = uint16_t(levels);
        int32_t parent = -1;
        for (int d = 0; d < levels; ++d) {
            const int64_t pad = int64_t(levels - d) * 3;
            sl.ts.push_back(sl.ts[i] - pad);
            sl.dur.push_back(sl.dur[i] + 2 * pad);
            sl.name.push_back(names[size_t(d)]);
            sl.cat.push_back(opCat);
            sl.kind.push_back(core::EventKind::CpuOp);
            sl.phase.push_back('X');
            sl.track.push_back(track);
            sl.externalId.push_back(core::kNone);
            sl.correlation.push_back(core::kNone);
            sl.sequence.push_back(core::kNone);
            sl.args.push_back(core::kEmptyStr);
            sl.parent.push_back(parent);
            sl.depth.push_back(uint16_t(d));
            parent = int32_t(sl.ts.size() - 1);
        }
        sl.parent.at(i) = parent;
        g.cpuOp.at(i) = parent;
    }
}

inline core::DatasetPtr makeDataset(std::vector<std::shared_ptr<core::RankData>> ranks) {
    auto d = std::make_shared<core::Dataset>();
    d->generation = core::nextGeneration();
    for (auto& r : ranks) d->ranks.push_back(std::move(r));
    return d;
}

// A large run shaped like a training step: `ranks` ranks, `kernelsPerRank` kernels each on a compute stream
// (back to back with small gaps) plus communication kernels on a second stream that overlap compute.
// With `cpuLevels` > 0, every launch call is nested under that many CPU operators (addCpuStacks).
inline core::DatasetPtr syntheticRun(int ranks, size_t kernelsPerRank, uint32_t seed = 42, int cpuLevels = 0) {
    using C = core::KernelCategory;
    std::vector<std::shared_ptr<core::RankData>> out;
    const char* names[] = {"ampere_sgemm_128x64_tn", "vectorized_elementwise_kernel", "reduce_kernel",
                           "flash_fwd_kernel", "cudnn_convolution_fwd", "layer_norm_kernel"};
    C cats[] = {C::Gemm, C::Elementwise, C::Reduction, C::Attention, C::Convolution, C::Normalization};
    for (int r = 0; r < ranks; ++r) {
        std::mt19937 rng(seed + uint32_t(r));
        std::uniform_int_distribution<int> pick(0, 5), dur(2'000, 40'000), gap(200, 3'000);
        std::vector<K> ks;
        ks.reserve(kernelsPerRank);
        int64_t t = 1'000'000'000 + r * 1'000;
        int64_t commT = t;
        for (size_t i = 0; i < kernelsPerRank; ++i) {
            if (i % 20 == 19) {
                int64_t d = dur(rng) * 5;
                commT = std::max(commT, t) + gap(rng);
                ks.push_back({commT, d, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 13, C::Communication});
                commT += d;
                continue;
            }
            int k = pick(rng);
            int64_t d = dur(rng);
            ks.push_back({t, d, names[k], 7, cats[k]});
            t += d + gap(rng);
        }
        std::vector<StepRange> steps;
        int64_t end = std::max(t, commT);
        int64_t begin = 1'000'000'000 + r * 1'000;
        for (int s = 0; s < 4; ++s)
            steps.push_back({10 + s, begin + (end - begin) * s / 4, begin + (end - begin) * (s + 1) / 4});
        // Keep the table sorted by start, as the loader leaves it.
        std::sort(ks.begin(), ks.end(), [](const K& a, const K& b) { return a.ts < b.ts; });
        out.push_back(makeRank(r, ks, steps, true));
        addCpuStacks(*out.back(), cpuLevels);
    }
    return makeDataset(std::move(out));
}

}  // namespace strobe::plots::testdata
