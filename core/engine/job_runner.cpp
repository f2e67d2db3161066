#include "core/engine/job_runner.h"

#include <algorithm>
#include <chrono>

#include <spdlog/spdlog.h>

namespace strobe::core {

// ---- memory

MemoryReservation::MemoryReservation(MemoryReservation&& o) noexcept
    : m_gate(std::move(o.m_gate)), m_bytes(o.m_bytes) {
    o.m_bytes = 0;
}

MemoryReservation& MemoryReservation::operator=(MemoryReservation&& o) noexcept {
    if (this != &o) {
        release();
        m_gate = std::move(o.m_gate);
        m_bytes = o.m_bytes;
        o.m_bytes = 0;
    }
    return *this;
}

MemoryReservation::~MemoryReservation() { release(); }

void MemoryReservation::release() {
    if (m_gate) m_gate->release(m_bytes);
    m_gate.reset();
    m_bytes = 0;
}

void MemoryGate::setLimit(uint64_t bytes) {
    {
        std::lock_guard lock(m_mutex);
        m_limit = bytes;
    }
    m_freed.notify_all();
}

uint64_t MemoryGate::limit() const {
    std::lock_guard lock(m_mutex);
    return m_limit;
}

uint64_t MemoryGate::inUse() const {
    std::lock_guard lock(m_mutex);
    return m_used;
}

MemoryReservation MemoryGate::acquire(uint64_t bytes, const CancelToken& cancel) {
    if (bytes == 0) return {};
    std::unique_lock lock(m_mutex);
    auto fits = [&] { return m_limit == 0 || m_used == 0 || m_used + bytes <= m_limit; };
    while (!fits()) {
        if (cancel.cancelled()) return {};
        // The token has no wake-up of its own: poll it while waiting for a release.
        m_freed.wait_for(lock, std::chrono::milliseconds(20));
    }
    if (cancel.cancelled()) return {};
    m_used += bytes;
    return MemoryReservation(shared_from_this(), bytes);
}

void MemoryGate::release(uint64_t bytes) {
    {
        std::lock_guard lock(m_mutex);
        m_used -= std::min(m_used, bytes);
    }
    m_freed.notify_all();
}

MemoryReservation JobContext::reserveMemory(uint64_t bytes) const {
    if (!memory) return {};
    return memory->acquire(bytes, cancel);
}

// ---- runner

const char* toString(JobEnd e) {
    switch (e) {
    case JobEnd::Completed: return "completed";
    case JobEnd::Cancelled: return "cancelled";
    case JobEnd::Superseded: return "superseded";
    }
    return "unknown";
}

JobRunner::JobRunner(int threads) {
    if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    m_observer = std::make_shared<JobObserver>();
    (void)spdlog::default_logger_raw();  // create spdlog's registry before the workers may log (see run_loader)
    m_threads.reserve(static_cast<size_t>(threads));
    for (int i = 0; i < threads; ++i) m_threads.emplace_back([this] { workerLoop(); });
}

JobRunner::~JobRunner() {
    std::deque<std::shared_ptr<Job>> dropped;
    std::vector<std::pair<std::function<void(uint64_t)>, uint64_t>> cancelled;
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
        for (auto& [slot, job] : m_current) {
            job->cancel.cancel();
            job->cancelledByUser = true;
            if (job->options.onCancelled) cancelled.emplace_back(std::move(job->options.onCancelled), job->generation);
        }
        dropped.swap(m_queue);
        m_current.clear();
    }
    m_wake.notify_all();
    for (auto& [fn, gen] : cancelled) fn(gen);
    for (auto& t : m_threads)
        if (t.joinable()) t.join();
    for (auto& j : dropped) finish(*j, JobEnd::Cancelled);
}

void JobRunner::setObserver(JobObserver observer) {
    std::lock_guard lock(m_mutex);
    m_observer = std::make_shared<JobObserver>(std::move(observer));
}

uint64_t JobRunner::submit(const std::string& slot, const std::string& name, JobWork work, JobOptions options) {
    auto job = std::make_shared<Job>();
    job->slot = slot;
    job->name = name;
    job->work = std::move(work);
    job->options = std::move(options);
    std::shared_ptr<Job> superseded;
    bool supersededQueued = false;
    {
        std::lock_guard lock(m_mutex);
        if (m_stop) return 0;
        auto it = m_current.find(slot);
        if (it != m_current.end()) {
            const auto& cur = it->second;
            if (cur->options.policy == SlotPolicy::Exclusive) return 0;  // never superseded
            if (!job->options.dedupKey.empty() && cur->options.dedupKey == job->options.dedupKey &&
                !cur->cancel.cancelled())
                return cur->generation;  // the same work is already queued or running: keep it
            superseded = cur;
            superseded->cancel.cancel();
            auto q = std::find(m_queue.begin(), m_queue.end(), superseded);
            if (q != m_queue.end()) {
                m_queue.erase(q);  // never started: drop it now
                supersededQueued = true;
            }
        }
        job->generation = m_nextGeneration++;
        m_current[slot] = job;
        m_queue.push_back(job);
        if (m_observer->onQueued) m_observer->onQueued(slot, job->generation, name);
    }
    if (superseded && supersededQueued) finish(*superseded, JobEnd::Superseded);
    m_wake.notify_one();
    return job->generation;
}

std::shared_ptr<JobRunner::Job> JobRunner::cancelLocked(std::map<std::string, std::shared_ptr<Job>>::iterator it,
                                                        bool& wasQueued) {
    std::shared_ptr<Job> job = it->second;
    job->cancel.cancel();
    job->cancelledByUser = true;
    auto q = std::find(m_queue.begin(), m_queue.end(), job);
    wasQueued = q != m_queue.end();
    if (wasQueued) m_queue.erase(q);
    m_current.erase(it);
    return job;
}

void JobRunner::cancel(const std::string& slot) { cancel(slot, 0); }

void JobRunner::cancel(const std::string& slot, uint64_t generation) {
    std::shared_ptr<Job> job;
    bool wasQueued = false;
    std::function<void(uint64_t)> onCancelled;
    {
        std::lock_guard lock(m_mutex);
        auto it = m_current.find(slot);
        if (it == m_current.end()) return;
        if (generation != 0 && it->second->generation != generation) return;
        job = cancelLocked(it, wasQueued);
        onCancelled = std::move(job->options.onCancelled);
    }
    if (onCancelled) onCancelled(job->generation);
    if (wasQueued) finish(*job, JobEnd::Cancelled);  // a running one reports when its work returns
    m_idle.notify_all();
}

void JobRunner::cancelAll() {
    std::vector<std::string> slots;
    {
        std::lock_guard lock(m_mutex);
        for (const auto& [slot, job] : m_current) slots.push_back(slot);
    }
    for (const auto& s : slots) cancel(s);
}

bool JobRunner::isCurrent(const std::string& slot, uint64_t generation) const {
    std::lock_guard lock(m_mutex);
    auto it = m_current.find(slot);
    return it != m_current.end() && it->second->generation == generation && !it->second->cancel.cancelled();
}

bool JobRunner::busy(const std::string& slot) const {
    std::lock_guard lock(m_mutex);
    return m_current.count(slot) != 0;
}

std::vector<JobInfo> JobRunner::jobs() const {
    std::lock_guard lock(m_mutex);
    std::vector<JobInfo> out;
    for (const auto& [slot, job] : m_current) out.push_back({slot, job->generation, job->name, job->running});
    return out;
}

void JobRunner::waitIdle() {
    std::unique_lock lock(m_mutex);
    m_idle.wait(lock, [this] { return m_queue.empty() && m_running == 0; });
}

void JobRunner::finish(const Job& job, JobEnd end) {
    std::shared_ptr<JobObserver> obs;
    {
        std::lock_guard lock(m_mutex);
        obs = m_observer;
    }
    if (obs && obs->onFinished) obs->onFinished(job.slot, job.generation, end);
}

void JobRunner::workerLoop() {
    for (;;) {
        std::shared_ptr<Job> job;
        std::shared_ptr<JobObserver> obs;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stop || !m_queue.empty(); });
            if (m_stop) return;
            job = m_queue.front();
            m_queue.pop_front();
            job->running = true;
            ++m_running;
            obs = m_observer;
        }
        if (obs->onStarted) obs->onStarted(job->slot, job->generation, job->name);

        JobContext ctx;
        ctx.slot = job->slot;
        ctx.generation = job->generation;
        ctx.cancel = job->cancel;
        ctx.memory = m_memory;
        auto throttle = std::make_shared<ProgressThrottle>([obs, slot = job->slot, gen = job->generation](
                                                               const ProgressInfo& p) {
            if (obs->onProgress) obs->onProgress(slot, gen, p);
        });
        ctx.progress = [throttle](const ProgressInfo& p) { throttle->report(p, p.fraction >= 1.0); };

        std::function<void()> deliver;
        bool failed = false;
        try {
            deliver = job->work(ctx);
        } catch (const std::exception& e) {
            // A job must not take the pool down; the owner of the job reports its own errors.
            spdlog::error("job '{}' in slot '{}' threw: {}", job->name, job->slot, e.what());
            failed = true;
        } catch (...) {
            spdlog::error("job '{}' in slot '{}' threw an unknown exception", job->name, job->slot);
            failed = true;
        }

        JobEnd end = JobEnd::Completed;
        {
            std::lock_guard lock(m_mutex);
            auto it = m_current.find(job->slot);
            bool current = it != m_current.end() && it->second == job;
            if (job->cancelledByUser)
                end = JobEnd::Cancelled;
            else if (!current || job->cancel.cancelled())
                end = JobEnd::Superseded;
            if (current) m_current.erase(it);
        }
        if (end == JobEnd::Completed && !failed && deliver) {
            try {
                deliver();
            } catch (...) {
                spdlog::error("job '{}' in slot '{}': delivery threw", job->name, job->slot);
            }
        }
        if (obs->onFinished) obs->onFinished(job->slot, job->generation, end);
        // Release what the job holds (its work may own a whole run) before reporting idle: a waitIdle() caller
        // that then drops its last reference must see the run freed, not kept alive by a finished job.
        deliver = nullptr;
        ctx = JobContext{};
        job.reset();
        {
            std::lock_guard lock(m_mutex);
            --m_running;
        }
        m_idle.notify_all();
    }
}

}  // namespace strobe::core
