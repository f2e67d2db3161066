#pragma once
// Hashes of the load cache: the checksum over file regions (LoadCache::checksum) and the hash of a source path
// that names its entry. Internal to core/engine.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace strobe::core::cachefile {

// The checksum: four independent 64-bit multiply-rotate lanes over 32-byte stripes (the structure of xxHash64),
// so it runs near memory speed; streaming, so pieces (the string blob) hash like one buffer.
inline constexpr uint64_t kP1 = 0x9E3779B185EBCA87ULL;
inline constexpr uint64_t kP2 = 0xC2B2AE3D27D4EB4FULL;
inline constexpr uint64_t kP3 = 0x165667B19E3779F9ULL;
inline constexpr uint64_t kP4 = 0x85EBCA77C2B2AE63ULL;
inline constexpr uint64_t kP5 = 0x27D4EB2F165667C5ULL;

inline uint64_t load64(const unsigned char* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}
inline uint32_t load32(const unsigned char* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}
inline uint64_t round64(uint64_t acc, uint64_t in) {
    acc += in * kP2;
    acc = std::rotl(acc, 31);
    return acc * kP1;
}

class Hasher {
public:
    explicit Hasher(uint64_t seed = 0) : m_v{seed + kP1 + kP2, seed + kP2, seed, seed - kP1}, m_seed(seed) {}

    void update(const void* data, size_t n) {
        const auto* p = static_cast<const unsigned char*>(data);
        m_total += n;
        if (m_bufLen != 0) {
            const size_t take = std::min(n, sizeof(m_buf) - m_bufLen);
            std::memcpy(m_buf + m_bufLen, p, take);
            m_bufLen += take;
            p += take;
            n -= take;
            if (m_bufLen < sizeof(m_buf)) return;
            stripe(m_buf);
            m_bufLen = 0;
        }
        while (n >= 32) {
            stripe(p);
            p += 32;
            n -= 32;
        }
        if (n != 0) {
            std::memcpy(m_buf, p, n);
            m_bufLen = n;
        }
    }

    uint64_t finish() const {
        uint64_t h;
        if (m_total >= 32) {
            h = std::rotl(m_v[0], 1) + std::rotl(m_v[1], 7) + std::rotl(m_v[2], 12) + std::rotl(m_v[3], 18);
            for (uint64_t v : m_v) h = (h ^ round64(0, v)) * kP1 + kP4;
        } else {
            h = m_seed + kP5;
        }
        h += m_total;
        const unsigned char* p = m_buf;
        size_t n = m_bufLen;
        for (; n >= 8; p += 8, n -= 8) h = std::rotl(h ^ round64(0, load64(p)), 27) * kP1 + kP4;
        if (n >= 4) {
            h = std::rotl(h ^ (uint64_t{load32(p)} * kP1), 23) * kP2 + kP3;
            p += 4;
            n -= 4;
        }
        for (; n > 0; ++p, --n) h = std::rotl(h ^ (uint64_t{*p} * kP5), 11) * kP1;
        h ^= h >> 33;
        h *= kP2;
        h ^= h >> 29;
        h *= kP3;
        h ^= h >> 32;
        return h;
    }

private:
    void stripe(const unsigned char* p) {
        m_v[0] = round64(m_v[0], load64(p));
        m_v[1] = round64(m_v[1], load64(p + 8));
        m_v[2] = round64(m_v[2], load64(p + 16));
        m_v[3] = round64(m_v[3], load64(p + 24));
    }

    uint64_t m_v[4];
    uint64_t m_seed;
    uint64_t m_total = 0;
    unsigned char m_buf[32] = {};
    size_t m_bufLen = 0;
};

// FNV-1a over the whole path: the entry's file name (StringPool::hash samples only parts of long strings).
inline uint64_t pathHash(std::string_view s) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return h;
}

}  // namespace strobe::core::cachefile
