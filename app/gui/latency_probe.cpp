#include "app/gui/latency_probe.h"

#include <algorithm>

namespace strobe::app {

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
    m_timer.start();
}

void LatencyProbe::stop() { m_timer.stop(); }

void LatencyProbe::tick() {
    const qint64 now = m_clock.nsecsElapsed();
    const qint64 late = std::max<qint64>(0, now - m_last - qint64(m_intervalMs) * 1000000);
    m_last = now;
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
    return tr("event-loop latency over %1 s (%2 ticks of %3 ms): max %4 ms, p99 %5 ms, p50 %6 ms, ticks > 50 ms: %7")
        .arg(elapsedSeconds(), 0, 'f', 2)
        .arg(ticks())
        .arg(m_intervalMs)
        .arg(maxLatenessMs(), 0, 'f', 1)
        .arg(percentileMs(0.99), 0, 'f', 1)
        .arg(percentileMs(0.50), 0, 'f', 1)
        .arg(ticksLaterThan(50.0));
}

}  // namespace strobe::app
