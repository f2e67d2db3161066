#pragma once
// Event-loop latency probe: a 10 ms timer that records how late each tick fires. Lateness is time the GUI
// thread was busy elsewhere (blocked); the maximum over a load is the "GUI never blocks > 50 ms" figure.

#include <vector>

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

namespace strobe::app {

class LatencyProbe : public QObject {
    Q_OBJECT
public:
    explicit LatencyProbe(QObject* parent = nullptr, int intervalMs = 10);
    void start();
    void stop();
    bool running() const { return m_timer.isActive(); }
    double maxLatenessMs() const { return m_maxNs / 1e6; }
    double percentileMs(double p) const;  // p in [0, 1]
    int ticks() const { return static_cast<int>(m_lateness.size()); }
    int ticksLaterThan(double ms) const;
    double elapsedSeconds() const { return m_clock.isValid() ? m_clock.elapsed() / 1000.0 : 0.0; }
    QString report() const;
    // The `n` latest ticks, worst first: (seconds since start, lateness in ms). Tells when the GUI thread stalled.
    std::vector<std::pair<double, double>> worstTicks(size_t n) const;

private:
    void tick();
    QTimer m_timer;
    QElapsedTimer m_clock;
    int m_intervalMs;
    qint64 m_last = 0;
    qint64 m_maxNs = 0;
    std::vector<qint64> m_lateness;  // ns per tick
    std::vector<qint64> m_when;      // ns since start, per tick
};

}  // namespace strobe::app
