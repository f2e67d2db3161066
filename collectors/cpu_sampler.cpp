#include "collectors/cpu_sampler.h"

#include <time.h>

#include <chrono>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

namespace strobe::collectors {

using core::Error;
using core::Location;

namespace {

std::optional<std::string> slurp(const char* path) {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

int64_t clockNs(clockid_t id) {
    timespec t{};
    clock_gettime(id, &t);
    return int64_t(t.tv_sec) * 1000000000 + t.tv_nsec;
}

}  // namespace

std::optional<ProcStat> parseProcStat(std::string_view text) {
    ProcStat out;
    bool sawAll = false;
    std::istringstream lines{std::string(text)};
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("cpu", 0) != 0) continue;
        std::istringstream f(line);
        std::string name;
        f >> name;
        uint64_t v[8] = {};
        int n = 0;
        while (n < 8 && f >> v[n]) ++n;
        if (n < 4) return std::nullopt;  // user nice system idle at least
        // user nice system idle iowait irq softirq steal (guest time is already inside user/nice)
        CpuJiffies j;
        j.busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
        j.total = j.busy + v[3] + v[4];
        if (name == "cpu") {
            out.all = j;
            sawAll = true;
            continue;
        }
        char* end = nullptr;
        const long core = std::strtol(name.c_str() + 3, &end, 10);
        if (end == name.c_str() + 3 || *end != '\0' || core < 0 || core > 65535) return std::nullopt;
        if (out.cores.size() <= size_t(core)) out.cores.resize(size_t(core) + 1);
        out.cores[size_t(core)] = j;
    }
    if (!sawAll) return std::nullopt;
    return out;
}

std::optional<double> utilisationPct(const CpuJiffies& before, const CpuJiffies& after) {
    if (after.total <= before.total || after.busy < before.busy) return std::nullopt;
    const double busy = double(after.busy - before.busy), total = double(after.total - before.total);
    return std::min(100.0, 100.0 * busy / total);
}

std::optional<MemInfo> parseMeminfo(std::string_view text) {
    MemInfo m;
    bool total = false, avail = false;
    std::istringstream lines{std::string(text)};
    for (std::string line; std::getline(lines, line);) {
        std::istringstream f(line);
        std::string key;
        uint64_t kib = 0;
        if (!(f >> key >> kib)) continue;
        if (key == "MemTotal:") m.totalKiB = kib, total = true;
        else if (key == "MemAvailable:") m.availableKiB = kib, avail = true;
    }
    if (!total || !avail) return std::nullopt;
    return m;
}

core::Status runCpuSampler(const CpuSamplerOptions& options, const std::atomic<bool>& stop) {
    if (options.rateHz <= 0 || options.rateHz > 1000) return Error(fmt::format("rate {} Hz is outside (0, 1000]", options.rateHz));
    auto first = slurp("/proc/stat");
    std::optional<ProcStat> prev = first ? parseProcStat(*first) : std::nullopt;
    if (!prev) return Error(Location{"/proc/stat"}, "cannot read the CPU times");
    std::FILE* out = std::fopen(options.outPath.c_str(), "w");
    if (!out) return Error(Location{options.outPath}, fmt::format("cannot write: {}", std::strerror(errno)));
    std::string header = "t_realtime_ns,t_monotonic_ns,t_boottime_ns,cpu.util_pct";
    for (size_t c = 0; c < prev->cores.size(); ++c) header += fmt::format(",cpu{}.util_pct", c);
    header += ",mem_used_mib,mem_total_mib\n";
    std::fputs(header.c_str(), out);
    std::fflush(out);
    const auto period = std::chrono::duration<double>(1.0 / options.rateHz);
    const auto t0 = std::chrono::steady_clock::now();
    auto next = t0;
    core::Status status = core::Ok{};
    while (!stop.load()) {
        next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(period);
        // Behind schedule (a loaded machine): drop the missed ticks rather than sample in a burst.
        if (const auto late = std::chrono::steady_clock::now(); next < late) next = late;
        // Sleep in short slices so that a stop request is seen quickly.
        while (!stop.load() && std::chrono::steady_clock::now() < next)
            std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
                next - std::chrono::steady_clock::now(), std::chrono::milliseconds(20)));
        if (stop.load()) break;
        const int64_t rt = clockNs(CLOCK_REALTIME), mono = clockNs(CLOCK_MONOTONIC), boot = clockNs(CLOCK_BOOTTIME);
        auto statText = slurp("/proc/stat");
        auto now = statText ? parseProcStat(*statText) : std::nullopt;
        if (!now) {
            status = Error(Location{"/proc/stat"}, "cannot read the CPU times");
            break;
        }
        // No clock tick (USER_HZ, 10 ms) since the last sample: no utilisation can be told yet; the next sample
        // measures over the longer interval instead of writing a row with empty CPU columns.
        if (now->all.total <= prev->all.total) continue;
        auto cell = [](std::optional<double> v) { return v ? fmt::format("{:.2f}", *v) : std::string(); };
        std::string row = fmt::format("{},{},{},{}", rt, mono, boot, cell(utilisationPct(prev->all, now->all)));
        // A core without a tick of its own since its last reading (the machine's tick came from another core) has
        // an empty cell, and keeps that reading: its next value covers the longer interval.
        for (size_t c = 0; c < prev->cores.size(); ++c) {
            const auto u = c < now->cores.size() ? utilisationPct(prev->cores[c], now->cores[c]) : std::nullopt;
            row += "," + cell(u);
            if (!u && c < now->cores.size()) now->cores[c] = prev->cores[c];
        }
        auto memText = slurp("/proc/meminfo");
        auto mem = memText ? parseMeminfo(*memText) : std::nullopt;
        if (mem)
            row += fmt::format(",{:.1f},{:.1f}\n", double(mem->totalKiB - std::min(mem->totalKiB, mem->availableKiB)) / 1024.0,
                               double(mem->totalKiB) / 1024.0);
        else
            row += ",,\n";
        if (std::fputs(row.c_str(), out) < 0 || std::fflush(out) != 0) {
            status = Error(Location{options.outPath}, fmt::format("cannot write: {}", std::strerror(errno)));
            break;
        }
        prev = std::move(now);
        if (options.durationS > 0 &&
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >= options.durationS)
            break;
    }
    if (std::fclose(out) != 0 && status) status = Error(Location{options.outPath}, fmt::format("cannot write: {}", std::strerror(errno)));
    return status;
}

}  // namespace strobe::collectors
