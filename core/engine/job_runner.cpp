#include "core/engine/job_runner.h"

#include <algorithm>

#include <spdlog/spdlog.h>

namespace strobe::core {

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
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
        for (auto& [slot, job] : m_current) job->cancel.cancel();
        dropped.swap(m_queue);
        m_current.clear();
    }
    m_wake.notify_all();
    for (auto& t : m_threads)
        if (t.joinable()) t.join();
    for (auto& j : dropped) finish(*j, JobEnd::Cancelled);
}

void JobRunner::setObserver(JobObserver observer) {
    std::lock_guard lock(m_mutex);
    m_observer = std::make_shared<JobObserver>(std::move(observer));
}

uint64_t JobRunner::submit(const std::string& slot, const std::string& name, JobWork work) {
    auto job = std::make_shared<Job>();
    job->slot = slot;
    job->name = name;
    job->work = std::move(work);
    std::shared_ptr<Job> superseded;
    bool supersededQueued = false;
    {
        std::lock_guard lock(m_mutex);
        job->generation = m_nextGeneration++;
        auto it = m_current.find(slot);
        if (it != m_current.end()) {
            superseded = it->second;
            superseded->cancel.cancel();
            auto q = std::find(m_queue.begin(), m_queue.end(), superseded);
            if (q != m_queue.end()) {
                m_queue.erase(q);  // never started: drop it now
                supersededQueued = true;
            }
        }
        m_current[slot] = job;
        m_queue.push_back(job);
    }
    if (superseded && supersededQueued) finish(*superseded, JobEnd::Superseded);
    m_wake.notify_one();
    return job->generation;
}

void JobRunner::cancel(const std::string& slot) {
    std::shared_ptr<Job> dropped;
    {
        std::lock_guard lock(m_mutex);
        auto it = m_current.find(slot);
        if (it == m_current.end()) return;
        it->second->cancel.cancel();
        auto q = std::find(m_queue.begin(), m_queue.end(), it->second);
        if (q != m_queue.end()) {
            dropped = *q;
            m_queue.erase(q);
        }
        m_current.erase(it);
    }
    if (dropped) finish(*dropped, JobEnd::Cancelled);
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
            ++m_running;
            obs = m_observer;
        }
        if (obs->onStarted) obs->onStarted(job->slot, job->generation, job->name);

        JobContext ctx;
        ctx.slot = job->slot;
        ctx.generation = job->generation;
        ctx.cancel = job->cancel;
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
            if (!current) end = JobEnd::Superseded;
            if (job->cancel.cancelled()) end = current ? JobEnd::Cancelled : JobEnd::Superseded;
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
        job.reset();
        {
            std::lock_guard lock(m_mutex);
            --m_running;
        }
        m_idle.notify_all();
    }
}

}  // namespace strobe::core
