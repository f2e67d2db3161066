#pragma once
// The load cache file's layout (see load_cache.h): header, column directory entries, their limits, and the order
// in which a rank's columns are stored. Internal to core/engine (load_cache.cpp, load_cache_meta.cpp).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/model/dataset.h"

namespace strobe::core::cachefile {

inline constexpr char kMagic[8] = {'S', 'T', 'R', 'O', 'B', 'E', 'L', 'C'};
inline constexpr uint32_t kEndianTag = 0x01020304u;
inline constexpr size_t kHeaderSize = 256;
inline constexpr size_t kAlign = 64;
inline constexpr size_t kNameSize = 48;
inline constexpr uint32_t kMaxElemSize = 1u << 16;
inline constexpr std::string_view kStrOffsets = "strings.offsets";
inline constexpr std::string_view kStrBlob = "strings.blob";

struct Header {
    char magic[8];
    uint32_t endianTag;
    uint32_t formatVersion;
    uint32_t loaderVersion;
    uint32_t headerSize;
    uint64_t fileSize;
    uint64_t sourceSize;
    int64_t sourceMtimeNs;
    uint64_t optionsKey;
    uint64_t metaOffset;
    uint64_t metaSize;
    uint64_t metaChecksum;
    uint64_t dirOffset;
    uint64_t dirCount;
    uint64_t dirChecksum;
    // Format 3: the source group the entry belongs to (every file's path, size and mtime: LoadCache::groupHash),
    // which of the group's ranks this entry holds, how many there are, and an id shared by the entries of one
    // write (entries of two writes never mix).
    uint64_t groupHash;
    uint32_t rankIndex;
    uint32_t rankCount;
    uint64_t writeId;
    uint64_t reserved[15];
    uint64_t headerChecksum;  // over every byte before it
};
static_assert(sizeof(Header) == kHeaderSize && std::is_trivially_copyable_v<Header>);
inline constexpr size_t kHeaderChecked = offsetof(Header, headerChecksum);

struct DirEntry {
    char name[kNameSize];  // "table.column", NUL-padded
    uint32_t elemSize;
    uint32_t flags;  // 0
    uint64_t count;
    uint64_t offset;
    uint64_t checksum;
};
static_assert(sizeof(DirEntry) == 80 && std::is_trivially_copyable_v<DirEntry>);

inline uint64_t alignUp(uint64_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

// offset + length within size, without overflow.
inline bool inRange(uint64_t offset, uint64_t length, uint64_t size) { return offset <= size && length <= size - offset; }

// Every column of a rank, named "table.column", in a fixed order. The tables come from visitTables /
// visitColumns, so a column or table added there is cached without touching this file.
template <class F>
void visitAllColumns(RankData& rank, F&& f) {
    f(std::string("rank.tracks"), rank.tracks);
    f(std::string("rank.processes"), rank.processes);
    f(std::string("rank.threads"), rank.threads);
    rank.visitTables([&](const char* table, auto& t) {
        t.visitColumns([&](const char* column, auto& col) { f(std::string(table) + "." + column, col); });
    });
}

}  // namespace strobe::core::cachefile
