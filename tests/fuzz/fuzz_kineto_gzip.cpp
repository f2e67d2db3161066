// libFuzzer target: a whole file (gzip or plain, detected by the loader) read from an in-memory file.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/formats/kineto_json.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    int fd = memfd_create("strobe-fuzz.json.gz", 0);
    if (fd < 0) return 0;
    size_t off = 0;
    while (off < size) {
        ssize_t w = write(fd, data + off, size - off);
        if (w <= 0) break;
        off += static_cast<size_t>(w);
    }
    std::string path = "/proc/self/fd/" + std::to_string(fd);
    strobe::core::KinetoLoadOptions opt;
    opt.chunkBytes = 4096;
    auto r = strobe::core::loadKinetoTrace(path, opt);
    if (r.ok()) strobe::fuzz::exerciseRank(*r.value());
    else strobe::fuzz::checkError(r.error());
    close(fd);
    return 0;
}
