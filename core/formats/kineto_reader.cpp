#include "core/formats/kineto_reader.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <simdjson.h>

#include "core/formats/kineto_header.h"
#include "core/formats/kineto_text.h"

namespace strobe::core::kineto {

namespace {
constexpr size_t kPadding = simdjson::SIMDJSON_PADDING;

std::string describeByte(int c) {
    if (c >= 0x20 && c < 0x7f) return fmt::format("'{}'", static_cast<char>(c));
    return fmt::format("byte 0x{:02x}", c);
}
}  // namespace

void ChunkBuffer::reserve(size_t n) {
    n += kPadding + 1;
    if (n <= cap) return;
    const size_t newCap = std::max(n, cap + cap / 2);
    auto fresh = std::make_unique_for_overwrite<char[]>(newCap);
    if (size) std::memcpy(fresh.get(), data.get(), size);
    data = std::move(fresh);
    cap = newCap;
}

KinetoReader::KinetoReader(FileSource& source, size_t chunkBytes)
    : m_source(source), m_chunkBytes(std::max<size_t>(chunkBytes, 256)) {}

Error KinetoReader::errorAt(uint64_t offset, std::string message) const {
    Location where{m_source.name()};
    where.byteOffset = static_cast<int64_t>(offset);
    return Error(where, std::move(message));
}

Result<bool> KinetoReader::fill() {
    if (m_eof) return false;
    const size_t drop = std::min(m_hpos, m_hkeep);
    if (drop > 0) {
        m_hbuf.erase(m_hbuf.begin(), m_hbuf.begin() + static_cast<std::ptrdiff_t>(drop));
        m_hpos -= drop;
        if (m_hkeep != static_cast<size_t>(-1)) m_hkeep -= drop;
        m_hoff += drop;
    }
    const size_t old = m_hbuf.size();
    const size_t want = std::min<size_t>(m_chunkBytes, 1 << 16);  // the outer keys are small: read modestly
    m_hbuf.resize(old + want);
    auto r = m_source.read(m_hbuf.data() + old, want);
    if (!r.ok()) {
        m_hbuf.resize(old);
        return r.error();
    }
    m_hbuf.resize(old + *r);
    if (*r == 0) m_eof = true;
    return *r > 0;
}

Result<int> KinetoReader::peekNonSpace() {
    for (;;) {
        while (m_hpos < m_hbuf.size()) {
            const char c = m_hbuf[m_hpos];
            if (!isJsonSpace(c)) return static_cast<int>(static_cast<unsigned char>(c));
            ++m_hpos;
        }
        auto more = fill();
        if (!more.ok()) return more.error();
        if (!*more) return -1;
    }
}

Result<bool> KinetoReader::readString(std::string& content) {
    ++m_hpos;  // opening quote
    content.clear();
    bool escape = false;
    for (;;) {
        while (m_hpos < m_hbuf.size()) {
            const char c = m_hbuf[m_hpos++];
            if (escape) {
                escape = false;
            } else if (c == '\\') {
                escape = true;
            } else if (c == '"') {
                return true;
            }
            content.push_back(c);
        }
        auto more = fill();
        if (!more.ok()) return more.error();
        if (!*more) return false;
    }
}

Result<bool> KinetoReader::captureValue(size_t& begin, size_t& end) {
    auto first = peekNonSpace();
    if (!first.ok()) return first.error();
    if (*first < 0) return false;
    m_hkeep = m_hpos;
    int64_t depth = 0;
    bool inString = false, escape = false;
    for (;;) {
        while (m_hpos < m_hbuf.size()) {
            const char c = m_hbuf[m_hpos];
            if (inString) {
                ++m_hpos;
                if (escape) escape = false;
                else if (c == '\\') escape = true;
                else if (c == '"') {
                    inString = false;
                    if (depth == 0) goto done;
                }
                continue;
            }
            if (c == '"') {
                inString = true;
                ++m_hpos;
                continue;
            }
            if (c == '{' || c == '[') {
                ++depth;
                ++m_hpos;
                continue;
            }
            if (c == '}' || c == ']') {
                if (depth == 0) goto done;  // end of the enclosing object: a scalar value ends here
                ++m_hpos;
                if (--depth == 0) goto done;
                continue;
            }
            if (depth == 0 && (c == ',' || isJsonSpace(c))) goto done;
            ++m_hpos;
        }
        {
            auto more = fill();
            if (!more.ok()) {
                m_hkeep = static_cast<size_t>(-1);
                return more.error();
            }
            if (!*more) {
                m_hkeep = static_cast<size_t>(-1);
                return false;
            }
        }
    }
done:
    begin = m_hkeep;
    end = m_hpos;
    m_hkeep = static_cast<size_t>(-1);
    return true;
}

Status KinetoReader::start() {
    m_info.path = m_source.name();
    m_info.fileSize = m_source.fileSize();
    m_info.gzip = m_source.gzip();
    // Kineto writes Unix-epoch microseconds: already on the realtime clock.
    m_info.clock = ClockInfo{ClockDomain::Realtime, true, 0, "Kineto timestamps are Unix-epoch microseconds"};
    auto c = peekNonSpace();
    if (!c.ok()) return c.error();
    // A UTF-8 byte order mark is tolerated.
    if (*c == 0xEF && m_hbuf.size() - m_hpos >= 3 && static_cast<unsigned char>(m_hbuf[m_hpos + 1]) == 0xBB &&
        static_cast<unsigned char>(m_hbuf[m_hpos + 2]) == 0xBF) {
        m_hpos += 3;
        c = peekNonSpace();
        if (!c.ok()) return c.error();
    }
    if (*c < 0)
        return errorAt(hOffset(), "the file is empty: expected a JSON object with \"traceEvents\" or an array of "
                                  "trace events");
    if (*c == '[') {
        m_arrayForm = true;
        ++m_hpos;
        enterEvents();
        return Ok{};
    }
    if (*c != '{')
        return errorAt(hOffset(), fmt::format("not a JSON trace: expected '{{' or '[' at the start, found {}",
                                              describeByte(*c)));
    ++m_hpos;
    auto next = peekNonSpace();
    if (!next.ok()) return next.error();
    if (*next == '}') return errorAt(hOffset(), "no \"traceEvents\" key: expected {\"traceEvents\": [...]}");
    return readKeysUntilEvents();
}

Status KinetoReader::readKeysUntilEvents() {
    std::string key;
    for (;;) {
        auto c = peekNonSpace();
        if (!c.ok()) return c.error();
        if (*c < 0)
            return errorAt(hOffset(), "the file ends before \"traceEvents\": expected a key of the top-level object");
        if (*c != '"')
            return errorAt(hOffset(), fmt::format("expected a quoted key in the top-level object, found {}",
                                                  describeByte(*c)));
        const uint64_t keyOffset = hOffset();
        auto s = readString(key);
        if (!s.ok()) return s.error();
        if (!*s) return errorAt(hOffset(), "the file ends inside a top-level key: expected \"traceEvents\"");
        std::string unescaped;
        if (!unescapeJson(key, unescaped)) unescaped = key;
        c = peekNonSpace();
        if (!c.ok()) return c.error();
        if (*c != ':')
            return errorAt(hOffset(), *c < 0 ? std::string("the file ends after a top-level key: expected ':'")
                                             : fmt::format("expected ':' after key \"{}\", found {}", unescaped,
                                                           describeByte(*c)));
        ++m_hpos;
        if (unescaped == "traceEvents") {
            c = peekNonSpace();
            if (!c.ok()) return c.error();
            if (*c != '[')
                return errorAt(hOffset(), *c < 0 ? std::string("the file ends after \"traceEvents\": expected '['")
                                                 : fmt::format("\"traceEvents\" must be an array: expected '[', "
                                                               "found {}",
                                                               describeByte(*c)));
            ++m_hpos;
            enterEvents();
            return Ok{};
        }
        size_t b = 0, e = 0;
        const uint64_t valueOffset = hOffset();
        auto v = captureValue(b, e);
        if (!v.ok()) return v.error();
        if (!*v)
            return errorAt(hOffset(), fmt::format("the file ends inside the value of top-level key \"{}\" (at byte "
                                                  "{}), before \"traceEvents\"",
                                                  unescaped, valueOffset));
        applyTopLevelKey(m_info, unescaped, std::string_view(m_hbuf.data() + b, e - b), m_source.name(), valueOffset,
                         m_diagnostics);
        m_leadingKeys = true;
        (void)keyOffset;
        c = peekNonSpace();
        if (!c.ok()) return c.error();
        if (*c == ',') {
            ++m_hpos;
            continue;
        }
        if (*c == '}') return errorAt(hOffset(), "no \"traceEvents\" key: expected {\"traceEvents\": [...]}");
        if (*c < 0) return errorAt(hOffset(), "the file ends before \"traceEvents\": expected ',' or '}'");
        return errorAt(hOffset(), fmt::format("expected ',' or '}}' after the value of \"{}\", found {}", unescaped,
                                              describeByte(*c)));
    }
}

void KinetoReader::enterEvents() {
    m_carry.assign(m_hbuf.begin() + static_cast<std::ptrdiff_t>(m_hpos), m_hbuf.end());
    m_carryOffset = hOffset();
    m_carryScanned = 0;
    m_splitter.reset();
    m_hbuf.clear();
    m_hbuf.shrink_to_fit();
    m_hpos = 0;
}

Status KinetoReader::readTrailer() {
    // m_hbuf holds the bytes after the events array's ']' (m_hoff is their offset).
    std::string key;
    // A warning at the current trailer position.
    auto warnHere = [&](std::string message) {
        Location where{m_source.name()};
        where.byteOffset = static_cast<int64_t>(hOffset());
        m_diagnostics.push_back({Severity::Warning, where, std::move(message)});
    };
    // Anything but white space after the end of the JSON text is reported and ignored.
    auto endOfText = [&](std::string_view after) -> Status {
        auto c = peekNonSpace();
        if (!c.ok()) return c.error();
        if (*c >= 0) warnHere(fmt::format("unexpected data after {} (found {}): ignored", after, describeByte(*c)));
        return Ok{};
    };
    if (m_arrayForm) return endOfText("the closing ']' of the trace array");
    auto truncatedHere = [&](std::string_view what) {
        warnHere(fmt::format("the file ends at byte {} {} (after traceEvents): every event was kept",
                             hOffset(), what));
    };
    for (;;) {
        auto c = peekNonSpace();
        if (!c.ok()) return c.error();
        if (*c < 0) {
            truncatedHere("before the closing '}' of the top-level object");
            return Ok{};
        }
        if (*c == '}') {
            ++m_hpos;
            break;
        }
        if (*c != ',') {
            warnHere(fmt::format("expected ',' or '}}' after traceEvents, found {}: the rest of the file was "
                                 "ignored", describeByte(*c)));
            return Ok{};
        }
        ++m_hpos;
        c = peekNonSpace();
        if (!c.ok()) return c.error();
        if (*c != '"') {
            if (*c < 0) {
                truncatedHere("inside the top-level object");
                return Ok{};
            }
            warnHere(fmt::format("expected a quoted key after traceEvents, found {}: the rest of the file was "
                                 "ignored", describeByte(*c)));
            return Ok{};
        }
        auto s = readString(key);
        if (!s.ok()) return s.error();
        std::string unescaped;
        if (!unescapeJson(key, unescaped)) unescaped = key;
        c = *s ? peekNonSpace() : Result<int>(-1);
        if (!c.ok()) return c.error();
        if (*c != ':') {
            truncatedHere(fmt::format("inside the top-level key \"{}\"", unescaped));
            return Ok{};
        }
        ++m_hpos;
        size_t b = 0, e = 0;
        const uint64_t valueOffset = hOffset();
        auto v = captureValue(b, e);
        if (!v.ok()) return v.error();
        if (!*v) {
            truncatedHere(fmt::format("inside the value of the top-level key \"{}\"", unescaped));
            return Ok{};
        }
        applyTopLevelKey(m_info, unescaped, std::string_view(m_hbuf.data() + b, e - b), m_source.name(), valueOffset,
                         m_diagnostics);
    }
    return endOfText("the end of the JSON object");
}

Status KinetoReader::nextChunk(ChunkBuffer& buf, ChunkJob& job) {
    job = ChunkJob{};
    if (m_eventsDone) return Ok{};
    // Layout: [0] placeholder for '[' | carry | new bytes ... | padding
    buf.size = 0;
    buf.reserve(1 + m_carry.size() + m_chunkBytes);
    buf.data[0] = '[';
    if (!m_carry.empty()) std::memcpy(buf.data.get() + 1, m_carry.data(), m_carry.size());
    buf.size = 1 + m_carry.size();
    const uint64_t base = m_carryOffset - 1;  // text offset of buf.data[0]
    size_t scanFrom = 1 + m_carryScanned;
    size_t lastEnd = ChunkSplitter::npos;
    size_t chunkEnd = 0;
    bool arrayClosed = false;
    bool sawEof = false;
    for (;;) {
        buf.reserve(buf.size + m_chunkBytes);
        auto r = m_source.read(buf.data.get() + buf.size, m_chunkBytes);
        if (!r.ok()) return r.error();
        const bool eof = *r == 0;
        buf.size += *r;
        const auto res = m_splitter.scan(buf.data.get(), scanFrom, buf.size, eof);
        scanFrom = res.scannedTo;
        if (res.lastElementEnd != ChunkSplitter::npos) lastEnd = res.lastElementEnd;
        if (res.arrayEnd != ChunkSplitter::npos) {
            chunkEnd = res.arrayEnd;
            arrayClosed = true;
            break;
        }
        if (eof) {
            sawEof = true;
            chunkEnd = lastEnd == ChunkSplitter::npos ? 1 : lastEnd;
            // Whatever follows the last complete event: only separators → a legal open array (or a cut between
            // events); anything else → an event cut short.
            bool partial = false;
            for (size_t i = chunkEnd; i < buf.size; ++i) {
                const char ch = buf.data[i];
                if (!isJsonSpace(ch) && ch != ',') {
                    partial = true;
                    break;
                }
            }
            if (partial || !m_arrayForm) {
                m_truncated = true;
                m_truncatedAt = base + buf.size;
                m_truncationContext = partial ? "inside an event of traceEvents" : "inside traceEvents, between events";
            }
            break;
        }
        if (lastEnd != ChunkSplitter::npos) {
            chunkEnd = lastEnd;
            break;
        }
        // No event ended yet: an event larger than the chunk. Keep reading (the buffer grows).
    }

    if (arrayClosed) {
        // A comma before the closing bracket ([{...},]) is not JSON, but writers produce it: tolerate it.
        size_t k = chunkEnd;
        while (k > 1 && isJsonSpace(buf.data[k - 1])) --k;
        if (k > 1 && buf.data[k - 1] == ',') {
            buf.data[k - 1] = ' ';
            Location where{m_source.name()};
            where.byteOffset = static_cast<int64_t>(base + k - 1);
            m_diagnostics.push_back({Severity::Info, where, "a comma before the closing ']' of the events was ignored"});
        }
        m_eventsDone = true;
        m_hbuf.assign(buf.data.get() + chunkEnd + 1, buf.data.get() + buf.size);
        m_hoff = base + chunkEnd + 1;
        m_hpos = 0;
        m_carry.clear();
        if (auto t = readTrailer(); !t.ok()) return t.error();
    } else if (sawEof) {
        m_eventsDone = true;
        m_carry.clear();
    } else {
        m_carry.assign(buf.data.get() + chunkEnd, buf.data.get() + buf.size);
        m_carryOffset = base + chunkEnd;
        m_carryScanned = scanFrom - chunkEnd;
    }

    // Wrap the chunk as an array: '[' on the separating comma (or the placeholder), ']' after the last event.
    size_t begin = 0;
    if (!m_firstChunk) {
        size_t i = 1;
        while (i < chunkEnd && isJsonSpace(buf.data[i])) ++i;
        if (i < chunkEnd && buf.data[i] == ',') {
            buf.data[i] = '[';
            begin = i;
        }
    }
    m_firstChunk = false;
    buf.data[chunkEnd] = ']';
    std::memset(buf.data.get() + chunkEnd + 1, ' ', kPadding);
    job.valid = true;
    job.seq = m_seq++;
    job.begin = begin;
    job.length = chunkEnd + 1 - begin;
    job.textOffset = base;
    return Ok{};
}

}  // namespace strobe::core::kineto
