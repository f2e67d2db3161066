#pragma once
// Transparent huge pages for a large buffer that is about to be filled (a column reserved from a file's size):
// where the kernel hands them out only on request (transparent_hugepage = madvise, a common default), a 300 MB
// load otherwise faults its columns in 4 KiB at a time, tens of thousands of page faults. Only the whole 2 MiB pages
// inside the buffer are advised (a buffer's edges stay in small pages: malloc's header in the mapping's first page
// is written at once, so neighbouring mappings are never joined); elsewhere than on Linux, or for small buffers,
// this does nothing.

#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace strobe::core {

inline void adviseHugePages(const void* data, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
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

// Room for `n` values in `v` (its values kept), the new memory advised for huge pages before anything touches it:
// a large array about to be filled (a column, an index by id).
template <class T>
void reserveHuge(std::vector<T>& v, size_t n) {
    if (v.capacity() >= n) return;
    v.reserve(n);
    adviseHugePages(v.data() + v.size(), (v.capacity() - v.size()) * sizeof(T));
}

// `v` becomes `n` copies of `value`, in memory advised for huge pages when it has to grow (a derived column of a
// large rank: filled once, right away).
template <class T>
void assignHuge(std::vector<T>& v, size_t n, const T& value) {
    v.clear();  // nothing to move when it grows
    reserveHuge(v, n);
    v.assign(n, value);
}

}  // namespace strobe::core
