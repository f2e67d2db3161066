#pragma once
// One kind of background request of a GUI object — a sweep's discovery, its comparison, its report, a dialog's tool
// probes, a dock's sample count — as a job of the one core::JobRunner, so that the Jobs panel shows it and can
// cancel it, and nothing of it runs on the GUI thread (DESIGN.md "Engine and caching": one background rule).
//
// Newest request wins: start() supersedes the request still in flight (the runner cancels it through its token, or
// never starts it), and a superseded request's result is dropped even when it had already been posted. The result
// of the newest request reaches `done` on the GUI thread through a queued call; a request cancelled (the Jobs panel,
// cancel(), the runner's cancelAll) or whose work threw reaches `ended` instead, with the reason. Neither is called
// once this object is gone: a request in flight when it is destroyed is cancelled and its result dropped.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include <QCoreApplication>
#include <QMetaObject>
#include <QObject>
#include <QString>

#include "core/engine/job_runner.h"

namespace strobe::app {

class BackgroundJob {
public:
    // Jobs go to `runner` (which must outlive this object) in `slot` (one per owner and kind of request, e.g.
    // "sweep-compare:<panel>"): a newer request of the same slot supersedes the older one.
    BackgroundJob(core::JobRunner& runner, std::string slot) : m_runner(&runner), m_slot(std::move(slot)) {}
    ~BackgroundJob() { drop(); }
    BackgroundJob(const BackgroundJob&) = delete;
    BackgroundJob& operator=(const BackgroundJob&) = delete;

    // Runs `work` on a worker of the runner (it polls ctx.cancel between steps and may report ctx.progress), then
    // `done` with its result on the GUI thread. Returns the request's generation (0 when the runner refused it: it
    // is shutting down; `ended` is then called at once).
    template <class T>
    uint64_t start(const QString& name, std::function<T(const core::JobContext&)> work, std::function<void(T)> done,
                   std::function<void(const QString& why)> ended = {}) {
        std::weak_ptr<State> weak = m_state;
        auto post = [weak](std::function<void(State&)> fn) {
            QMetaObject::invokeMethod(
                QCoreApplication::instance(),
                [weak, fn = std::move(fn)] {
                    if (auto s = weak.lock()) fn(*s);
                },
                Qt::QueuedConnection);
        };
        // Called on the GUI thread: only the newest request ends, once.
        auto finish = [](State& s, uint64_t gen) {
            if (s.pending != gen || gen == 0) return false;
            s.pending = 0;
            return true;
        };
        core::JobOptions options;
        options.onCancelled = [post, finish, ended](uint64_t gen) {
            post([finish, ended, gen](State& s) {
                if (finish(s, gen) && ended) ended(QObject::tr("cancelled"));
            });
        };
        const uint64_t gen = m_runner->submit(
            m_slot, name.toStdString(),
            [post, finish, work = std::move(work), done = std::move(done), ended](
                const core::JobContext& ctx) -> std::function<void()> {
                std::shared_ptr<T> result;
                QString error;
                try {
                    result = std::make_shared<T>(work(ctx));
                } catch (const std::exception& e) {
                    error = QString::fromUtf8(e.what());
                }
                if (ctx.cancel.cancelled()) return {};  // superseded (dropped) or cancelled (onCancelled reports it)
                const uint64_t gen = ctx.generation;
                if (!result) {
                    post([finish, ended, gen, error](State& s) {
                        if (finish(s, gen) && ended) ended(error);
                    });
                    return {};
                }
                // The runner calls this only while the job is still the newest of its slot and not cancelled.
                return [post, finish, done, gen, result] {
                    post([finish, done, gen, result](State& s) {
                        if (finish(s, gen)) done(std::move(*result));
                    });
                };
            },
            std::move(options));
        m_state->pending = gen;
        if (gen == 0 && ended) ended(QObject::tr("the job runner is shutting down"));
        return gen;
    }

    // Cancels the request in flight (its result is dropped; `ended` is called with "cancelled").
    void cancel() {
        if (m_state->pending != 0) m_runner->cancel(m_slot, m_state->pending);
    }
    // Cancels the request in flight and forgets it: neither `done` nor `ended` is called (a newer result came
    // from elsewhere).
    void drop() {
        cancel();
        m_state->pending = 0;
    }
    // True from start() until the newest request's `done` or `ended` has been called.
    bool pending() const { return m_state->pending != 0; }
    uint64_t generation() const { return m_state->pending; }
    const std::string& slot() const { return m_slot; }

private:
    struct State {
        uint64_t pending = 0;  // the newest request's generation until it ends (GUI thread only)
    };
    core::JobRunner* m_runner;
    std::string m_slot;
    std::shared_ptr<State> m_state = std::make_shared<State>();
};

// A slot name unique to `owner` (its address) and `kind`.
inline std::string backgroundSlot(const char* kind, const void* owner) {
    return std::string(kind) + ":" + std::to_string(reinterpret_cast<std::uintptr_t>(owner));
}

}  // namespace strobe::app
