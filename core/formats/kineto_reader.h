#pragma once
// KinetoReader: walks the outer structure of a Kineto trace as it streams in and hands out chunks of
// traceEvents cut at event boundaries. Not thread-safe: the loader's threads take turns (under a mutex) to
// read and cut the next chunk, then parse it on their own.
//
// Outer structure: either {"key": value, ..., "traceEvents": [ events ], ...} or a bare array [ events ]
// (whose closing bracket may be missing). Keys outside traceEvents are collected by a small scalar scan and
// turned into TraceInfo; the events region is cut by ChunkSplitter.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/io/chunk_splitter.h"
#include "core/io/error.h"
#include "core/io/file_source.h"
#include "core/model/trace_info.h"

namespace strobe::core::kineto {

// A growable byte buffer that keeps SIMDJSON_PADDING bytes of slack and never zero-fills.
struct ChunkBuffer {
    std::unique_ptr<char[]> data;
    size_t cap = 0;
    size_t size = 0;
    void reserve(size_t n);
};

struct ChunkJob {
    bool valid = false;
    uint64_t seq = 0;
    size_t begin = 0;         // buf.data[begin] is the '[' of the wrapped chunk
    size_t length = 0;        // bytes from begin up to and including the closing ']'
    uint64_t textOffset = 0;  // text offset of buf.data[0]
};

class KinetoReader {
public:
    KinetoReader(FileSource& source, size_t chunkBytes);

    // Reads up to the start of the events (the object's keys before traceEvents go into info()). Errors: empty
    // text, not JSON, no traceEvents, traceEvents not an array, text ending before the events.
    Status start();
    // True when keys preceded traceEvents (info() already holds them).
    bool hasLeadingKeys() const { return m_leadingKeys; }

    // Cuts the next chunk of events into `buf` (which the caller owns and parses). job.valid is false when the
    // events are exhausted; the keys after traceEvents are then read too.
    Status nextChunk(ChunkBuffer& buf, ChunkJob& job);

    TraceInfo& info() { return m_info; }
    Diagnostics& diagnostics() { return m_diagnostics; }
    bool arrayForm() const { return m_arrayForm; }
    bool truncated() const { return m_truncated; }
    uint64_t truncatedAt() const { return m_truncatedAt; }
    std::string truncationContext() const { return m_truncationContext; }
    uint64_t nextSeq() const { return m_seq; }

private:
    // Scalar scanning of the outer structure (header and trailer), over m_hbuf with refills.
    Result<bool> fill();                  // false at the end of the text
    Result<int> peekNonSpace();           // next non-space byte (not consumed), -1 at the end
    Result<bool> readString(std::string& content);  // at '"': the raw content; false if the text ends
    Result<bool> captureValue(size_t& begin, size_t& end);  // raw value text in m_hbuf[begin, end)
    Status readKeysUntilEvents();         // object form, after '{' or ','
    Status readTrailer();                 // after the events array's ']'
    void enterEvents();                   // m_hbuf from m_hpos on becomes the carry
    Error errorAt(uint64_t offset, std::string message) const;
    uint64_t hOffset() const { return m_hoff + m_hpos; }

    FileSource& m_source;
    size_t m_chunkBytes;
    TraceInfo m_info;
    Diagnostics m_diagnostics;
    bool m_arrayForm = false;
    bool m_leadingKeys = false;

    // Outer-structure scanning.
    std::vector<char> m_hbuf;
    size_t m_hpos = 0;
    uint64_t m_hoff = 0;               // text offset of m_hbuf[0]
    size_t m_hkeep = static_cast<size_t>(-1);  // bytes from here on must survive a refill
    bool m_eof = false;

    // Events region.
    ChunkSplitter m_splitter;
    std::vector<char> m_carry;         // unparsed bytes after the last cut
    size_t m_carryScanned = 0;         // how many of them the splitter has seen
    uint64_t m_carryOffset = 0;        // text offset of m_carry[0]
    bool m_eventsDone = false;
    bool m_firstChunk = true;
    uint64_t m_seq = 0;
    bool m_truncated = false;
    uint64_t m_truncatedAt = 0;
    std::string m_truncationContext;
};

}  // namespace strobe::core::kineto
