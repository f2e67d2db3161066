#include "core/io/chunk_splitter.h"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace strobe::core {

namespace {

struct BlockMasks {
    uint64_t quote = 0;
    uint64_t backslash = 0;
    uint64_t open = 0;   // '{' or '['
    uint64_t close = 0;  // '}' or ']'
};

#if defined(__x86_64__)
__attribute__((target("avx2"))) BlockMasks classifyAvx2(const char* p) {
    BlockMasks m;
    const __m256i quote = _mm256_set1_epi8('"');
    const __m256i backslash = _mm256_set1_epi8('\\');
    const __m256i lower = _mm256_set1_epi8(0x20);
    const __m256i open = _mm256_set1_epi8(0x7B);
    const __m256i close = _mm256_set1_epi8(0x7D);
    for (int i = 0; i < 2; ++i) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * i));
        const __m256i folded = _mm256_or_si256(v, lower);
        const int shift = 32 * i;
        m.quote |= static_cast<uint64_t>(static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, quote)))) << shift;
        m.backslash |= static_cast<uint64_t>(static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, backslash)))) << shift;
        m.open |= static_cast<uint64_t>(static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(folded, open)))) << shift;
        m.close |= static_cast<uint64_t>(static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(folded, close)))) << shift;
    }
    return m;
}

const bool kHasAvx2 = __builtin_cpu_supports("avx2");

inline uint64_t movemask16(__m128i v) { return static_cast<uint16_t>(_mm_movemask_epi8(v)); }

inline BlockMasks classify(const char* p) {
    BlockMasks m;
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i lower = _mm_set1_epi8(0x20);
    // '{' 0x7B and '[' 0x5B differ only in bit 0x20, as do '}' 0x7D and ']' 0x5D.
    const __m128i open = _mm_set1_epi8(0x7B);
    const __m128i close = _mm_set1_epi8(0x7D);
    for (int i = 0; i < 4; ++i) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
        const __m128i folded = _mm_or_si128(v, lower);
        const int shift = 16 * i;
        m.quote |= movemask16(_mm_cmpeq_epi8(v, quote)) << shift;
        m.backslash |= movemask16(_mm_cmpeq_epi8(v, backslash)) << shift;
        m.open |= movemask16(_mm_cmpeq_epi8(folded, open)) << shift;
        m.close |= movemask16(_mm_cmpeq_epi8(folded, close)) << shift;
    }
    return m;
}
#else
inline BlockMasks classify(const char* p) {
    BlockMasks m;
    for (int i = 0; i < 64; ++i) {
        const uint64_t bit = uint64_t{1} << i;
        switch (p[i]) {
        case '"': m.quote |= bit; break;
        case '\\': m.backslash |= bit; break;
        case '{': case '[': m.open |= bit; break;
        case '}': case ']': m.close |= bit; break;
        default: break;
        }
    }
    return m;
}
#endif

// Bit i of the result is the parity of bits 0..i of x: with x = unescaped quotes, 1 marks the opening quote
// and the characters inside a string.
inline uint64_t prefixXor(uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

}  // namespace

void ChunkSplitter::reset() {
    m_inString = 0;
    m_escapeCarry = 0;
    m_depth = 0;
}

bool ChunkSplitter::scanBlock(const char* block, size_t base, ScanResult& res) {
#if defined(__x86_64__)
    BlockMasks m = kHasAvx2 ? classifyAvx2(block) : classify(block);
#else
    BlockMasks m = classify(block);
#endif
    uint64_t escaped = m_escapeCarry;
    if (m.backslash != 0) {
        // A backslash escapes the next character unless it is itself escaped. Runs are rare: walk them.
        uint64_t carry = 0;
        uint64_t b = m.backslash;
        while (b != 0) {
            const int i = __builtin_ctzll(b);
            b &= b - 1;
            if ((escaped >> i) & 1) continue;
            if (i == 63)
                carry = 1;
            else
                escaped |= uint64_t{1} << (i + 1);
        }
        m_escapeCarry = carry;
    } else {
        m_escapeCarry = 0;
    }
    const uint64_t quotes = m.quote & ~escaped;
    const uint64_t inString = prefixXor(quotes) ^ m_inString;
    m_inString = static_cast<uint64_t>(static_cast<int64_t>(inString) >> 63);
    const uint64_t open = m.open & ~inString;
    const uint64_t close = m.close & ~inString;
    uint64_t structural = open | close;
    while (structural != 0) {
        const int i = __builtin_ctzll(structural);
        structural &= structural - 1;
        m_depth += 1 - 2 * static_cast<int64_t>((close >> i) & 1);  // branch-free: +1 open, -1 close
        if (m_depth <= 0) [[unlikely]] {
            if (m_depth == 0) {
                res.lastElementEnd = base + static_cast<size_t>(i) + 1;
            } else {
                res.arrayEnd = base + static_cast<size_t>(i);
                return true;
            }
        }
    }
    return false;
}

ChunkSplitter::ScanResult ChunkSplitter::scan(const char* data, size_t begin, size_t end, bool final) {
    ScanResult res;
    size_t pos = begin;
    while (pos + kBlock <= end) {
        if (scanBlock(data + pos, pos, res)) {
            res.scannedTo = res.arrayEnd + 1;
            return res;
        }
        pos += kBlock;
    }
    if (final && pos < end) {
        char tmp[kBlock];
        std::memset(tmp, ' ', kBlock);
        std::memcpy(tmp, data + pos, end - pos);
        if (scanBlock(tmp, pos, res)) {
            res.scannedTo = res.arrayEnd + 1;
            return res;
        }
        pos = end;
    }
    res.scannedTo = pos;
    return res;
}

}  // namespace strobe::core
