#pragma once
// main() of the benchmarks that paint (bench_plots*): a QGuiApplication (offscreen unless QT_QPA_PLATFORM says
// otherwise) around Google Benchmark's run.
#include <benchmark/benchmark.h>

#include <cstdlib>

#include <QGuiApplication>

namespace strobe::bench {

inline int runQtBenchmarks(int argc, char** argv) {
    if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
    int qargc = 1;
    QGuiApplication app(qargc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

}  // namespace strobe::bench
