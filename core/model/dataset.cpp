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
    for (const HostTelemetry& h : hosts)
        for (const auto& s : h.sources) b += s->bytes();
    return b;
}

const RankData* Dataset::rank(int r) const {
    for (const auto& p : ranks)
        if (p->rank == r) return p.get();
    return nullptr;
}

bool isTelemetryOnly(const RankData& r) {
    return r.samples.size() > 0 && r.gpu.size() == 0 && r.slices.size() == 0 && r.counters.size() == 0 &&
           r.steps.size() == 0 && r.kernelCounters.size() == 0 && r.flows.size() == 0;
}

std::vector<const RankData*> Dataset::sampleSources() const {
    std::vector<const RankData*> out;
    for (const auto& r : ranks)
        if (r && r->samples.size() > 0) out.push_back(r.get());
    for (const HostTelemetry& h : hosts)
        for (const auto& s : h.sources)
            if (s) out.push_back(s.get());
    return out;
}

std::vector<const RankData*> Dataset::allSources() const {
    std::vector<const RankData*> out;
    for (const auto& r : ranks) out.push_back(r.get());
    for (const HostTelemetry& h : hosts)
        for (const auto& s : h.sources) out.push_back(s.get());
    return out;
}

uint64_t nextGeneration() {
    static std::atomic<uint64_t> g{0};
    return ++g;
}

}  // namespace strobe::core
