// strobe-gen-rocprofv3: writes a synthetic rocprofv3 kernel_trace.csv of a given size (see rocprofv3_gen.h), for
// benches that need one outside bench_formats (the load-cache reopen bench, bench/cache_reopen.py).
//
//   strobe-gen-rocprofv3 OUT_kernel_trace.csv SIZE_MB      (MB = 10^6 bytes; the file is at least that size)

#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/rocprofv3_gen.h"

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s OUT_kernel_trace.csv SIZE_MB\n", argv[0]);
        return 2;
    }
    const double mb = std::atof(argv[2]);
    if (!(mb > 0)) {
        std::fprintf(stderr, "%s: SIZE_MB must be a positive number, not '%s'\n", argv[0], argv[2]);
        return 2;
    }
    if (!strobe::bench::writeRocprofv3KernelTrace(argv[1], static_cast<uint64_t>(mb * 1e6))) {
        std::fprintf(stderr, "%s: cannot write %s\n", argv[0], argv[1]);
        return 1;
    }
    return 0;
}
