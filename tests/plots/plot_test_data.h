#pragma once
// Hand-built datasets for plot tests. The builders (makeRank, makeDataset, syntheticRun) are in
// bench/synthetic_dataset.h, shared with bench_plots.

#include "bench/synthetic_dataset.h"

namespace strobe::plots::testdata {

// Two ranks, hand-worked totals (ns):
//   rank 0: gemm 100+300 = 400, communication 500, memcpy 50     (stream 7 gemm, stream 13 nccl, stream 7 memcpy)
//   rank 1: gemm 200, communication 700, elementwise 10+30+20 = 60
// Steps: rank 0 step 5 = [0, 1000), step 6 = [1000, 2000); rank 1 step 5 = [0, 1500).
inline core::DatasetPtr smallRun(bool mergeColumns = true) {
    using C = core::KernelCategory;
    auto r0 = makeRank(0,
                       {{0, 100, "ampere_sgemm_128x64_tn", 7, C::Gemm},
                        {150, 500, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 13, C::Communication},
                        {1200, 300, "ampere_sgemm_128x64_tn", 7, C::Gemm},
                        {1600, 50, "Memcpy HtoD (Pinned -> Device)", 7, C::Memcpy, core::EventKind::Memcpy}},
                       {{5, 0, 1000}, {6, 1000, 2000}}, mergeColumns);
    auto r1 = makeRank(1,
                       {{10, 200, "ampere_sgemm_128x64_tn", 7, C::Gemm},
                        {100, 700, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 13, C::Communication},
                        {300, 10, "vectorized_elementwise_kernel", 7, C::Elementwise},
                        {320, 30, "vectorized_elementwise_kernel", 7, C::Elementwise},
                        {400, 20, "vectorized_elementwise_kernel", 7, C::Elementwise}},
                       {{5, 0, 1500}}, mergeColumns);
    return makeDataset({r0, r1});
}

}  // namespace strobe::plots::testdata
