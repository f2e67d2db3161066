// strobe — the workbench window.
//   strobe [PATH…]                 open traces (each directory a run, loose files together one run)
//   strobe --session FILE [PATH…]  restore a session (on PATH… instead of its own runs when given)
//   strobe --sweep DIR             open a sweep's runs in the Sweep dock (as File ▸ Open sweep…)
//   strobe --measure-latency PATH… load and show the default plot, print the event-loop latency seen, quit
//   strobe --no-cache PATH…        neither read nor write the on-disk load cache
//   strobe --screenshot FILE …     (hidden) save a picture of the window once everything is idle, quit

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QTimer>

#include "app/gui/clock_offset_dialog.h"
#include "app/gui/latency_probe.h"
#include "app/gui/main_window.h"
#include "app/gui/plot_area.h"
#include "app/gui/run_manager.h"

using strobe::app::LatencyProbe;
using strobe::app::MainWindow;

namespace {

// QGuiApplication consumes "-session"/"--session" itself (X11 session management), so Strobe takes its
// --session FILE out of argv before Qt sees it.
QString takeSessionArgument(int& argc, char** argv) {
    QString file;
    int out = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a(argv[i]);
        if ((a == "--session" || a == "-session") && i + 1 < argc) {
            file = QString::fromLocal8Bit(argv[++i]);
            continue;
        }
        if (a.rfind("--session=", 0) == 0) {
            file = QString::fromLocal8Bit(argv[i] + 10);
            continue;
        }
        argv[out++] = argv[i];
    }
    argc = out;
    argv[argc] = nullptr;
    return file;
}

// `strobe --help` and `--version` must answer on a terminal without a display, like any command-line program.
void useOffscreenForTextOnlyRuns(int argc, char** argv) {
    if (std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY") || std::getenv("QT_QPA_PLATFORM")) return;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a(argv[i]);
        if (a == "-h" || a == "--help" || a == "-?" || a == "--help-all" || a == "-v" || a == "--version") {
            ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
            return;
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    const QString sessionFile = takeSessionArgument(argc, argv);
    useOffscreenForTextOnlyRuns(argc, argv);
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Strobe"));
    QApplication::setOrganizationName(QStringLiteral("Strobe"));
    QApplication::setApplicationVersion(QStringLiteral(STROBE_VERSION));
    QApplication::setStyle(QStringLiteral("Fusion"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QApplication::translate("main", "Strobe — workbench for GPU performance traces"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("paths"),
                                 QApplication::translate("main", "Trace files or run directories to open."),
                                 QStringLiteral("[PATH…]"));
    QCommandLineOption session(QStringLiteral("session"),
                               QApplication::translate("main", "Restore a session (YAML); with PATHs, on those runs."),
                               QStringLiteral("file"));
    QCommandLineOption latency(QStringLiteral("measure-latency"),
                               QApplication::translate("main", "Load PATHs and show the default plot, print the event-loop latency seen meanwhile, quit."));
    QCommandLineOption screenshot(QStringLiteral("screenshot"), QStringLiteral("Save the window as PNG once idle, then quit."),
                                  QStringLiteral("file"));
    screenshot.setFlags(QCommandLineOption::HiddenFromHelp);
    QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size WxH."), QStringLiteral("WxH"));
    size.setFlags(QCommandLineOption::HiddenFromHelp);
    QCommandLineOption theme(QStringLiteral("theme"), QApplication::translate("main", "light, dark or system."),
                             QStringLiteral("name"));
    QCommandLineOption noCache(QStringLiteral("no-cache"),
                               QApplication::translate("main", "Neither read nor write the on-disk load cache."));
    parser.addOption(session);
    parser.addOption(latency);
    parser.addOption(noCache);
    parser.addOption(screenshot);
    parser.addOption(size);
    QCommandLineOption sweep(QStringLiteral("sweep"),
                             QApplication::translate("main", "Open the runs of a sweep directory in the Sweep dock."),
                             QStringLiteral("DIR"));
    QCommandLineOption clockOffset(
        QStringLiteral("clock-offset"),
        QApplication::translate("main", "Added to the times of sources not on the realtime clock (rocprof, nsys, "
                                        "nvidia-smi local time) to reach Unix-epoch time, for the runs of PATHs: ns, or with a unit (-3600s). "
                                        "Later: the run's menu ▸ Clock offset…"),
        QStringLiteral("NS"));
    parser.addOption(theme);
    parser.addOption(sweep);
    parser.addOption(clockOffset);
    parser.process(app);
    std::optional<int64_t> clockOffsetNs;
    if (parser.isSet(clockOffset)) {
        auto v = strobe::core::valueFromString(strobe::app::clockOffsetSpec(), parser.value(clockOffset).toStdString());
        if (!v) {
            std::fprintf(stderr, "strobe: --clock-offset: %s\n", v.error().message.c_str());
            return 2;
        }
        clockOffsetNs = std::get<long long>(v.value());
    }

    MainWindow window;
    if (parser.isSet(noCache)) {
        auto options = window.runs().loadOptions();
        options.useCache = false;
        window.runs().setLoadOptions(options);
    }
    if (parser.isSet(theme)) {
        const QString t = parser.value(theme);
        window.setTheme(t == QLatin1String("dark")    ? strobe::app::Theme::Dark
                        : t == QLatin1String("light") ? strobe::app::Theme::Light
                                                      : strobe::app::Theme::System);
    }
    if (parser.isSet(size)) {
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        if (wh.size() == 2) window.resize(wh[0].toInt(), wh[1].toInt());
    }
    window.show();

    LatencyProbe probe;
    double firstPicture = 0;
    const QStringList paths = parser.positionalArguments();
    if (parser.isSet(latency)) {
        if (paths.isEmpty()) {
            std::fprintf(stderr, "strobe: --measure-latency needs PATHs to load\n");
            return 2;
        }
        // What a user lives through: the load, then the default plot (the GPU timeline) preparing and painting.
        // The probe runs until nothing loads or prepares any more and the last picture has been painted.
        QObject::connect(&window.runs(), &strobe::app::RunManager::loadingChanged, &app, [&](bool loading) {
            if (loading) return;
            std::printf("load finished at %.3f s\n", probe.elapsedSeconds());
            auto* poll = new QTimer(&app);
            QObject::connect(poll, &QTimer::timeout, &app, [&, poll] {
                if (!window.isIdle()) return;
                poll->stop();
                firstPicture = probe.elapsedSeconds();
                QTimer::singleShot(300, &app, [&] {  // let the last repaint land inside the measurement
                    probe.stop();
                    QString failed;
                    for (int id : window.runs().runIds())
                        if (auto* r = window.runs().run(id); r && r->error)
                            failed += QString::fromStdString(r->error->toString());
                    std::printf("load and default plot: %s\n", probe.report().toUtf8().constData());
                    for (const auto& [at, ms] : probe.worstTicks(5))
                        std::printf("  late tick at %.3f s: %.1f ms\n", at, ms);
                    if (!failed.isEmpty()) std::printf("load error: %s\n", failed.toUtf8().constData());
                    const auto [hwmBefore, rssBefore] = strobe::app::residentBytes();
                    std::printf("first picture at %.3f s; resident %.0f MB (peak %.0f MB)\n", firstPicture,
                                rssBefore / 1e6, hwmBefore / 1e6);
                    // Then what a user does next: pan and zoom the timeline.
                    strobe::app::measureInteractions(
                        window.plotArea()->currentView(), [&] { return window.isIdle(); },
                        [](const strobe::app::InteractionTimes& times) {
                            if (!times.ms.empty()) std::printf("%s\n", times.report().toUtf8().constData());
                            const auto [hwm, rss] = strobe::app::residentBytes();
                            std::printf("resident after pan/zoom %.0f MB (peak %.0f MB)\n", rss / 1e6, hwm / 1e6);
                            std::fflush(stdout);
                            // exit, not quit: quitting closes the window, which would ask to save the panned session.
                            QTimer::singleShot(0, qApp, [] { QApplication::exit(0); });
                        });
                });
            });
            poll->start(20);
        });
    }

    auto open = [&] {
        if (!sessionFile.isEmpty()) window.openSession(sessionFile, paths);
        else if (!paths.isEmpty()) window.openPaths(paths, clockOffsetNs);
        if (parser.isSet(sweep)) window.openSweep(parser.value(sweep));
    };
    if (parser.isSet(latency)) {
        // Measure the load only: start once the window is up and painted.
        QTimer::singleShot(500, &app, [&] {
            probe.start();
            open();
        });
    } else {
        open();
    }

    if (parser.isSet(screenshot)) {
        // Poll until nothing loads or prepares (at most two minutes), let the last repaint land, then grab.
        const QString file = parser.value(screenshot);
        auto* timer = new QTimer(&app);
        auto* clock = new QElapsedTimer();
        clock->start();
        QObject::connect(timer, &QTimer::timeout, &app, [&window, timer, clock, file] {
            if (!window.isIdle() && clock->elapsed() < 120000) return;
            timer->stop();
            QTimer::singleShot(400, &window, [&window, file] {
                const bool ok = window.grab().save(file);
                std::fprintf(ok ? stdout : stderr, ok ? "screenshot: %s\n" : "strobe: cannot write %s\n",
                             file.toUtf8().constData());
                QApplication::exit(ok ? 0 : 1);
            });
        });
        timer->start(250);
    }
    return QApplication::exec();
}
