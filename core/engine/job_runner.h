#pragma once
// JobRunner: a small thread pool (std::thread, Qt-free) for background work such as plot preparation.
//
// Jobs run in named slots ("plot-view-3", "load"): one generation per slot. Submitting to a slot supersedes
// its older job — cancelled through its CancelToken if running, never started if still queued — and the
// superseded job's result is dropped (its deliver step is not called). Progress is throttled to ~30 Hz per job.
// Every callback may run on a worker thread; a GUI wraps them in queued signals.

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

struct JobContext {
    std::string slot;
    uint64_t generation = 0;
    CancelToken cancel;
    ProgressFn progress;  // throttled ~30 Hz, also forwarded to the runner's observer
};

// The work of a job. It returns its deliver step (may be empty): the runner calls it only when the job is still
// the newest of its slot and was not cancelled, so stale results never reach anyone.
using JobWork = std::function<std::function<void()>(const JobContext&)>;

enum class JobEnd : uint8_t { Completed, Cancelled, Superseded };
const char* toString(JobEnd e);

// Observer of every job (the GUI's progress panel). All optional; called from worker threads or submit().
struct JobObserver {
    std::function<void(const std::string& slot, uint64_t generation, const std::string& name)> onStarted;
    std::function<void(const std::string& slot, uint64_t generation, const ProgressInfo&)> onProgress;
    std::function<void(const std::string& slot, uint64_t generation, JobEnd)> onFinished;
};

class JobRunner {
public:
    explicit JobRunner(int threads = 0);  // 0: one per core (at least 1)
    ~JobRunner();                          // cancels everything and joins
    JobRunner(const JobRunner&) = delete;
    JobRunner& operator=(const JobRunner&) = delete;

    // Queues `work` in `slot` and returns its generation (> 0, increasing across the runner).
    uint64_t submit(const std::string& slot, const std::string& name, JobWork work);
    // Cancels the slot's job (queued or running); nothing is delivered.
    void cancel(const std::string& slot);
    void cancelAll();
    bool isCurrent(const std::string& slot, uint64_t generation) const;
    bool busy(const std::string& slot) const;  // a job of this slot is queued or running
    // Blocks until no job is queued or running (tests, shutdown).
    void waitIdle();
    void setObserver(JobObserver observer);
    int threadCount() const { return static_cast<int>(m_threads.size()); }

private:
    struct Job {
        std::string slot;
        std::string name;
        uint64_t generation = 0;
        CancelToken cancel;
        JobWork work;
    };
    void workerLoop();
    void finish(const Job& job, JobEnd end);

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_idle;
    std::deque<std::shared_ptr<Job>> m_queue;
    std::map<std::string, std::shared_ptr<Job>> m_current;  // newest job per slot (queued or running)
    int m_running = 0;
    uint64_t m_nextGeneration = 1;
    bool m_stop = false;
    std::shared_ptr<JobObserver> m_observer;
    std::vector<std::thread> m_threads;
};

}  // namespace strobe::core
