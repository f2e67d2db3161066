#include "collectors/manifest.h"

#include <time.h>

#include <cstdint>

namespace strobe::collectors {

namespace {

int64_t clockNsManifest(clockid_t id) {
    timespec ts{};
    clock_gettime(id, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace

core::ClockAnchor readClocks() {
    core::ClockAnchor c;
    c.realtimeNs = clockNsManifest(CLOCK_REALTIME);
    c.monotonicNs = clockNsManifest(CLOCK_MONOTONIC);
    c.boottimeNs = clockNsManifest(CLOCK_BOOTTIME);
    const time_t now = static_cast<time_t>(c.realtimeNs / 1'000'000'000);
    tm local{};
    c.utcOffsetSeconds = localtime_r(&now, &local) ? int64_t(local.tm_gmtoff) : int64_t(0);
    return c;
}

std::string utcNow() {
    const time_t t = time(nullptr);
    tm u{};
    gmtime_r(&t, &u);
    char buf[32];
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &u);
    return buf;
}

}  // namespace strobe::collectors
