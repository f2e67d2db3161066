#pragma once
// StringPool: interned strings (names, categories, argument keys and values). Tables hold StrId.
// Id 0 is always the empty string. Views stay valid for the pool's lifetime (storage never moves).

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace strobe::core {

using StrId = uint32_t;
inline constexpr StrId kEmptyStr = 0;

class StringPool {
public:
    StringPool();
    StringPool(const StringPool&) = delete;
    StringPool& operator=(const StringPool&) = delete;
    StringPool(StringPool&&) noexcept = default;
    StringPool& operator=(StringPool&&) noexcept = default;

    StrId intern(std::string_view s);
    std::optional<StrId> find(std::string_view s) const;
    std::string_view view(StrId id) const { return id < m_views.size() ? m_views[id] : std::string_view{}; }
    std::string str(StrId id) const { return std::string(view(id)); }
    size_t size() const { return m_views.size(); }
    size_t bytes() const;  // approximate memory held

    // Adopt strings that live in memory kept alive by `keep` (load cache): views[i] are used as-is. O(1) per
    // string: the lookup index (what find() and intern() need) is built on their first call, thread-safely,
    // so that reopening a cached trace with millions of strings does not pay for an index it may never use.
    static StringPool adopt(std::vector<std::string_view> views, std::shared_ptr<const void> keep);

    // A cheap hash for long names (kernel names run to kilobytes): length, head, middle and tail words.
    static uint64_t hash(std::string_view s);

private:
    struct Hash {
        size_t operator()(std::string_view s) const { return static_cast<size_t>(StringPool::hash(s)); }
    };
    std::string_view store(std::string_view s);
    void ensureIndex() const;  // builds m_index of an adopted pool once

    std::vector<std::unique_ptr<char[]>> m_blocks;
    size_t m_blockUsed = 0;
    size_t m_blockCap = 0;
    size_t m_storedBytes = 0;
    std::vector<std::string_view> m_views;
    // Built eagerly for pools that intern, lazily (under m_indexOnce) for adopted ones: const reads stay
    // thread-safe either way.
    mutable std::unordered_map<std::string_view, StrId, Hash> m_index;
    mutable std::unique_ptr<std::once_flag> m_indexOnce;  // set while an adopted pool's index is not built
    std::shared_ptr<const void> m_keep;
};

}  // namespace strobe::core
