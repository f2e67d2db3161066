// strobe-cli sample cpu: the CPU/memory sampler (collectors/cpu_sampler.h) as a process, the way a profiling
// session runs it beside a workload: it writes Strobe's sampler CSV, flushed per sample, until its duration passes
// or it receives SIGTERM/SIGINT, and then exits 0 with every sample taken on disk.
#include <signal.h>

#include <atomic>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/cli/command.h"
#include "collectors/cpu_sampler.h"

namespace strobe::app {

namespace {

constexpr const char* kSampleHelp =
    "Usage: strobe-cli sample cpu --out FILE [--rate-hz HZ] [--duration S]\n"
    "\n"
    "Samples per-core and whole-machine CPU utilisation (/proc/stat) and memory (/proc/meminfo) into FILE as\n"
    "Strobe's sampler CSV (t_realtime_ns,t_monotonic_ns,t_boottime_ns,cpu.util_pct,cpu0.util_pct,...,\n"
    "mem_used_mib,mem_total_mib), one row per interval, flushed as written. Runs until --duration seconds have\n"
    "passed or SIGTERM/SIGINT arrives, then exits 0. Strobe opens FILE like any other source.\n"
    "\n"
    "  --out FILE     the CSV to write (replaced)\n"
    "  --rate-hz HZ   samples per second (default 10, at most 1000)\n"
    "  --duration S   stop after S seconds (default 0: until signalled)\n"
    "\n"
    "Exit codes: 0 ok, 1 the sampler failed (the message names the file), 2 usage error.";

const core::PathParam kSampleOut{"out", "Output", "The sampler CSV to write", ""};
const core::DoubleParam kRate = core::DoubleParam{"rate-hz", "Rate (Hz)", "Samples per second", 10.0}.bounded(0.01, 1000, 1);
const core::DoubleParam kDuration =
    core::DoubleParam{"duration", "Duration (s)", "Stop after this many seconds (0: until signalled)", 0.0}.bounded(0, 1e7, 1);

std::atomic<bool> g_stop{false};
extern "C" void onStopSignal(int) { g_stop.store(true); }

int runSample(const std::vector<std::string>& args) {
    ArgParser p("sample", {kSampleOut, kRate, kDuration});
    if (!p.parse(args)) return usageError("sample", p.error());
    if (p.positionals().size() != 1 || p.positionals().front() != "cpu")
        return usageError("sample", "say what to sample: `strobe-cli sample cpu --out FILE`");
    if (!p.has(kSampleOut) || p.get(kSampleOut).empty()) return usageError("sample", "--out FILE is required");
    struct sigaction sa {};
    sa.sa_handler = onStopSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);
    collectors::CpuSamplerOptions o;
    o.outPath = p.get(kSampleOut);
    o.rateHz = p.get(kRate);
    o.durationS = p.get(kDuration);
    if (core::Status st = collectors::runCpuSampler(o, g_stop); !st) {
        fmt::print(stderr, "strobe-cli sample: {}\n", st.error().toString());
        return kExitFailure;
    }
    return kExitOk;
}

const CommandRegistrar kSampleRegistrar({"sample", "sample CPU utilisation and memory into a sampler CSV (a sidecar)",
                                         kSampleHelp, runSample});

}  // namespace

}  // namespace strobe::app
