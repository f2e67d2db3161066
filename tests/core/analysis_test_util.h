#pragma once
// Builds small RankData/Dataset values by hand for the analysis tests (raw columns as a loader fills them;
// derived columns only when a test asks for them).

#include <memory>
#include <string>

#include "core/analysis/context.h"
#include "core/model/dataset.h"
#include "tests/core/raw_rows.h"

namespace strobe::core::testutil {

class RankBuilder {
public:
    explicit RankBuilder(int rank = 0) : m_r(std::make_unique<RankData>()) {
        m_r->rank = rank;
        m_r->info.distributed.present = true;
        m_r->info.distributed.rank = rank;
    }

    // A CPU-side complete event; returns its slice index.
    int32_t slice(const std::string& name, TimeNs ts, TimeNs dur, EventKind kind = EventKind::CpuOp,
                  int64_t correlation = kNone, uint32_t track = 0) {
        return static_cast<int32_t>(rawrows::appendSlice(
            *m_r, {.name = name, .cat = catOf(kind), .kind = kind, .track = track, .ts = ts, .dur = dur,
                   .correlation = correlation}));
    }
    int32_t runtime(TimeNs ts, int64_t correlation, TimeNs dur = 5) {
        return slice("cudaLaunchKernel", ts, dur, EventKind::Runtime, correlation, 1);
    }
    // A GPU activity; returns its row.
    uint32_t gpu(const std::string& name, TimeNs ts, TimeNs dur, int32_t stream = 7, int64_t correlation = kNone,
                 EventKind kind = EventKind::Kernel, int64_t bytes = 0, const std::string& args = {}) {
        return static_cast<uint32_t>(rawrows::appendGpu(
            *m_r, {.name = name, .cat = catOf(kind), .kind = kind, .track = 2, .ts = ts, .dur = dur, .stream = stream,
                   .correlation = correlation, .bytes = bytes, .args = args}));
    }
    void step(int64_t number, TimeNs start, TimeNs end) {
        slice("ProfilerStep#" + std::to_string(number), start, end - start, EventKind::UserAnnotation);
    }
    RankData& data() { return *m_r; }
    std::shared_ptr<const RankData> build() { return std::shared_ptr<const RankData>(std::move(m_r)); }

    static std::string catOf(EventKind k) {
        switch (k) {
        case EventKind::Kernel: return "kernel";
        case EventKind::Memcpy: return "gpu_memcpy";
        case EventKind::Memset: return "gpu_memset";
        case EventKind::Runtime: return "cuda_runtime";
        case EventKind::UserAnnotation: return "user_annotation";
        case EventKind::GpuUserAnnotation: return "gpu_user_annotation";
        default: return "cpu_op";
        }
    }

private:
    std::unique_ptr<RankData> m_r;
};

inline DatasetPtr makeDataset(std::vector<std::shared_ptr<const RankData>> ranks) {
    auto ds = std::make_shared<Dataset>();
    ds->generation = nextGeneration();
    ds->ranks = std::move(ranks);
    return ds;
}

}  // namespace strobe::core::testutil
