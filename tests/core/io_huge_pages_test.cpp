// core/io/huge_pages.h: large buffers are advised for transparent huge pages only when STROBE_HUGE_PAGES=1 asks
// (on a VM whose host takes back freed guest memory, huge-page faults cost several times small ones: bench/README
// "sixth pass"). The advice shows in /proc/self/smaps as the mapping's "hg" flag; a control mapping advised directly
// shows that the flag is read right.
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/io/huge_pages.h"

namespace {

// The VmFlags line of the mapping that holds `p`, or "" when none is found.
std::string vmFlagsOf(const void* p) {
    std::ifstream smaps("/proc/self/smaps");
    const auto at = reinterpret_cast<uintptr_t>(p);
    std::string line;
    bool inside = false;
    while (std::getline(smaps, line)) {
        uintptr_t lo = 0, hi = 0;
        char dash = 0;
        std::istringstream head(line);
        if (head >> std::hex >> lo >> dash >> hi && dash == '-' && line.find(' ') != std::string::npos &&
            line.find(':') > line.find(' ')) {
            inside = lo <= at && at < hi;
            continue;
        }
        if (inside && line.rfind("VmFlags:", 0) == 0) return line + " ";
    }
    return "";
}

TEST(HugePages, LargeBuffersAreNotAdvisedUnlessAsked) {
    if (std::getenv("STROBE_HUGE_PAGES") != nullptr) GTEST_SKIP() << "STROBE_HUGE_PAGES is set";
    constexpr size_t kBytes = size_t{16} << 20;
    void* control = ::mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(control, MAP_FAILED);
    if (::madvise(control, kBytes, MADV_HUGEPAGE) != 0) {
        ::munmap(control, kBytes);
        GTEST_SKIP() << "this kernel offers no transparent huge pages";
    }
    EXPECT_NE(vmFlagsOf(control).find(" hg "), std::string::npos) << vmFlagsOf(control);
    ::munmap(control, kBytes);

    EXPECT_FALSE(strobe::core::hugePagesWanted());
    std::vector<uint64_t> column;
    strobe::core::reserveHuge(column, kBytes / sizeof(uint64_t));
    const void* middle = column.data() + column.capacity() / 2;
    const std::string flags = vmFlagsOf(middle);
    ASSERT_NE(flags, "") << "no mapping holds the reserved column";
    EXPECT_EQ(flags.find(" hg "), std::string::npos) << flags;

    std::vector<int32_t> derived;
    strobe::core::assignHuge(derived, kBytes / sizeof(int32_t), -1);
    EXPECT_EQ(vmFlagsOf(derived.data() + derived.size() / 2).find(" hg "), std::string::npos);
    EXPECT_EQ(derived.size(), kBytes / sizeof(int32_t));
    EXPECT_EQ(derived.back(), -1);
}

}  // namespace
