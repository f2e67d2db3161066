#pragma once
// Column<T>: one column of a columnar table. Either owns its values (while a loader fills it) or views
// memory that something else keeps alive (a memory-mapped load-cache file). Immutable once a Dataset is
// published; only owned columns may be changed.

#include <cassert>
#include <cstddef>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

namespace strobe::core {

template <class T>
class Column {
    static_assert(std::is_trivially_copyable_v<T>, "columns hold plain values");

public:
    using value_type = T;

    Column() = default;
    Column(std::vector<T> values) : m_own(std::move(values)) {}  // NOLINT(google-explicit-constructor)

    // A column over memory kept alive by `keep` (e.g. a mapped file). Never copies.
    static Column view(const T* data, size_t n, std::shared_ptr<const void> keep) {
        Column c;
        c.m_ext = data;
        c.m_extSize = n;
        c.m_keep = std::move(keep);
        return c;
    }

    bool isView() const { return m_ext != nullptr || m_keep != nullptr; }
    size_t size() const { return isView() ? m_extSize : m_own.size(); }
    bool empty() const { return size() == 0; }
    const T* data() const { return isView() ? m_ext : m_own.data(); }
    const T& operator[](size_t i) const {
        assert(i < size());
        return data()[i];
    }
    std::span<const T> span() const { return {data(), size()}; }
    const T* begin() const { return data(); }
    const T* end() const { return data() + size(); }
    size_t bytes() const { return isView() ? m_extSize * sizeof(T) : m_own.capacity() * sizeof(T); }

    // Mutation: only for owned columns (a view is first copied into owned storage).
    std::vector<T>& mut() {
        if (isView()) {
            m_own.assign(m_ext, m_ext + m_extSize);
            m_ext = nullptr;
            m_extSize = 0;
            m_keep.reset();
        }
        return m_own;
    }
    void push_back(const T& v) { mut().push_back(v); }
    void reserve(size_t n) { mut().reserve(n); }
    void resize(size_t n, const T& v = T{}) { mut().resize(n, v); }
    T& at(size_t i) { return mut()[i]; }
    void shrinkToFit() {
        if (!isView()) m_own.shrink_to_fit();
    }

private:
    std::vector<T> m_own;
    const T* m_ext = nullptr;
    size_t m_extSize = 0;
    std::shared_ptr<const void> m_keep;
};

}  // namespace strobe::core
