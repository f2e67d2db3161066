#pragma once
// Event-loop latency probe: a 10 ms timer that records how late each tick fires. Lateness is time the GUI
// thread was busy elsewhere (blocked); the maximum over a load is the "GUI never blocks > 50 ms" figure.

#include <functional>
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
    // The most CPU time the GUI thread itself spent between two ticks: work done on it, as opposed to lateness
    // caused by other processes taking the CPU.
    double maxBusyMs() const { return m_maxBusyNs / 1e6; }
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
    qint64 m_lastCpu = 0;
    qint64 m_maxBusyNs = 0;
    std::vector<qint64> m_lateness;  // ns per tick
    std::vector<qint64> m_when;      // ns since start, per tick
};

class PlotView;

// What a user feels when panning and zooming a shown timeline: the time from an input event to the repainted
// picture, waiting for any background preparation the event started. Scripted: wheel zooms in at spread-out
// points, drags and arrow-key pans, lane scrolls, wheel zooms out, each sent to the view and repainted at once.
struct InteractionTimes {
    std::vector<double> ms;  // one per interaction, in order
    double percentileMs(double p) const;
    QString report() const;
};
// Runs them from the event loop, then calls `done` with the times (synchronously when there is no view).
void measureInteractions(PlotView* view, std::function<bool()> idle, std::function<void(InteractionTimes)> done,
                         int rounds = 20);

// Peak and current resident memory of this process (VmHWM, VmRSS), in bytes; 0 where /proc is not there.
std::pair<long long, long long> residentBytes();

}  // namespace strobe::app
