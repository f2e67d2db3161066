#include "plots/plot_engine.h"

#include <atomic>
#include <map>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace strobe::plots {

PreparedKey makePreparedKey(const Plot& plot, const RunSet& runs, const std::vector<ParamSpec>& specs,
                            const ParamValues& resolvedValues) {
    std::string text = plot.id();
    text += '|';
    for (const auto& r : runs) text += fmt::format("{},", r.dataset ? r.dataset->generation : 0);
    text += '|';
    for (const auto& r : runs) text += fmt::format("{}:{},", r.label.size(), r.label);
    text += '|';
    text += prepareKey(specs, resolvedValues);
    return {text};
}

// ---- PreparedCache ----

PreparedCache::PreparedCache(size_t budgetBytes) : m_budget(budgetBytes) {}

PreparedPtr PreparedCache::find(const PreparedKey& key) {
    std::lock_guard lock(m_mutex);
    auto it = m_index.find(key.text);
    if (it == m_index.end()) {
        ++m_misses;
        return nullptr;
    }
    ++m_hits;
    m_lru.splice(m_lru.begin(), m_lru, it->second);
    return it->second->prepared;
}

void PreparedCache::insert(const PreparedKey& key, PreparedPtr prepared) {
    if (!prepared) return;
    size_t bytes = prepared->bytes() + key.text.size() + sizeof(Entry);
    std::lock_guard lock(m_mutex);
    if (auto it = m_index.find(key.text); it != m_index.end()) {
        m_bytes -= it->second->bytes;
        m_lru.erase(it->second);
        m_index.erase(it);
    }
    if (bytes > m_budget) return;
    m_lru.push_front(Entry{key.text, std::move(prepared), bytes});
    m_index[key.text] = m_lru.begin();
    m_bytes += bytes;
    evictLocked();
}

void PreparedCache::evictLocked() {
    while (m_bytes > m_budget && !m_lru.empty()) {
        auto& last = m_lru.back();
        m_bytes -= last.bytes;
        m_index.erase(last.key);
        m_lru.pop_back();
        ++m_evictions;
    }
}

void PreparedCache::clear() {
    std::lock_guard lock(m_mutex);
    m_lru.clear();
    m_index.clear();
    m_bytes = 0;
}

void PreparedCache::setBudget(size_t bytes) {
    std::lock_guard lock(m_mutex);
    m_budget = bytes;
    evictLocked();
}

size_t PreparedCache::budget() const {
    std::lock_guard lock(m_mutex);
    return m_budget;
}
size_t PreparedCache::bytes() const {
    std::lock_guard lock(m_mutex);
    return m_bytes;
}
size_t PreparedCache::size() const {
    std::lock_guard lock(m_mutex);
    return m_lru.size();
}
uint64_t PreparedCache::hits() const {
    std::lock_guard lock(m_mutex);
    return m_hits;
}
uint64_t PreparedCache::misses() const {
    std::lock_guard lock(m_mutex);
    return m_misses;
}
uint64_t PreparedCache::evictions() const {
    std::lock_guard lock(m_mutex);
    return m_evictions;
}

// ---- PlotEngine ----

struct PlotEngine::State {
    explicit State(size_t budget) : cache(budget) {}
    PreparedCache cache;
    std::mutex mutex;
    // Runner slots this engine has used (cancelled with the engine), with the newest generation it got in each:
    // a generation not newer than that is a kept duplicate, not a new job.
    std::map<std::string, uint64_t> slots;
    std::atomic<uint64_t> jobsSubmitted{0};
};

PlotEngine::PlotEngine(core::JobRunner& runner, size_t cacheBudgetBytes)
    : m_runner(runner), m_state(std::make_shared<State>(cacheBudgetBytes)) {}

PlotEngine::~PlotEngine() {
    std::map<std::string, uint64_t> slots;
    {
        std::lock_guard lock(m_state->mutex);
        slots.swap(m_state->slots);
    }
    for (const auto& [s, gen] : slots) m_runner.cancel(s);
}

PreparedCache& PlotEngine::cache() { return m_state->cache; }

uint64_t PlotEngine::prepareJobsSubmitted() const { return m_state->jobsSubmitted.load(); }

void PlotEngine::cancel(const std::string& slot) { m_runner.cancel(jobSlot(slot)); }

RequestResult PlotEngine::request(const std::string& slot, const Plot& plot, const RunSet& runs,
                                  const ParamValues& values, PrepareCallbacks callbacks) {
    RequestResult result;
    auto specs = plot.parameters(runs);
    auto resolved = resolveValues(specs, values);
    if (!resolved) {
        result.error = resolved.error();
        return result;
    }
    result.values = *resolved;
    PreparedKey key = makePreparedKey(plot, runs, specs, result.values);
    const std::string js = jobSlot(slot);

    if (auto hit = m_state->cache.find(key)) {
        m_runner.cancel(js);  // an older preparation of this view is now stale
        result.prepared = std::move(hit);
        return result;
    }
    auto state = m_state;
    const Plot* plotPtr = &plot;
    auto cb = std::make_shared<PrepareCallbacks>(std::move(callbacks));
    // The request id is the job's generation: the job reads it from its context.
    core::JobOptions options;
    options.dedupKey = key.text;  // the same preparation asked for again while it runs: keep it
    if (cb->onCancelled) options.onCancelled = [cb](uint64_t generation) { cb->onCancelled(generation); };
    const std::string name = cb->jobName.empty() ? fmt::format("prepare {}", plot.id()) : cb->jobName;
    const uint64_t gen = m_runner.submit(
        js, name,
        [state, plotPtr, runs, vals = result.values, key, cb](const core::JobContext& ctx) -> std::function<void()> {
            const uint64_t requestId = ctx.generation;
            core::ProgressFn progress;
            if (cb->onProgress) {
                auto throttle = std::make_shared<core::ProgressThrottle>(
                    [cb, requestId](const core::ProgressInfo& p) { cb->onProgress(p, requestId); });
                progress = [&ctx, throttle](const core::ProgressInfo& p) {
                    ctx.progress(p);
                    throttle->report(p, p.fraction >= 1.0);
                };
            } else {
                progress = ctx.progress;
            }
            auto prepared = plotPtr->prepare(runs, vals, ctx.cancel, progress);
            if (ctx.cancel.cancelled()) return {};
            if (prepared.ok()) state->cache.insert(key, prepared.value());
            // Called by the runner only while this is still the newest job of the slot.
            return [prepared = std::move(prepared), requestId, cb]() {
                if (prepared.ok()) {
                    if (cb->onReady) cb->onReady(prepared.value(), requestId);
                } else if (!isCancelledError(prepared.error())) {
                    if (cb->onError) cb->onError(prepared.error(), requestId);
                }
            };
        },
        std::move(options));
    {
        std::lock_guard lock(m_state->mutex);
        uint64_t& newest = m_state->slots[js];
        if (gen > newest) {  // a kept duplicate returns the running job's (older) generation
            newest = gen;
            ++m_state->jobsSubmitted;
        }
    }
    result.requestId = gen;
    result.pending = true;
    return result;
}

}  // namespace strobe::plots
