#include "core/io/csv_reader.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <fmt/format.h>

#include "core/io/file_source.h"
#include "core/io/mapped_file.h"

namespace strobe::core {
namespace {

bool isBlank(char c) { return c == ' ' || c == '\t'; }

std::string_view trimView(std::string_view s) {
    while (!s.empty() && (isBlank(s.front()) || s.front() == '\r')) s.remove_prefix(1);
    while (!s.empty() && (isBlank(s.back()) || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

}  // namespace

const char* csvFindEitherWords(const char* p, const char* end, char a, char b) {
    if constexpr (std::endian::native == std::endian::little) {
        constexpr uint64_t kOnes = 0x0101010101010101ULL, kHighs = 0x8080808080808080ULL;
        const uint64_t pa = kOnes * static_cast<unsigned char>(a), pb = kOnes * static_cast<unsigned char>(b);
        while (end - p >= 8) {
            uint64_t w;
            std::memcpy(&w, p, 8);
            const uint64_t xa = w ^ pa, xb = w ^ pb;  // a zero byte where w holds a or b
            // The lowest flagged byte is exact (borrows only run upwards); bytes above it may be false positives.
            const uint64_t m = ((xa - kOnes) & ~xa & kHighs) | ((xb - kOnes) & ~xb & kHighs);
            if (m != 0) return p + std::countr_zero(m) / 8;
            p += 8;
        }
    }
    while (p < end && *p != a && *p != b) ++p;
    return p;
}

const char* csvFindEither(const char* p, const char* end, char a, char b) {
#if defined(__SSE2__)
    const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b);
    while (end - p >= 16) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const int m = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(x, vb)));
        if (m != 0) return p + std::countr_zero(static_cast<unsigned>(m));
        p += 16;
    }
    while (p < end && *p != a && *p != b) ++p;
    return p;
#else
    return csvFindEitherWords(p, end, a, b);
#endif
}

uint64_t csvSeparatorMaskWords(const char* p, size_t length, char a, char b) {
    uint64_t mask = 0;
    size_t i = 0;
    if constexpr (std::endian::native == std::endian::little) {
        constexpr uint64_t kLows = 0x7f7f7f7f7f7f7f7fULL, kOnes = 0x0101010101010101ULL;
        const uint64_t pa = kOnes * static_cast<unsigned char>(a), pb = kOnes * static_cast<unsigned char>(b);
        auto zeroBytes = [](uint64_t v) {  // the high bit of each byte that is zero, exactly (no carries across)
            return ~(((v & kLows) + kLows) | v | kLows);
        };
        for (; i + 8 <= length; i += 8) {
            uint64_t w;
            std::memcpy(&w, p + i, 8);
            const uint64_t hits = zeroBytes(w ^ pa) | zeroBytes(w ^ pb);
            mask |= (((hits >> 7) * 0x0102040810204080ULL) >> 56) << i;  // one bit per byte, in byte order
        }
    }
    for (; i < length; ++i)
        if (p[i] == a || p[i] == b) mask |= uint64_t{1} << i;
    return mask;
}

uint64_t csvSeparatorMask(const char* p, size_t length, char a, char b) {
#if defined(__SSE2__)
    if (length == 64) {
        const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b);
        uint64_t mask = 0;
        for (size_t i = 0; i < 64; i += 16) {
            const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
            const auto m = static_cast<uint32_t>(
                _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(x, vb))));
            mask |= static_cast<uint64_t>(m) << i;
        }
        return mask;
    }
#endif
    return csvSeparatorMaskWords(p, length, a, b);
}

size_t CsvReader::nextSeparator(size_t p) {
    const size_t n = m_text.size();
    while (p < n) {
        if (p < m_blockAt || p - m_blockAt >= 64) {  // outside the block scanned last
            m_blockAt = p;
            m_blockMask = csvSeparatorMask(m_text.data() + p, std::min<size_t>(64, n - p), m_opt.delimiter, '\n');
        }
        if (const uint64_t m = m_blockMask >> (p - m_blockAt); m != 0)
            return p + static_cast<size_t>(std::countr_zero(m));
        p = m_blockAt + 64;
    }
    return n;
}

CsvReader::CsvReader(std::string_view text, std::string fileName, CsvOptions options)
    : m_text(text), m_file(std::move(fileName)), m_opt(options) {
    if (m_text.size() >= 3 && static_cast<unsigned char>(m_text[0]) == 0xEF &&
        static_cast<unsigned char>(m_text[1]) == 0xBB && static_cast<unsigned char>(m_text[2]) == 0xBF)
        m_pos = 3;  // UTF-8 byte order mark
}

Location CsvReader::where() const {
    Location l{m_file};
    if (m_row >= 1) l.row = m_row;
    if (m_recordLine > 0) l.line = m_recordLine;
    l.byteOffset = m_recordStart;
    return l;
}


// A quoted field starting at m_pos (the opening quote). Leaves m_pos after the closing quote and any blanks.
Status CsvReader::readQuoted(size_t fieldIndex) {
    const size_t open = m_pos;
    const int64_t openLine = m_line;
    ++m_pos;
    Span& span = m_spans[fieldIndex];
    span.inScratch = 0;
    span.offset = m_pos;
    bool escaped = false;
    const size_t n = m_text.size();
    while (true) {
        // One pass to the next quote, counting the line ends on the way (quoted text may hold some).
        const char* const end = m_text.data() + n;
        const char* at = m_text.data() + m_pos;
        while ((at = csvFindEither(at, end, '"', '\n')) != end && *at == '\n') {
            ++m_line;
            ++at;
        }
        const size_t q = at == end ? std::string_view::npos : static_cast<size_t>(at - m_text.data());
        if (q == std::string_view::npos) {
            Location l = where();
            l.line = openLine;
            l.byteOffset = static_cast<int64_t>(open);
            return Error(l, "unterminated quoted field (no closing \")");
        }
        if (q + 1 < n && m_text[q + 1] == '"') {  // "" inside quotes: one quote
            if (!escaped) {
                escaped = true;
                span.inScratch = 1;
                span.offset = m_scratch.size();
                m_scratch.append(m_text.substr(open + 1, q + 1 - (open + 1)));
            } else {
                m_scratch.append(m_text.substr(m_pos, q + 1 - m_pos));
            }
            m_pos = q + 2;
            continue;
        }
        if (escaped) {
            m_scratch.append(m_text.substr(m_pos, q - m_pos));
            span.length = m_scratch.size() - span.offset;
        } else {
            span.length = q - span.offset;
        }
        m_pos = q + 1;
        break;
    }
    while (m_pos < n && isBlank(m_text[m_pos])) ++m_pos;
    if (m_pos < n && m_text[m_pos] != m_opt.delimiter && m_text[m_pos] != '\n' && m_text[m_pos] != '\r') {
        Location l = where();
        l.byteOffset = static_cast<int64_t>(m_pos);
        l.line = m_line;
        return Error(l, fmt::format("unexpected character '{}' after a closing quote (expected '{}' or a line end)",
                                    m_text[m_pos], m_opt.delimiter));
    }
    return Ok{};
}

Result<bool> CsvReader::readRecord() {
    const size_t n = m_text.size();
    m_scratch.clear();
    m_count = 0;
    // Skip empty lines between records.
    while (m_pos < n) {
        if (m_text[m_pos] == '\n') {
            ++m_pos;
            ++m_line;
        } else if (m_text[m_pos] == '\r' && m_pos + 1 < n && m_text[m_pos + 1] == '\n') {
            m_pos += 2;
            ++m_line;
        } else if (m_opt.skipEmptyLines && m_text[m_pos] == '\r') {
            ++m_pos;
        } else {
            break;
        }
        if (!m_opt.skipEmptyLines) break;
    }
    if (m_pos >= n) return false;
    m_recordStart = static_cast<int64_t>(m_pos);
    m_recordLine = m_line;
    while (true) {
        if (m_count == m_spans.size()) m_spans.emplace_back();
        const size_t fieldIndex = m_count++;
        size_t p = m_pos;
        while (p < n && isBlank(m_text[p])) ++p;
        if (p < n && m_text[p] == '"') {
            m_pos = p;
            if (Status s = readQuoted(fieldIndex); !s) return s.error();
        } else {
            const size_t startRaw = m_pos;
            m_pos = nextSeparator(m_pos);
            std::string_view v = m_text.substr(startRaw, m_pos - startRaw);
            if (!v.empty() && v.back() == '\r') v.remove_suffix(1);
            if (m_opt.trim) v = trimView(v);
            m_spans[fieldIndex] = Span{0, static_cast<size_t>(v.data() - m_text.data()), v.size()};
        }
        if (m_pos >= n) break;
        if (m_text[m_pos] == m_opt.delimiter) {
            ++m_pos;
            continue;
        }
        if (m_text[m_pos] == '\r') ++m_pos;
        if (m_pos < n && m_text[m_pos] == '\n') {
            ++m_pos;
            ++m_line;
        }
        break;
    }
    return true;
}

Status CsvReader::readHeader() {
    auto r = readRecord();
    if (!r) return r.error();
    if (!r.value()) return Error(Location{m_file}, "empty file: no CSV header");
    m_header.clear();
    for (size_t i = 0; i < m_count; ++i) m_header.emplace_back(trimView(field(i)));
    m_row = 0;
    return Ok{};
}

Result<bool> CsvReader::next() {
    if (m_pos >= m_stopAt) {
        m_count = 0;
        return false;
    }
    auto r = readRecord();
    if (!r) {
        ++m_row;
        Error e = r.error();
        e.where.row = m_row;
        return e;
    }
    if (!r.value()) return false;
    ++m_row;
    if (constexpr size_t kReleaseStep = size_t{64} << 20; m_mapped && m_recordStart > 0 &&
                                                          static_cast<size_t>(m_recordStart) - m_released >= kReleaseStep) {
        m_mapped->advise(MappedFile::Access::Release, m_released, static_cast<size_t>(m_recordStart) - m_released);
        m_released = static_cast<size_t>(m_recordStart);
    }
    if (!m_opt.allowRagged && !m_header.empty() && m_count != m_header.size())
        return error(fmt::format("{} fields where the header has {}", m_count, m_header.size()));
    return true;
}

size_t CsvReader::lineStartAfter(size_t offset) const {
    if (offset >= m_text.size()) return m_text.size();
    const void* lf = std::memchr(m_text.data() + offset, '\n', m_text.size() - offset);
    return lf == nullptr ? m_text.size() : static_cast<size_t>(static_cast<const char*>(lf) - m_text.data()) + 1;
}

CsvReader CsvReader::continuation(size_t offset) const {
    CsvReader r(m_text, m_file, m_opt);
    r.m_header = m_header;
    r.m_pos = std::min(offset, m_text.size());
    r.m_row = 0;
    r.m_mapped = m_mapped;
    r.m_released = r.m_pos;  // the pages before it are this reader's to release
    return r;
}

int CsvReader::column(std::string_view name) const {
    for (size_t i = 0; i < m_header.size(); ++i)
        if (m_header[i] == name) return static_cast<int>(i);
    return -1;
}

int CsvReader::column(std::initializer_list<std::string_view> names) const {
    for (std::string_view n : names)
        if (int c = column(n); c >= 0) return c;
    return -1;
}

std::optional<int64_t> CsvReader::toIntSlow(std::string_view s) {
    s = trimView(s);
    if (s.empty()) return std::nullopt;
    if (s.front() == '+') s.remove_prefix(1);
    int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
}

std::optional<double> CsvReader::toDouble(int column) const {
    std::string_view s = trimView(field(column));
    if (s.empty()) return std::nullopt;
    if (s.front() == '+') s.remove_prefix(1);
    double v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

Result<std::unique_ptr<CsvFile>> CsvFile::open(const std::string& path, CsvOptions options) {
    auto f = std::unique_ptr<CsvFile>(new CsvFile());
    auto file = readFileText(path);
    if (!file) return file.error();
    f->m_text = file.value().text;
    f->m_keep = std::move(file.value().keep);
    f->m_reader = std::make_unique<CsvReader>(f->m_text, path, options);
    // readFileText maps every file it does not decompress: keep is then the MappedFile that text points into.
    if (!file.value().gzip) f->m_reader->releaseReadPagesOf(static_cast<const MappedFile*>(f->m_keep.get()));
    if (Status s = f->m_reader->readHeader(); !s) return s.error();
    return f;
}

std::vector<std::string> csvHeaderOf(std::string_view head, char delimiter) {
    CsvOptions o;
    o.delimiter = delimiter;
    CsvReader r(head, std::string(), o);
    if (!r.readHeader()) return {};
    return r.header();
}

}  // namespace strobe::core
