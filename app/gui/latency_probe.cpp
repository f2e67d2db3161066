#include "app/gui/latency_probe.h"

#include <algorithm>
#include <fstream>
#include <string>

#include <QApplication>
#include <QElapsedTimer>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QTimer>
#include <QWheelEvent>

#include "app/gui/plot_view.h"

#include <time.h>

namespace strobe::app {

namespace {
qint64 threadCpuNs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return qint64(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}
}  // namespace

LatencyProbe::LatencyProbe(QObject* parent, int intervalMs) : QObject(parent), m_intervalMs(intervalMs) {
    m_timer.setTimerType(Qt::PreciseTimer);
    m_timer.setInterval(intervalMs);
    connect(&m_timer, &QTimer::timeout, this, &LatencyProbe::tick);
}

void LatencyProbe::start() {
    m_lateness.clear();
    m_when.clear();
    m_maxNs = 0;
    m_clock.start();
    m_last = m_clock.nsecsElapsed();
    m_lastCpu = threadCpuNs();
    m_maxBusyNs = 0;
    m_timer.start();
}

void LatencyProbe::stop() { m_timer.stop(); }

void LatencyProbe::tick() {
    const qint64 now = m_clock.nsecsElapsed();
    const qint64 late = std::max<qint64>(0, now - m_last - qint64(m_intervalMs) * 1000000);
    m_last = now;
    const qint64 cpu = threadCpuNs();
    m_maxBusyNs = std::max(m_maxBusyNs, cpu - m_lastCpu);
    m_lastCpu = cpu;
    m_lateness.push_back(late);
    m_when.push_back(now);
    m_maxNs = std::max(m_maxNs, late);
}

double LatencyProbe::percentileMs(double p) const {
    if (m_lateness.empty()) return 0.0;
    std::vector<qint64> v = m_lateness;
    const size_t k = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5));
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    return v[k] / 1e6;
}

int LatencyProbe::ticksLaterThan(double ms) const {
    return static_cast<int>(std::count_if(m_lateness.begin(), m_lateness.end(),
                                          [ms](qint64 ns) { return ns > ms * 1e6; }));
}

std::vector<std::pair<double, double>> LatencyProbe::worstTicks(size_t n) const {
    std::vector<size_t> idx(m_lateness.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    n = std::min(n, idx.size());
    std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(n), idx.end(),
                      [this](size_t a, size_t b) { return m_lateness[a] > m_lateness[b]; });
    std::vector<std::pair<double, double>> out;
    for (size_t i = 0; i < n; ++i) out.emplace_back(m_when[idx[i]] / 1e9, m_lateness[idx[i]] / 1e6);
    return out;
}

QString LatencyProbe::report() const {
    return tr("event-loop latency over %1 s (%2 ticks of %3 ms): max %4 ms, p99 %5 ms, p50 %6 ms, ticks > 50 ms: %7; "
              "most GUI-thread CPU between two ticks: %8 ms")
        .arg(elapsedSeconds(), 0, 'f', 2)
        .arg(ticks())
        .arg(m_intervalMs)
        .arg(maxLatenessMs(), 0, 'f', 1)
        .arg(percentileMs(0.99), 0, 'f', 1)
        .arg(percentileMs(0.50), 0, 'f', 1)
        .arg(ticksLaterThan(50.0))
        .arg(maxBusyMs(), 0, 'f', 1);
}

}  // namespace strobe::app

namespace strobe::app {

double InteractionTimes::percentileMs(double p) const {
    if (ms.empty()) return 0.0;
    std::vector<double> v = ms;
    std::sort(v.begin(), v.end());
    const size_t k = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5));
    return v[k];
}

QString InteractionTimes::report() const {
    const double mx = ms.empty() ? 0.0 : *std::max_element(ms.begin(), ms.end());
    return QObject::tr("pan/zoom input to repainted picture over %1 interactions: p50 %2 ms, p95 %3 ms, max %4 ms")
        .arg(ms.size())
        .arg(percentileMs(0.50), 0, 'f', 1)
        .arg(percentileMs(0.95), 0, 'f', 1)
        .arg(mx, 0, 'f', 1);
}

namespace {

// Runs the interactions one after another from the event loop (no nested loop): each is sent, the view repainted at
// once, then the time is taken when no background preparation is left (polled every 2 ms) and the picture it
// produced is painted.
class InteractionRunner : public QObject {
public:
    using Step = std::function<void()>;
    InteractionRunner(PlotView* view, std::function<bool()> idle, std::vector<Step> steps,
                      std::function<void(InteractionTimes)> done)
        : QObject(view), m_view(view), m_idle(std::move(idle)), m_steps(std::move(steps)), m_done(std::move(done)) {
        m_poll.setInterval(2);
        connect(&m_poll, &QTimer::timeout, this, [this] {
            if (!m_idle()) return;
            m_poll.stop();
            m_view->repaint();
            finishStep();
        });
    }
    void next() {
        if (m_index >= m_steps.size()) {
            auto done = std::move(m_done);
            InteractionTimes out = std::move(m_out);
            deleteLater();
            done(std::move(out));
            return;
        }
        m_clock.start();
        m_steps[m_index]();
        m_view->repaint();
        if (m_idle()) finishStep();
        else m_poll.start();
    }

private:
    void finishStep() {
        m_out.ms.push_back(static_cast<double>(m_clock.nsecsElapsed()) / 1e6);
        ++m_index;
        QTimer::singleShot(0, this, [this] { next(); });
    }
    PlotView* m_view;
    std::function<bool()> m_idle;
    std::vector<Step> m_steps;
    std::function<void(InteractionTimes)> m_done;
    InteractionTimes m_out;
    QElapsedTimer m_clock;
    QTimer m_poll;
    size_t m_index = 0;
};

}  // namespace

void measureInteractions(PlotView* view, std::function<bool()> idle, std::function<void(InteractionTimes)> done,
                         int rounds) {
    if (!view) return done({});
    const QRectF r = view->rect();
    auto at = [r](int i) {
        return QPointF(r.left() + r.width() * (0.25 + 0.5 * ((i * 7) % 11) / 10.0), r.center().y());
    };
    auto send = [view](QEvent& e) { QApplication::sendEvent(view, &e); };
    auto wheel = [view, send](QPointF pos, QPoint angle, Qt::KeyboardModifiers mods) {
        return [=] {
            QWheelEvent e(pos, view->mapToGlobal(pos), QPoint(), angle, Qt::NoButton, mods, Qt::NoScrollPhase, false);
            send(e);
        };
    };
    std::vector<InteractionRunner::Step> steps;
    for (int i = 0; i < rounds; ++i) steps.push_back(wheel(at(i), QPoint(0, 120), Qt::NoModifier));  // zoom in
    for (int i = 0; i < rounds; ++i) {                                                                  // drag-pan 60 px
        const QPointF from = at(i), to = from + QPointF(i % 2 ? 60 : -60, 0);
        steps.push_back([=] {
            QMouseEvent press(QEvent::MouseButtonPress, from, view->mapToGlobal(from), Qt::LeftButton, Qt::LeftButton,
                              Qt::NoModifier);
            send(press);
            QMouseEvent move(QEvent::MouseMove, to, view->mapToGlobal(to), Qt::NoButton, Qt::LeftButton,
                             Qt::NoModifier);
            send(move);
            QMouseEvent release(QEvent::MouseButtonRelease, to, view->mapToGlobal(to), Qt::LeftButton, Qt::NoButton,
                                Qt::NoModifier);
            send(release);
        });
    }
    for (int i = 0; i < rounds; ++i)  // arrow-key pans
        steps.push_back([=] {
            QKeyEvent e(QEvent::KeyPress, i % 2 ? Qt::Key_Left : Qt::Key_Right, Qt::NoModifier);
            send(e);
        });
    for (int i = 0; i < rounds; ++i) steps.push_back(wheel(at(i), QPoint(0, i % 2 ? 120 : -120), Qt::ShiftModifier));
    for (int i = 0; i < rounds; ++i) steps.push_back(wheel(at(i), QPoint(0, -120), Qt::NoModifier));  // zoom out
    auto* runner = new InteractionRunner(view, std::move(idle), std::move(steps), std::move(done));
    runner->next();
}

std::pair<long long, long long> residentBytes() {
    std::ifstream in("/proc/self/status");
    std::string line;
    long long hwm = 0, rss = 0;
    while (std::getline(in, line)) {
        if (line.rfind("VmHWM:", 0) == 0) hwm = std::stoll(line.substr(6)) * 1024;
        if (line.rfind("VmRSS:", 0) == 0) rss = std::stoll(line.substr(6)) * 1024;
    }
    return {hwm, rss};
}

}  // namespace strobe::app
