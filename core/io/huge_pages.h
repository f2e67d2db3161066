#pragma once
// Transparent huge pages for a large buffer that is about to be filled (a column reserved from a file's size), when
// asked for: STROBE_HUGE_PAGES=1 in the environment. Off by default, because what they save depends on the machine:
// - Where memory is bare (or its host never takes it back), a 2 MiB page is faulted in at once instead of 512 times
//   4 KiB: 0.15 ms per MB against 0.4 here when the memory was freed a moment before, about 0.15 s on a 600 MB load.
// - On a virtual machine whose host takes back the memory its guest frees (free page reporting, as on this
//   project's 2-core VM), the free 2 MiB blocks are exactly what the host has taken: faulting one in costs 4-5 ms
//   per MB, 4 KiB pages 0.5-0.8 ms per MB (bench/README, "sixth pass"). A 300 MB SQLite export's open then spent
//   1-2.5 s more in the kernel than with small pages.
// Only the whole 2 MiB pages inside the buffer are advised (a buffer's edges stay in small pages: malloc's header in
// the mapping's first page is written at once, so neighbouring mappings are never joined); elsewhere than on Linux,
// or for small buffers, this does nothing. Where the system's policy is "always", the kernel hands out huge pages
// anyway; this only decides whether Strobe asks for them under "madvise".

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace strobe::core {

// Whether STROBE_HUGE_PAGES=1 asks for huge pages (read once).
inline bool hugePagesWanted() {
    static const bool wanted = [] {
        const char* env = std::getenv("STROBE_HUGE_PAGES");
        return env != nullptr && std::string_view(env) == "1";
    }();
    return wanted;
}

inline void adviseHugePages(const void* data, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (!hugePagesWanted()) return;
    constexpr uintptr_t kHuge = uintptr_t{2} << 20;
    const auto begin = reinterpret_cast<uintptr_t>(data);
    const uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1), last = (begin + bytes) & ~(kHuge - 1);
    if (data == nullptr || last <= first) return;
    ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);  // advice: a refusal changes nothing
#else
    (void)data;
    (void)bytes;
#endif
}

// Room for `n` values in `v` (its values kept), sized once, the new memory advised for huge pages (when wanted) before
// anything touches it: a large array about to be filled (a column, an index by id).
template <class T>
void reserveHuge(std::vector<T>& v, size_t n) {
    if (v.capacity() >= n) return;
    v.reserve(n);
    adviseHugePages(v.data() + v.size(), (v.capacity() - v.size()) * sizeof(T));
}

// `v` becomes `n` copies of `value`, in memory sized once and advised for huge pages (when wanted) if it has to grow
// (a derived column of a large rank: filled once, right away).
template <class T>
void assignHuge(std::vector<T>& v, size_t n, const T& value) {
    v.clear();  // nothing to move when it grows
    reserveHuge(v, n);
    v.assign(n, value);
}

}  // namespace strobe::core
