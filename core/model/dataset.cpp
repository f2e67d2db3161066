#include "core/model/dataset.h"

#include <atomic>

namespace strobe::core {

size_t RankData::bytes() const {
    size_t b = strings.bytes() + tracks.bytes() + processes.bytes() + threads.bytes();
    auto& self = const_cast<RankData&>(*this);  // visit is non-const; we only read sizes
    self.visitTables([&](const char*, auto& table) {
        table.visitColumns([&](const char*, const auto& col) { b += col.bytes(); });
    });
    return b;
}

size_t Dataset::bytes() const {
    size_t b = 0;
    for (const auto& r : ranks) b += r->bytes();
    return b;
}

const RankData* Dataset::rank(int r) const {
    for (const auto& p : ranks)
        if (p->rank == r) return p.get();
    return nullptr;
}

uint64_t nextGeneration() {
    static std::atomic<uint64_t> g{0};
    return ++g;
}

}  // namespace strobe::core
