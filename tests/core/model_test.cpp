#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/model/string_pool.h"
#include "core/model/types.h"

using namespace strobe::core;

TEST(StringPool, InternsOnceAndKeepsEmptyAtZero) {
    StringPool p;
    EXPECT_EQ(p.intern(""), 0u);
    StrId a = p.intern("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
    StrId b = p.intern("Cijk_Alik_Bljk_HHS_BH_MT128x128x32");
    EXPECT_NE(a, b);
    EXPECT_EQ(p.intern("Cijk_Alik_Bljk_HHS_BH_MT128x128x32"), b);
    EXPECT_EQ(p.view(a), "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
    EXPECT_FALSE(p.find("absent").has_value());
}

TEST(StringPool, LongStringsDifferingInTheMiddleStayDistinct) {
    StringPool p;
    std::string x(5000, 'a'), y(5000, 'a');
    y[2500] = 'b';
    EXPECT_NE(p.intern(x), p.intern(y));
    EXPECT_EQ(p.view(p.intern(y)), y);
}

TEST(Types, BothKinetoSchemasMapToOneVocabulary) {
    EXPECT_EQ(eventKindFromCategory("kernel"), EventKind::Kernel);
    EXPECT_EQ(eventKindFromCategory("Kernel"), EventKind::Kernel);
    EXPECT_EQ(eventKindFromCategory("Operator"), EventKind::CpuOp);
    EXPECT_EQ(eventKindFromCategory("Runtime"), EventKind::Runtime);
    EXPECT_EQ(eventKindFromCategory("Memcpy"), EventKind::Memcpy);
    EXPECT_EQ(eventKindFromCategory("my_custom_cat"), EventKind::Unknown);
    EXPECT_EQ(copyDirectionFromName("Memcpy HtoD (Pinned -> Device)"), CopyDirection::HtoD);
    EXPECT_EQ(copyDirectionFromName("Memcpy DtoD (Device -> Device)"), CopyDirection::DtoD);
}

TEST(StringPool, HashSeesEveryByte) {
    // Args texts that differ in one byte anywhere must not collide (a sampled hash put hundreds in one bucket).
    std::string base = R"({"Input Dims":[[16,1,1024],[1024,1024]],"Input type":["float","float"],"Concrete Inputs":["",""]})";
    std::set<uint64_t> hashes;
    for (size_t i = 0; i < base.size(); ++i) {
        std::string v = base;
        v[i] = static_cast<char>(v[i] ^ 1);
        hashes.insert(StringPool::hash(v));
    }
    hashes.insert(StringPool::hash(base));
    EXPECT_EQ(hashes.size(), base.size() + 1);
    EXPECT_NE(StringPool::hash(""), StringPool::hash(std::string(1, '\0')));
}
