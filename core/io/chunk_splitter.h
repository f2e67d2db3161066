#pragma once
// ChunkSplitter: finds the boundaries between the elements of a JSON array that arrives in pieces, without
// parsing it. It tracks string and escape state and bracket depth across calls, 64 bytes at a time (SSE2 where
// available), so a loader can cut a stream at element boundaries and hand each piece to a parser as its own
// small document.
//
// The splitter starts just inside the array (after '['). Depth 0 is "between elements"; an element ends when a
// closing bracket brings the depth back to 0; the array ends at a closing bracket at depth 0.

#include <cstddef>
#include <cstdint>

namespace strobe::core {

class ChunkSplitter {
public:
    static constexpr size_t kBlock = 64;
    static constexpr size_t npos = static_cast<size_t>(-1);

    struct ScanResult {
        size_t scannedTo = 0;        // bytes [begin, scannedTo) were consumed by this call
        size_t lastElementEnd = npos;  // offset just past the last element that closed in this call
        size_t arrayEnd = npos;      // offset of the array's closing bracket, if it was reached
    };

    // Scans data[begin, end). Only whole 64-byte blocks are consumed unless `final` is set (end of the text),
    // in which case everything is. Scanning stops at the array's closing bracket. Offsets are relative to
    // `data`; the caller may move unconsumed bytes elsewhere between calls (state does not hold pointers).
    ScanResult scan(const char* data, size_t begin, size_t end, bool final);

    void reset();
    bool inString() const { return m_inString != 0; }
    int64_t depth() const { return m_depth; }

private:
    // Returns true when the array ended inside this block (res updated).
    bool scanBlock(const char* block, size_t base, ScanResult& res);

    uint64_t m_inString = 0;     // all ones while inside a string at the end of the previous block
    uint64_t m_escapeCarry = 0;  // 1 when the previous block ended with an unescaped backslash
    int64_t m_depth = 0;
};

}  // namespace strobe::core
