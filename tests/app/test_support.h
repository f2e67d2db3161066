#pragma once
// Shared helpers of the GUI tests: one QApplication (offscreen), waiting with a running event loop, and an
// in-memory run so that plot tests do not depend on the loader.

#include <chrono>
#include <functional>
#include <memory>
#include <thread>

#include <QApplication>
#include <QCoreApplication>
#include <QElapsedTimer>

#include "core/model/dataset.h"

namespace strobe::test {

inline QApplication& app() {
    static int argc = 1;
    static char name[] = "strobe_app_tests";
    static char* argv[] = {name, nullptr};
    static QApplication* instance = [] {
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
        QCoreApplication::setOrganizationName(QStringLiteral("StrobeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("strobe_app_tests"));
        return new QApplication(argc, argv);
    }();
    return *instance;
}

// Runs the event loop until `done` or `timeoutMs`; returns done().
inline bool waitFor(const std::function<bool()>& done, int timeoutMs = 20000) {
    QElapsedTimer clock;
    clock.start();
    while (!done()) {
        if (clock.elapsed() > timeoutMs) return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return true;
}

// A dataset of `ranks` empty ranks (enough for plots that do not read the tables).
inline core::DatasetPtr makeDataset(int ranks) {
    auto ds = std::make_shared<core::Dataset>();
    ds->generation = core::nextGeneration();
    for (int r = 0; r < ranks; ++r) {
        auto rank = std::make_shared<core::RankData>();
        rank->rank = r;
        rank->path = "memory://rank" + std::to_string(r);
        ds->ranks.push_back(rank);
    }
    return ds;
}

}  // namespace strobe::test
