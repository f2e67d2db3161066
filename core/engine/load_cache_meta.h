#pragma once
// The load cache's metadata block (TraceInfo, LoadStats, diagnostics...): a flat, length-prefixed encoding written
// field by field. Internal to core/engine.

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>

#include "core/model/dataset.h"

namespace strobe::core::cachefile {

// The reader checks every length against what is left.
class MetaWriter {
public:
    template <class T>
    void pod(T v) {
        static_assert(std::is_trivially_copyable_v<T>);
        m_out.append(reinterpret_cast<const char*>(&v), sizeof(T));
    }
    void u8(uint8_t v) { pod(v); }
    void i32(int32_t v) { pod(v); }
    void u32(uint32_t v) { pod(v); }
    void i64(int64_t v) { pod(v); }
    void u64(uint64_t v) { pod(v); }
    void f64(double v) { pod(v); }
    void str(std::string_view s) {
        u64(s.size());
        m_out.append(s.data(), s.size());
    }
    std::string& out() { return m_out; }

private:
    std::string m_out;
};

class MetaReader {
public:
    MetaReader(const char* data, size_t size) : m_p(data), m_n(size) {}

    template <class T>
    T pod() {
        T v{};
        if (!m_ok || m_n - m_pos < sizeof(T)) {
            fail("value runs past the end of the metadata");
            return v;
        }
        std::memcpy(&v, m_p + m_pos, sizeof(T));
        m_pos += sizeof(T);
        return v;
    }
    uint8_t u8() { return pod<uint8_t>(); }
    bool boolean() { return pod<uint8_t>() != 0; }
    int32_t i32() { return pod<int32_t>(); }
    uint32_t u32() { return pod<uint32_t>(); }
    int64_t i64() { return pod<int64_t>(); }
    uint64_t u64() { return pod<uint64_t>(); }
    double f64() { return pod<double>(); }
    std::string str() {
        const size_t at = m_pos;
        const uint64_t len = u64();
        if (!m_ok) return {};
        if (len > m_n - m_pos) {
            fail("string length runs past the end of the metadata", at);
            return {};
        }
        std::string s(m_p + m_pos, static_cast<size_t>(len));
        m_pos += static_cast<size_t>(len);
        return s;
    }
    // An element count; each element needs at least `minBytes`, so a count larger than what is left fails
    // before anything is allocated.
    size_t count(size_t minBytes) {
        const size_t at = m_pos;
        const uint64_t c = u64();
        if (!m_ok) return 0;
        if (c > (m_n - m_pos) / minBytes) {
            fail(fmt::format("count {} exceeds what the metadata can hold", c), at);
            return 0;
        }
        return static_cast<size_t>(c);
    }
    template <class E>
    E enumBelow(E limit, const char* what) {
        const size_t at = m_pos;
        const uint8_t v = u8();
        if (m_ok && v >= static_cast<uint8_t>(limit)) fail(fmt::format("{} value {} out of range", what, v), at);
        return static_cast<E>(v);
    }

    void fail(std::string why, size_t at = SIZE_MAX) {
        if (!m_ok) return;
        m_ok = false;
        m_failAt = at == SIZE_MAX ? m_pos : at;
        m_why = std::move(why);
    }
    bool ok() const { return m_ok; }
    bool atEnd() const { return m_pos == m_n; }
    size_t pos() const { return m_pos; }
    size_t failAt() const { return m_failAt; }
    const std::string& why() const { return m_why; }

private:
    const char* m_p;
    size_t m_n;
    size_t m_pos = 0;
    bool m_ok = true;
    size_t m_failAt = 0;
    std::string m_why;
};

// The metadata of `rank` (everything but its columns and strings), headed by the source's absolute path.
std::string writeMeta(const std::string& absolutePath, const RankData& rank);

// Fills everything but the columns and the strings. Returns the stored absolute source path; check r.ok().
std::string readMeta(MetaReader& r, RankData& rank);

}  // namespace strobe::core::cachefile
