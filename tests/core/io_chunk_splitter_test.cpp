// ChunkSplitter against a plain byte-by-byte reference, on generated JSON with strings full of escapes,
// brackets inside strings and backslash runs that straddle the 64-byte blocks, fed in random pieces.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "core/io/chunk_splitter.h"

using strobe::core::ChunkSplitter;

namespace {

struct Reference {
    std::vector<size_t> elementEnds;  // offsets just past each element
    size_t arrayEnd = ChunkSplitter::npos;
};

// Byte-by-byte: the obvious state machine.
Reference reference(const std::string& s) {
    Reference r;
    int depth = 0;
    bool inString = false, escape = false;
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (inString) {
            if (escape) escape = false;
            else if (c == '\\') escape = true;
            else if (c == '"') inString = false;
            continue;
        }
        if (c == '"') inString = true;
        else if (c == '{' || c == '[') ++depth;
        else if (c == '}' || c == ']') {
            if (--depth == 0) r.elementEnds.push_back(i + 1);
            if (depth < 0) {
                r.arrayEnd = i;
                break;
            }
        }
    }
    return r;
}

std::string randomString(std::mt19937& rng) {
    static const char* pieces[] = {"a", "\\\"", "\\\\", "{", "}", "[", "]", ",", " ", "\\n", "\\\\\\\"", "x\\\\"};
    std::string s = "\"";
    const int n = static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) s += pieces[rng() % 12];
    return s + "\"";
}

std::string randomValue(std::mt19937& rng, int depth) {
    const int kind = static_cast<int>(rng() % (depth > 4 ? 3 : 5));
    switch (kind) {
    case 0: return std::to_string(rng() % 100000);
    case 1: return randomString(rng);
    case 2: return "true";
    case 3: {
        std::string s = "[";
        const int n = static_cast<int>(rng() % 4);
        for (int i = 0; i < n; ++i) s += (i ? ", " : "") + randomValue(rng, depth + 1);
        return s + "]";
    }
    default: {
        std::string s = "{";
        const int n = static_cast<int>(rng() % 5);
        for (int i = 0; i < n; ++i) s += (i ? ", " : "") + randomString(rng) + ": " + randomValue(rng, depth + 1);
        return s + "}";
    }
    }
}

}  // namespace

TEST(IoChunkSplitter, MatchesByteByByteReferenceOnRandomInput) {
    std::mt19937 rng(20240601);
    for (int round = 0; round < 300; ++round) {
        // The text after the array's '[': events, separators, then (usually) the closing bracket and more.
        std::string text;
        const int events = 1 + static_cast<int>(rng() % 30);
        for (int e = 0; e < events; ++e) {
            text += e ? ",\n  " : "\n  ";
            std::string ev = "{\"name\": " + randomString(rng) + ", \"args\": " + randomValue(rng, 0) + "}";
            text += ev;
        }
        const bool closed = rng() % 4 != 0;
        if (closed) text += "\n], \"traceName\": \"x]}\"}";
        const Reference ref = reference(text);

        ChunkSplitter splitter;
        size_t begin = 0, end = 0;
        size_t lastSeen = ChunkSplitter::npos;
        size_t arrayEnd = ChunkSplitter::npos;
        while (true) {
            end = std::min(text.size(), end + 1 + rng() % 200);
            const bool final = end == text.size();
            const auto res = splitter.scan(text.data(), begin, end, final);
            // Expected: the last reference element end inside [begin, scannedTo).
            size_t expected = ChunkSplitter::npos;
            for (size_t x : ref.elementEnds)
                if (x > begin && x <= res.scannedTo && (ref.arrayEnd == ChunkSplitter::npos || x <= ref.arrayEnd)) expected = x;
            ASSERT_EQ(res.lastElementEnd, expected) << "round " << round << " begin " << begin;
            if (res.lastElementEnd != ChunkSplitter::npos) lastSeen = res.lastElementEnd;
            begin = res.scannedTo;
            if (res.arrayEnd != ChunkSplitter::npos) {
                arrayEnd = res.arrayEnd;
                break;
            }
            if (final) break;
        }
        EXPECT_EQ(arrayEnd, ref.arrayEnd) << "round " << round;
        if (!ref.elementEnds.empty()) {
            EXPECT_EQ(lastSeen, ref.arrayEnd == ChunkSplitter::npos ? ref.elementEnds.back() : ref.elementEnds.back());
        }
        EXPECT_EQ(closed, arrayEnd != ChunkSplitter::npos);
    }
}

TEST(IoChunkSplitter, BackslashRunsAcrossBlockBoundaries) {
    // A string whose escaped quote sits exactly at byte 63/64 of the first block, then a closing brace.
    for (size_t pad = 50; pad < 80; ++pad) {
        std::string text = "{\"a\": \"" + std::string(pad, 'x') + "\\\\\\\"}\"}, {\"b\": 1}]";
        const Reference ref = reference(text);
        ChunkSplitter s;
        const auto res = s.scan(text.data(), 0, text.size(), true);
        ASSERT_EQ(res.arrayEnd, ref.arrayEnd) << pad;
        ASSERT_EQ(res.lastElementEnd, ref.elementEnds.back()) << pad;
        ASSERT_EQ(ref.elementEnds.size(), 2u);
    }
}

TEST(IoChunkSplitter, OnlyWholeBlocksUnlessFinal) {
    const std::string text = "{\"a\": 1}, {\"b\": 2}";
    ChunkSplitter s;
    auto res = s.scan(text.data(), 0, text.size(), false);
    EXPECT_EQ(res.scannedTo, 0u);  // shorter than one block: nothing consumed yet
    EXPECT_EQ(res.lastElementEnd, ChunkSplitter::npos);
    res = s.scan(text.data(), 0, text.size(), true);
    EXPECT_EQ(res.scannedTo, text.size());
    EXPECT_EQ(res.lastElementEnd, text.size());
    EXPECT_EQ(s.depth(), 0);
    EXPECT_FALSE(s.inString());
}
