#pragma once
// PlotEngine: prepares plots in the background and keeps prepared data in a byte-budgeted LRU cache keyed by
// plot id + dataset generation(s) + the values of the affectsPrepare parameters only.
//
//   - A drawing-parameter change maps to the same key: request() returns the cached Prepared at once and
//     prepare() is not called.
//   - A preparation-parameter change misses: request() submits prepare() to the JobRunner in the view's slot.
//     The newest request of a slot wins; older ones are cancelled and never delivered. Meanwhile the caller keeps
//     its last good Prepared (draw() tolerates it).
// The JobRunner is the one record of what is current: a request id is the generation of its job in the runner
// ("plot:" + slot), and asking again for the preparation already running keeps that job (its dedup key is the
// prepared key). The engine keeps no per-view state of its own.
// Qt-free, thread-safe. Callbacks run on a worker thread (GUI: forward through queued signals).

#include <cstdint>
#include <functional>
#include <list>
#include <optional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "core/engine/job_runner.h"
#include "plots/plot.h"

namespace strobe::plots {

struct PreparedKey {
    std::string text;  // "plot-id|gen,gen|label,label|key=value;..."
    bool operator==(const PreparedKey& o) const { return text == o.text; }
};
PreparedKey makePreparedKey(const Plot& plot, const RunSet& runs, const std::vector<ParamSpec>& specs,
                            const ParamValues& resolvedValues);

class PreparedCache {
public:
    explicit PreparedCache(size_t budgetBytes = size_t(512) << 20);
    PreparedPtr find(const PreparedKey& key);  // nullptr on miss; a hit becomes most recent
    // Inserts (or replaces) and evicts least recent entries until within budget. An entry larger than the whole
    // budget is not kept (the caller still has its pointer).
    void insert(const PreparedKey& key, PreparedPtr prepared);
    void clear();
    void setBudget(size_t bytes);
    size_t budget() const;
    size_t bytes() const;
    size_t size() const;
    uint64_t hits() const;
    uint64_t misses() const;
    uint64_t evictions() const;

private:
    void evictLocked();
    struct Entry {
        std::string key;
        PreparedPtr prepared;
        size_t bytes = 0;
    };
    mutable std::mutex m_mutex;
    std::list<Entry> m_lru;  // front = most recent
    std::unordered_map<std::string, std::list<Entry>::iterator> m_index;
    size_t m_budget;
    size_t m_bytes = 0;
    uint64_t m_hits = 0, m_misses = 0, m_evictions = 0;
};

struct PrepareCallbacks {
    // The prepared data for the newest request of the slot (never for a superseded one).
    std::function<void(PreparedPtr prepared, uint64_t requestId)> onReady;
    std::function<void(const core::Error& error, uint64_t requestId)> onError;  // not called when cancelled
    std::function<void(const core::ProgressInfo& progress, uint64_t requestId)> onProgress;
    // The request was cancelled (PlotEngine::cancel, the jobs panel's Cancel, shutdown): nothing else follows.
    std::function<void(uint64_t requestId)> onCancelled;
    std::string jobName;  // what the jobs panel shows ("prepare <plot id>" when empty)
};

struct RequestResult {
    uint64_t requestId = 0;
    PreparedPtr prepared;  // set when the cache had it: nothing runs, no callback follows
    bool pending = false;  // prepare() runs in the background; a callback follows
    std::optional<core::Error> error;  // invalid values: nothing runs
    ParamValues values;    // the resolved values (defaults filled in)
};

class PlotEngine {
public:
    PlotEngine(core::JobRunner& runner, size_t cacheBudgetBytes = size_t(512) << 20);
    ~PlotEngine();

    // `slot` names the view asking (one tab); a newer request of the same slot supersedes older ones. Its job
    // runs in the runner's slot jobSlot(slot).
    RequestResult request(const std::string& slot, const Plot& plot, const RunSet& runs, const ParamValues& values,
                          PrepareCallbacks callbacks);
    void cancel(const std::string& slot);
    static std::string jobSlot(const std::string& slot) { return "plot:" + slot; }

    PreparedCache& cache();
    core::JobRunner& runner() { return m_runner; }
    uint64_t prepareJobsSubmitted() const;  // how many prepare() jobs request() started (diagnostics, tests)

private:
    struct State;  // the cache, shared with running jobs so that a job finishing after the engine is gone is harmless
    core::JobRunner& m_runner;
    std::shared_ptr<State> m_state;
};

}  // namespace strobe::plots
