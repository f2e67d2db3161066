#pragma once
// Resident-memory figures from /proc/self/status (Linux), shared by bench_load and strobe-load.
//
// VmHWM is the peak resident set size; writing "5" to /proc/self/clear_refs resets it to the current RSS
// (Linux >= 4.0), so a peak can be taken for one stretch of work. measureInChild() runs that work in a
// forked child so that memory the parent holds or has cached (allocator free lists, earlier loads) neither
// hides nor inflates the figure: the parent trims its heap first, the child resets its peak, notes its RSS,
// runs the work, and reports VmHWM minus that starting RSS.

#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>

namespace strobe::bench {

// A field of /proc/self/status in bytes ("VmHWM", "VmRSS"), -1 when unavailable.
inline long long procStatusBytes(const char* field) {
    std::ifstream in("/proc/self/status");
    std::string line;
    const size_t n = std::strlen(field);
    while (std::getline(in, line)) {
        if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':')
            return std::stoll(line.substr(n + 1)) * 1024;  // "VmHWM:    123 kB"
    }
    return -1;
}

// Resets VmHWM to the current RSS. False when the kernel refuses.
inline bool resetPeakRss() {
    std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
    if (!f) return false;
    const bool ok = std::fputs("5", f) >= 0;
    return std::fclose(f) == 0 && ok;
}

struct ChildMeasure {
    bool ok = false;
    double peakDeltaBytes = 0;  // peak RSS during the work minus the RSS at its start
    double peakBytes = 0;       // VmHWM of the child
    double startBytes = 0;      // VmRSS of the child when the work started
    std::string error;
};

inline ChildMeasure measureInChild(const std::function<bool(std::string&)>& work) {
    ChildMeasure m;
    malloc_trim(0);
    int fds[2];
    if (pipe(fds) != 0) { m.error = "pipe failed"; return m; }
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) { close(fds[0]); close(fds[1]); m.error = "fork failed"; return m; }
    if (pid == 0) {
        close(fds[0]);
        std::string err;
        bool ok = resetPeakRss();
        if (!ok) err = "cannot reset VmHWM through /proc/self/clear_refs";
        const long long start = procStatusBytes("VmRSS");
        if (ok) ok = work(err);
        const long long peak = procStatusBytes("VmHWM");
        char buf[512];
        const int len = std::snprintf(buf, sizeof buf, "%d %lld %lld %.400s", ok ? 1 : 0, peak, start, err.c_str());
        if (len > 0 && write(fds[1], buf, static_cast<size_t>(std::min<int>(len, sizeof buf - 1))) < 0) _exit(1);
        _exit(0);
    }
    close(fds[1]);
    std::string text;
    char buf[512];
    for (ssize_t r; (r = read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(r));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    int ok = 0;
    long long peak = 0, start = 0;
    int consumed = 0;
    if (std::sscanf(text.c_str(), "%d %lld %lld %n", &ok, &peak, &start, &consumed) < 3) {
        m.error = "the measuring child died (signal or crash)";
        return m;
    }
    m.ok = ok == 1 && peak > 0 && start > 0;
    m.peakBytes = static_cast<double>(peak);
    m.startBytes = static_cast<double>(start);
    m.peakDeltaBytes = static_cast<double>(peak - start);
    m.error = text.substr(static_cast<size_t>(consumed));
    return m;
}

}  // namespace strobe::bench
