#pragma once
// The one CSV reader of Strobe (RFC 4180): quoted fields with "" escapes, delimiters and line breaks inside quotes,
// a UTF-8 byte order mark, CRLF or LF line ends, a last record without a line end. Every format that writes CSV
// (rocprofv3, rocprof v1/v2, rocprof-compute, nvidia-smi, amd-smi, rocm-smi, nsys stats, ncu, Strobe's samplers)
// goes through it; columns are looked up by header name, never by position.
//
// Records are read one at a time from text that outlives the reader (CsvFile keeps a file's bytes: mapped, or
// decompressed for .gz). Unquoted fields are views into the text; a quoted field with escapes is unescaped into the
// reader's scratch buffer, valid until the next record. Errors name the file, the data row (1-based, header not
// counted), the line where the record starts and its byte offset.

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/error.h"

namespace strobe::core {

class MappedFile;

struct CsvOptions {
    char delimiter = ',';
    bool trim = true;          // strip spaces and tabs around unquoted fields (nvidia-smi writes ", ")
    bool skipEmptyLines = true;
    bool allowRagged = false;  // records with another field count than the header are errors unless set
};

class CsvReader {
public:
    CsvReader(std::string_view text, std::string fileName, CsvOptions options = {});

    // Reads the first record as the header. Error when the text holds no record or the header is malformed.
    Status readHeader();
    const std::vector<std::string>& header() const { return m_header; }
    // Index of the column named `name` (exact match after trimming), -1 when absent.
    int column(std::string_view name) const;
    // The first of `names` that is present, -1 when none is (column sets differ between tool releases).
    int column(std::initializer_list<std::string_view> names) const;

    // Reads the next record: true when one was read, false at the end of the text. Errors: an unterminated quoted
    // field, text after a closing quote, a record whose field count differs from the header's (unless allowRagged).
    Result<bool> next();
    size_t size() const { return m_count; }
    std::string_view field(size_t i) const;  // "" when i is past the end of the record
    std::string_view operator[](size_t i) const { return field(i); }
    std::string_view field(int i) const { return i < 0 ? std::string_view() : field(static_cast<size_t>(i)); }

    // Typed views of a field; nullopt when the field is empty or not entirely a number.
    // Inline for digits-only fields (a loader parses a dozen per row); anything else goes to toIntSlow.
    std::optional<int64_t> toInt(int column) const;
    std::optional<double> toDouble(int column) const;

    int64_t row() const { return m_row; }            // 1-based data row of the current record (0: header)
    int64_t line() const { return m_recordLine; }     // 1-based line where the current record starts
    int64_t byteOffset() const { return m_recordStart; }
    size_t position() const { return m_pos; }         // bytes consumed so far (progress)
    size_t textSize() const { return m_text.size(); }
    const std::string& fileName() const { return m_file; }
    Location where() const;                           // file, row, line and byte of the current record

    // Text mapped from `file` (CsvFile does this): every 64 MiB read, the pages behind the current record are
    // released (MappedFile::Access::Release), so a 1 GB file does not stay resident beside what the loader built
    // from it. Fields of earlier records stay valid (a released page is read back when touched).
    void releaseReadPagesOf(const MappedFile* file) { m_mapped = file; }
    Error error(std::string message) const { return Error(where(), std::move(message)); }

    // Reading one text on several threads. The byte after the first line feed at or after `offset` (the text's
    // size when none): a candidate record start, right unless a quoted field spans it (which the caller checks: a
    // reader stopped there by stopAt() ends exactly on it only when it is a real record boundary).
    size_t lineStartAfter(size_t offset) const;
    // next() gives false at a record that would start at or after `offset` (SIZE_MAX: read to the end again).
    void stopAt(size_t offset) { m_stopAt = offset; }
    // A reader of the records from `offset` (a record start) to the end, with this one's header and options. Its
    // row and line numbers count from there, so its errors and rows are for a caller that checks them against a
    // sequential read (or reads again sequentially on any error).
    CsvReader continuation(size_t offset) const;

private:
    static std::optional<int64_t> toIntSlow(std::string_view s);
    Result<bool> readRecord();
    Status readQuoted(size_t fieldIndex);
    // The first delimiter or line feed at or after p (the text's size when none), from a bit mask of the 64 bytes
    // scanned last: one SIMD pass per 64 bytes, a shift and a count of trailing zeros per field.
    size_t nextSeparator(size_t p);

    struct Span {
        uint32_t inScratch = 0;  // 1: offset/length refer to m_scratch
        size_t offset = 0;
        size_t length = 0;
    };

    std::string_view m_text;
    std::string m_file;
    CsvOptions m_opt;
    size_t m_pos = 0;
    int64_t m_line = 1;
    int64_t m_row = -1;
    int64_t m_recordLine = 0;
    int64_t m_recordStart = 0;
    std::vector<std::string> m_header;
    std::vector<Span> m_spans;
    size_t m_count = 0;
    std::string m_scratch;
    const MappedFile* m_mapped = nullptr;
    size_t m_released = 0;  // bytes of the text released so far
    size_t m_stopAt = SIZE_MAX;
    size_t m_blockAt = SIZE_MAX;  // where the 64 bytes of m_blockMask start
    uint64_t m_blockMask = 0;     // bit i: byte m_blockAt + i is the delimiter or a line feed
};

// Inline: loaders read a dozen fields per row.
inline std::string_view CsvReader::field(size_t i) const {
    if (i >= m_count) return {};
    const Span& s = m_spans[i];
    return std::string_view((s.inScratch ? m_scratch.data() : m_text.data()) + s.offset, s.length);
}

inline std::optional<int64_t> CsvReader::toInt(int column) const {
    const std::string_view s = field(column);
    if (!s.empty() && s.size() <= 18) {  // the common case: digits only (18 cannot overflow int64)
        uint64_t v = 0;
        size_t i = 0;
        for (; i < s.size(); ++i) {
            const unsigned d = static_cast<unsigned>(static_cast<unsigned char>(s[i])) - '0';
            if (d > 9) break;
            v = v * 10 + d;
        }
        if (i == s.size()) return static_cast<int64_t>(v);
    }
    return toIntSlow(s);
}

// A CSV file's bytes and a reader over them. Plain files are mapped; `.gz` files are decompressed into memory.
class CsvFile {
public:
    static Result<std::unique_ptr<CsvFile>> open(const std::string& path, CsvOptions options = {});
    CsvReader& reader() { return *m_reader; }
    std::string_view text() const { return m_text; }

private:
    std::shared_ptr<const void> m_keep;  // the mapping (a MappedFile) or the decompressed string
    std::string_view m_text;
    std::unique_ptr<CsvReader> m_reader;
};

// The scan under CsvReader: the first byte of [p, end) equal to `a` or `b`, `end` when none. csvFindEither reads 16
// bytes at a time with SSE2 (every x86-64) and falls back to csvFindEitherWords elsewhere: 8 bytes at a time in a
// 64-bit word (SWAR, little-endian machines; byte by byte on others). Neither reads past `end`.
const char* csvFindEither(const char* p, const char* end, char a, char b);
const char* csvFindEitherWords(const char* p, const char* end, char a, char b);
// Bit i set where p[i] is `a` or `b`, for i < length <= 64: SSE2 for a whole 64 bytes, else 8 bytes at a time
// (SWAR) on little-endian machines, byte by byte otherwise and for a shorter tail.
uint64_t csvSeparatorMask(const char* p, size_t length, char a, char b);
uint64_t csvSeparatorMaskWords(const char* p, size_t length, char a, char b);  // the portable path, always built

// Whole-text helpers for sniffers: the first line of `head` split as a CSV header (trimmed), empty on failure.
std::vector<std::string> csvHeaderOf(std::string_view head, char delimiter = ',');

}  // namespace strobe::core
