#pragma once
// JobRunner: the one thread pool (std::thread, Qt-free) for background work — run loads, plot preparations,
// exports, collector runs — and the one record of which job is current.
//
// Jobs run in named slots ("plot:plot-view-3", "load:2:/data/run", "collect:…"): freshness is per slot key.
//   - SlotPolicy::Supersede (the default): submitting to a slot supersedes its older job — cancelled through its
//     CancelToken if running, never started if still queued — and the superseded job's result is dropped (its
//     deliver step is not called). A view's new prepare supersedes that view's previous one; a reload of a run
//     supersedes its running load. Jobs of different slots run side by side.
//   - SlotPolicy::Exclusive: the job is never superseded; a submit to its slot while it is queued or running is
//     refused (returns 0). Only cancel() stops it (collector runs).
// Jobs that need much memory (loads) reserve it from the runner's memory gate (JobContext::reserveMemory): they
// run side by side while their estimates fit the limit, and wait for room otherwise.
// Progress is throttled to ~30 Hz per job. Every callback may run on a worker thread; a GUI wraps them in queued
// signals.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/io/progress.h"

namespace strobe::core {

class MemoryGate;

// Memory held by a job from JobContext::reserveMemory until destroyed (or moved from). Empty when nothing was
// reserved (cancelled while waiting, or 0 bytes asked).
class MemoryReservation {
public:
    MemoryReservation() = default;
    MemoryReservation(MemoryReservation&& o) noexcept;
    MemoryReservation& operator=(MemoryReservation&& o) noexcept;
    MemoryReservation(const MemoryReservation&) = delete;
    MemoryReservation& operator=(const MemoryReservation&) = delete;
    ~MemoryReservation();
    uint64_t bytes() const { return m_bytes; }
    bool held() const { return static_cast<bool>(m_gate); }
    void release();

private:
    friend class MemoryGate;
    MemoryReservation(std::shared_ptr<MemoryGate> gate, uint64_t bytes) : m_gate(std::move(gate)), m_bytes(bytes) {}
    std::shared_ptr<MemoryGate> m_gate;
    uint64_t m_bytes = 0;
};

// Admission by estimated memory: a reservation is granted when it fits beside those held (or none is held, so
// that one job larger than the limit still runs alone — its own checks refuse it with a message). Thread-safe.
class MemoryGate : public std::enable_shared_from_this<MemoryGate> {
public:
    explicit MemoryGate(uint64_t limitBytes = 0) : m_limit(limitBytes) {}
    void setLimit(uint64_t bytes);  // 0: no limit
    uint64_t limit() const;
    uint64_t inUse() const;
    // Blocks until `bytes` fit or `cancel` is set (then returns an empty reservation).
    MemoryReservation acquire(uint64_t bytes, const CancelToken& cancel);

private:
    friend class MemoryReservation;
    void release(uint64_t bytes);
    mutable std::mutex m_mutex;
    std::condition_variable m_freed;
    uint64_t m_limit = 0;
    uint64_t m_used = 0;
};

struct JobContext {
    std::string slot;
    uint64_t generation = 0;
    CancelToken cancel;
    ProgressFn progress;  // throttled ~30 Hz, also forwarded to the runner's observer
    std::shared_ptr<MemoryGate> memory;
    // Waits for room in the runner's memory limit (see MemoryGate::acquire); the job holds it while it keeps the
    // reservation.
    MemoryReservation reserveMemory(uint64_t bytes) const;
};

// The work of a job. It returns its deliver step (may be empty): the runner calls it only when the job is still
// the newest of its slot and was not cancelled, so stale results never reach anyone.
using JobWork = std::function<std::function<void()>(const JobContext&)>;

enum class JobEnd : uint8_t { Completed, Cancelled, Superseded };
const char* toString(JobEnd e);

enum class SlotPolicy : uint8_t {
    Supersede,  // a newer submit to the slot supersedes this job
    Exclusive,  // never superseded: submits to the slot are refused while it is queued or running; cancel stops it
};

struct JobOptions {
    SlotPolicy policy = SlotPolicy::Supersede;
    // When set and equal to the key of the slot's current (not cancelled) job, submit() keeps that job and
    // returns its generation instead of superseding it (the same preparation asked for again).
    std::string dedupKey;
    // Called once if the job is cancelled (cancel(), cancelAll(), the runner's destruction) — not when superseded.
    // Runs on the cancelling thread, outside the runner's lock.
    std::function<void(uint64_t generation)> onCancelled;
};

// Observer of every job (the GUI's jobs panel). All optional. onQueued is called from submit() with the runner's
// lock held (so that it precedes the job's other events): it must not call back into the runner. The others are
// called from worker threads or the cancelling thread, without the lock.
struct JobObserver {
    std::function<void(const std::string& slot, uint64_t generation, const std::string& name)> onQueued;
    std::function<void(const std::string& slot, uint64_t generation, const std::string& name)> onStarted;
    std::function<void(const std::string& slot, uint64_t generation, const ProgressInfo&)> onProgress;
    std::function<void(const std::string& slot, uint64_t generation, JobEnd)> onFinished;
};

struct JobInfo {
    std::string slot;
    uint64_t generation = 0;
    std::string name;
    bool running = false;
};

class JobRunner {
public:
    explicit JobRunner(int threads = 0);  // 0: one per core (at least 1)
    ~JobRunner();                          // cancels everything and joins
    JobRunner(const JobRunner&) = delete;
    JobRunner& operator=(const JobRunner&) = delete;

    // Queues `work` in `slot` and returns its generation (> 0, increasing across the runner); 0 when refused (the
    // slot holds an Exclusive job).
    uint64_t submit(const std::string& slot, const std::string& name, JobWork work, JobOptions options = {});
    // Cancels the slot's job (queued or running); nothing is delivered.
    void cancel(const std::string& slot);
    // Cancels the slot's job only if it is still `generation` (a panel row that may be stale).
    void cancel(const std::string& slot, uint64_t generation);
    void cancelAll();
    bool isCurrent(const std::string& slot, uint64_t generation) const;
    bool busy(const std::string& slot) const;  // a job of this slot is queued or running
    std::vector<JobInfo> jobs() const;         // the current job of every busy slot
    // Blocks until no job is queued or running (tests, shutdown).
    void waitIdle();
    void setObserver(JobObserver observer);
    int threadCount() const { return static_cast<int>(m_threads.size()); }

    // The memory limit jobs reserve from (JobContext::reserveMemory); 0: none.
    void setMemoryLimit(uint64_t bytes) { m_memory->setLimit(bytes); }
    MemoryGate& memory() { return *m_memory; }

private:
    struct Job {
        std::string slot;
        std::string name;
        uint64_t generation = 0;
        CancelToken cancel;
        JobWork work;
        JobOptions options;
        bool running = false;          // guarded by m_mutex
        bool cancelledByUser = false;  // guarded by m_mutex
    };
    void workerLoop();
    void finish(const Job& job, JobEnd end);
    // Under m_mutex: marks the slot's job cancelled and forgets it; returns it (and whether it was still queued).
    std::shared_ptr<Job> cancelLocked(std::map<std::string, std::shared_ptr<Job>>::iterator it, bool& wasQueued);

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_idle;
    std::deque<std::shared_ptr<Job>> m_queue;
    std::map<std::string, std::shared_ptr<Job>> m_current;  // newest job per slot (queued or running)
    int m_running = 0;
    uint64_t m_nextGeneration = 1;
    bool m_stop = false;
    std::shared_ptr<JobObserver> m_observer;
    std::shared_ptr<MemoryGate> m_memory = std::make_shared<MemoryGate>();
    std::vector<std::thread> m_threads;
};

}  // namespace strobe::core
