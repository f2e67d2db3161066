// Writes load-cache files of the given sources into OUT_DIR (one per rank of each source, any format, through core::loadRun exactly as the
// application does), as seeds for the load_cache fuzz target. They are made by the build under test because a
// cache file is specific to the build's column set and loader version.
// Usage: make_cache_seeds OUT_DIR TRACE...
#include <cstdio>
#include <string>
#include <vector>

#include "core/engine/run_loader.h"

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s OUT_DIR TRACE...\n", argv[0]);
        return 2;
    }
    strobe::core::RunLoadOptions options;
    options.cacheDir = argv[1];
    options.threads = 1;
    int failed = 0;
    for (int i = 2; i < argc; ++i) {
        auto r = strobe::core::loadRun({std::string(argv[i])}, options);
        if (!r.ok()) {
            std::fprintf(stderr, "%s\n", r.error().toString().c_str());
            ++failed;
        }
    }
    return failed == 0 ? 0 : 1;
}
