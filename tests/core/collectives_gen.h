#pragma once
// A generated multi-rank sweep for the collectives tests (issue 9): configurations channels=1 and channels=2,
// 2 repeats each (<dir>/channels=<C>/rep<R>/rank<K>.json), 4 ranks per run (distributedInfo rank/world_size 4),
// 3 ProfilerSteps per rank. Every step S (ProfilerStep#s over [S, S+900] us, S = 1000 + 1000 s) on every rank:
//   gemm (compute, stream 7): [S+10, S+110] us; on rank 3, the injected straggler, it lasts `skew` = 200 us more;
//   an all_reduce (ncclDevKernel_AllReduce_Sum_f32_RING_LL, stream 7, args: Collective name allreduce,
//     In/Out msg nelems 1048576, dtype Float, Group size 4, Process Group Name "0", Seq s) starting when the
//     rank's gemm ends and ending for every rank at S+110+skew+X, X the transfer time: 100 us (channels=1) or
//     50 us (channels=2), plus 10 us in repeat 1. Ranks 0-2 wait `skew` for rank 3, so their kernel lasts
//     skew+X, rank 3's lasts X;
//   on ranks 0-2 only, a compute kernel embedding_forward (stream 8) over [S+110, S+110+skew/2]: half of their
//     waiting overlaps compute; nothing overlaps rank 3's all_reduce.
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "tests/test_files.h"

namespace strobe::test {

inline constexpr double kCollectiveSkewUs = 200.0;

inline std::string collectiveRankTrace(int rank, double transferUs) {
    std::string events;
    int corr = 1;
    auto kernel = [&](const char* name, int stream, double ts, double dur, const std::string& extra) {
        events += fmt::format(",\n{{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"{}\", \"pid\": 0, \"tid\": {}, "
                              "\"ts\": {:.3f}, \"dur\": {:.3f}, \"args\": {{\"device\": 0, \"stream\": {}, "
                              "\"correlation\": {}{}}}}}",
                              name, stream, ts, dur, stream, corr++, extra);
    };
    for (int s = 0; s < 3; ++s) {
        const double S = 1000.0 + 1000.0 * s;
        events += fmt::format("{}{{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#{}\", "
                              "\"pid\": 100, \"tid\": 100, \"ts\": {:.3f}, \"dur\": 900.0}}",
                              s ? ",\n" : "", s, S);
        const double gemmEnd = S + 110 + (rank == 3 ? kCollectiveSkewUs : 0.0);
        kernel("ampere_sgemm_128x64_tn", 7, S + 10, gemmEnd - (S + 10), "");
        const double end = S + 110 + kCollectiveSkewUs + transferUs;
        kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 7, gemmEnd, end - gemmEnd,
               fmt::format(", \"Collective name\": \"allreduce\", \"In msg nelems\": 1048576, \"Out msg nelems\": "
                           "1048576, \"dtype\": \"Float\", \"Group size\": 4, \"Process Group Name\": \"0\", "
                           "\"Seq\": {}",
                           s));
        if (rank != 3) kernel("embedding_forward", 8, S + 110, kCollectiveSkewUs / 2, "");
    }
    return fmt::format("{{\"distributedInfo\": {{\"backend\": \"nccl\", \"rank\": {}, \"world_size\": 4}},\n"
                       "\"traceEvents\": [\n{}\n]}}\n",
                       rank, events);
}

inline void writeCollectiveSweep(const std::filesystem::path& dir) {
    for (int c = 1; c <= 2; ++c)
        for (int r = 0; r < 2; ++r)
            for (int rank = 0; rank < 4; ++rank) {
                const double transferUs = (c == 1 ? 100.0 : 50.0) + (r == 1 ? 10.0 : 0.0);
                writeFile(dir / fmt::format("channels={}", c) / fmt::format("rep{}", r) /
                              fmt::format("rank{}.json", rank),
                          collectiveRankTrace(rank, transferUs));
            }
}

}  // namespace strobe::test
