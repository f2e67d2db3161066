#pragma once
// A small generated sweep for the sweep comparison tests: configurations bs=1 and bs=2, 3 repeats each
// (<dir>/bs=<B>/rep<R>/trace.json), 4 ProfilerSteps per run, two kernels per step on one stream:
//   gemm: 1000 ns (bs=1) or 1100 ns (bs=2, 10 % slower) times the repeat's noise factor {0.99, 1.00, 1.01},
//         plus a per-step jitter {0, +4, -4, 0} ns;
//   relu: 500 ns (bs=1) or 502 ns (bs=2, 0.4 % slower) times a repeat noise factor of +-5 %:
//         bs=1 {0.95, 1.00, 1.05}, bs=2 {1.05, 0.95, 1.00}; the difference is far below the noise.
// The noise is a fixed table (the test's "fixed seed"), so the expected values below can be worked out by hand.
// `repeats` < 3 keeps only the first repeats.
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "tests/test_files.h"

namespace strobe::test {

inline void writeGeneratedSweep(const std::filesystem::path& dir, int repeats = 3) {
    const double gemmNoise[3] = {0.99, 1.00, 1.01};
    const double reluNoise[2][3] = {{0.95, 1.00, 1.05}, {1.05, 0.95, 1.00}};
    const double jitter[4] = {0, 4, -4, 0};
    for (int c = 0; c < 2; ++c) {
        for (int r = 0; r < repeats; ++r) {
            std::string events;
            double t = 1000.0;  // us
            for (int s = 0; s < 4; ++s) {
                const double gemmNs = (c == 0 ? 1000.0 : 1100.0) * gemmNoise[r] + jitter[s];
                const double reluNs = (c == 0 ? 500.0 : 502.0) * reluNoise[c][r];
                events += fmt::format(
                    "{}{{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#{}\", \"pid\": 100, "
                    "\"tid\": 100, \"ts\": {:.3f}, \"dur\": 10.0}},\n"
                    "{{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": {:.3f}, "
                    "\"dur\": {:.4f}, \"args\": {{\"device\": 0, \"stream\": 7, \"correlation\": {}}}}},\n"
                    "{{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"relu\", \"pid\": 0, \"tid\": 7, \"ts\": {:.3f}, "
                    "\"dur\": {:.4f}, \"args\": {{\"device\": 0, \"stream\": 7, \"correlation\": {}}}}}",
                    s ? ",\n" : "", s, t, t + 1, gemmNs / 1000, 2 * s + 1, t + 3, reluNs / 1000, 2 * s + 2);
                t += 10.0;
            }
            writeFile(dir / fmt::format("bs={}", c + 1) / fmt::format("rep{}", r) / "trace.json",
                      "{\"traceEvents\": [\n" + events + "\n]}\n");
        }
    }
}

}  // namespace strobe::test
