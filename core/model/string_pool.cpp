#include "core/model/string_pool.h"

#include <bit>
#include <cstring>

namespace strobe::core {

namespace {
constexpr size_t kBlockSize = 1 << 20;

uint64_t load64(const char* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}
uint64_t mix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}
}  // namespace

uint64_t StringPool::hash(std::string_view s) {
    // Every byte counts: args texts such as {"Input Dims":[[16,1,1024],...]} differ in a few bytes anywhere,
    // and a sampled hash put hundreds of them in one bucket. Two independent lanes of 8-byte words keep long
    // kernel names (kilobytes) cheap: ~5 GB/s.
    const size_t n = s.size();
    const char* p = s.data();
    constexpr uint64_t k1 = 0x9e3779b97f4a7c15ULL, k2 = 0xc2b2ae3d27d4eb4fULL;
    uint64_t a = k1 ^ n, b = k2 + n;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        a = std::rotl((a ^ load64(p + i)) * k1, 29);
        b = std::rotl((b ^ load64(p + i + 8)) * k2, 31);
    }
    if (i + 8 <= n) {
        a = std::rotl((a ^ load64(p + i)) * k1, 29);
        i += 8;
    }
    if (i < n) {
        uint64_t v = 0;
        std::memcpy(&v, p + i, n - i);  // n - i > 0, so p is not null here
        b = std::rotl((b ^ v) * k2, 31);
    }
    return mix(a ^ mix(b));
}

StringPool::StringPool() {
    m_views.emplace_back();
    m_index.emplace(std::string_view{}, 0);
}

std::string_view StringPool::store(std::string_view s) {
    if (s.empty()) return {};
    if (s.size() > kBlockSize / 4) {
        auto block = std::make_unique_for_overwrite<char[]>(s.size());
        std::memcpy(block.get(), s.data(), s.size());
        std::string_view v(block.get(), s.size());
        // keep the current block as the active one: insert the big block before it
        m_blocks.insert(m_blocks.end() - (m_blocks.empty() ? 0 : 1), std::move(block));
        m_storedBytes += s.size();
        return v;
    }
    if (m_blocks.empty() || m_blockUsed + s.size() > m_blockCap) {
        m_blocks.push_back(std::make_unique_for_overwrite<char[]>(kBlockSize));  // not zeroed: 1 MiB a rank, touched only as used
        m_blockUsed = 0;
        m_blockCap = kBlockSize;
    }
    char* dst = m_blocks.back().get() + m_blockUsed;
    std::memcpy(dst, s.data(), s.size());
    m_blockUsed += s.size();
    m_storedBytes += s.size();
    return {dst, s.size()};
}

StrId StringPool::intern(std::string_view s) {
    auto it = m_index.find(s);
    if (it != m_index.end()) return it->second;
    std::string_view stored = store(s);
    auto id = static_cast<StrId>(m_views.size());
    m_views.push_back(stored);
    m_index.emplace(stored, id);
    return id;
}

std::optional<StrId> StringPool::find(std::string_view s) const {
    auto it = m_index.find(s);
    if (it == m_index.end()) return std::nullopt;
    return it->second;
}

size_t StringPool::bytes() const {
    size_t b = m_views.capacity() * sizeof(std::string_view);
    b += m_blocks.size() * kBlockSize;
    b += m_index.size() * (sizeof(std::string_view) + sizeof(StrId) + 16);
    return b;
}

StringPool StringPool::adopt(std::vector<std::string_view> views, std::shared_ptr<const void> keep) {
    StringPool p;
    p.m_views = std::move(views);
    if (p.m_views.empty()) p.m_views.emplace_back();
    p.m_keep = std::move(keep);
    p.m_index.clear();
    p.m_index.reserve(p.m_views.size());
    for (StrId i = 0; i < p.m_views.size(); ++i) p.m_index.emplace(p.m_views[i], i);
    return p;
}

}  // namespace strobe::core
