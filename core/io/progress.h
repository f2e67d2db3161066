#pragma once
// Cooperative cancellation and progress in named stages. Polled at chunk boundaries, never blocking.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace strobe::core {

// Shared flag: copies observe the same cancellation. Cheap to poll.
class CancelToken {
public:
    CancelToken() : m_flag(std::make_shared<std::atomic<bool>>(false)) {}
    void cancel() const { m_flag->store(true, std::memory_order_relaxed); }
    bool cancelled() const { return m_flag->load(std::memory_order_relaxed); }

private:
    std::shared_ptr<std::atomic<bool>> m_flag;
};

struct ProgressInfo {
    std::string stage;      // "read", "parse", "merge", "cache" ... (named stages)
    std::string file;       // the file this concerns, if any
    double fraction = 0.0;  // 0..1 within the whole job
    uint64_t done = 0;      // units done in this stage (bytes, events)
    uint64_t total = 0;
};

using ProgressFn = std::function<void(const ProgressInfo&)>;

// Calls the callback at most every `interval` (default ~30 Hz) unless forced. Thread-safe.
class ProgressThrottle {
public:
    explicit ProgressThrottle(ProgressFn fn, std::chrono::milliseconds interval = std::chrono::milliseconds(33))
        : m_fn(std::move(fn)), m_interval(interval) {}
    void report(const ProgressInfo& p, bool force = false) {
        if (!m_fn) return;
        auto now = std::chrono::steady_clock::now().time_since_epoch().count();
        auto last = m_last.load(std::memory_order_relaxed);
        if (!force && now - last < std::chrono::duration_cast<std::chrono::steady_clock::duration>(m_interval).count())
            return;
        if (!force && !m_last.compare_exchange_strong(last, now)) return;
        if (force) m_last.store(now);
        m_fn(p);
    }

private:
    ProgressFn m_fn;
    std::chrono::milliseconds m_interval;
    std::atomic<std::chrono::steady_clock::rep> m_last{0};
};

}  // namespace strobe::core
