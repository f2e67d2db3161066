// strobe-first-touch MB [small|huge]...: what faulting in fresh anonymous memory costs on this machine, in 4 KiB
// pages or in transparent huge pages (MADV_HUGEPAGE). Each mode maps MB MiB (2 MiB-aligned), advises it or not,
// writes one byte per 4 KiB page, and prints seconds and ms per MB; unmapping gives the memory back before the next.
// On a VM whose host takes back the memory its guest frees, a mode run after a pause of a few seconds shows what an
// open on an idle machine pays (bench/README "sixth pass": `sleep 8; strobe-first-touch 700 small` against
// `sleep 8; strobe-first-touch 700 huge`).
#include <sys/mman.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

int touch(size_t mb, bool huge) {
    constexpr size_t kHuge = size_t{2} << 20;
    const size_t bytes = mb << 20;
    void* raw = ::mmap(nullptr, bytes + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) {
        std::perror("mmap");
        return 1;
    }
    auto* p = reinterpret_cast<volatile char*>((reinterpret_cast<uintptr_t>(raw) + kHuge - 1) & ~(kHuge - 1));
    const bool advised = huge && ::madvise(const_cast<char*>(p), bytes, MADV_HUGEPAGE) == 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < bytes; i += 4096) p[i] = 1;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%-5s %zu MB: %.3f s, %.3f ms/MB%s\n", huge ? "huge" : "small", mb, s, s * 1e3 / static_cast<double>(mb),
                huge && !advised ? " (madvise refused: small pages)" : "");
    ::munmap(raw, bytes + kHuge);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || std::atol(argv[1]) <= 0) {
        std::fprintf(stderr, "usage: strobe-first-touch MB [small|huge]...\n");
        return 2;
    }
    const auto mb = static_cast<size_t>(std::atol(argv[1]));
    if (argc == 2) return touch(mb, false) | touch(mb, true);
    int rc = 0;
    for (int i = 2; i < argc; ++i) {
        if (std::strcmp(argv[i], "small") != 0 && std::strcmp(argv[i], "huge") != 0) {
            std::fprintf(stderr, "strobe-first-touch: mode '%s' is neither small nor huge\n", argv[i]);
            return 2;
        }
        rc |= touch(mb, std::strcmp(argv[i], "huge") == 0);
    }
    return rc;
}
