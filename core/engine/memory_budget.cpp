#include "core/engine/memory_budget.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace strobe::core {

namespace fs = std::filesystem;

namespace {

uint64_t memAvailableBytes() {
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("MemAvailable:", 0) != 0) continue;
        std::istringstream s(line.substr(13));
        uint64_t kb = 0;
        if (s >> kb) return kb * 1024;
    }
    return 0;
}

uint64_t readNumber(const fs::path& file) {
    std::ifstream in(file);
    std::string text;
    if (!(in >> text) || text == "max") return 0;  // absent, unreadable or unlimited
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
    return end != text.c_str() ? static_cast<uint64_t>(v) : 0;
}

// The room left in one cgroup directory: v2 memory.max - memory.current, v1 memory.limit_in_bytes -
// memory.usage_in_bytes; 0 when the directory sets no limit. A v1 "no limit" is a huge number (page-rounded
// LONG_MAX): anything from 2^60 up counts as none.
uint64_t roomIn(const fs::path& dir) {
    for (const auto& [limitFile, usageFile] : {std::pair{"memory.max", "memory.current"},
                                               std::pair{"memory.limit_in_bytes", "memory.usage_in_bytes"}}) {
        const uint64_t limit = readNumber(dir / limitFile);
        if (limit == 0 || limit >= (uint64_t{1} << 60)) continue;
        const uint64_t used = readNumber(dir / usageFile);
        return limit > used ? limit - used : 1;
    }
    return 0;
}

}  // namespace

uint64_t MemoryBudget::cgroupAvailable(const std::string& root, const std::string& procCgroup) {
    // The process's own cgroup (a Slurm task's allocation), then the cgroup root as mounted (a container's).
    std::vector<fs::path> dirs;
    std::ifstream in(procCgroup);
    std::string line;
    while (std::getline(in, line)) {
        const size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
        if (b == std::string::npos) continue;
        const std::string controllers = line.substr(a + 1, b - a - 1);
        std::string path = line.substr(b + 1);
        if (path.empty() || path == "/") continue;
        path.erase(0, path.find_first_not_of('/'));
        if (controllers.empty()) dirs.push_back(fs::path(root) / path);                 // v2
        else if (("," + controllers + ",").find(",memory,") != std::string::npos) dirs.push_back(fs::path(root) / "memory" / path);  // v1
    }
    dirs.push_back(fs::path(root));
    dirs.push_back(fs::path(root) / "memory");
    uint64_t best = 0;
    for (const fs::path& d : dirs)
        if (const uint64_t room = roomIn(d); room != 0) best = best == 0 ? room : std::min(best, room);
    return best;
}

namespace {

bool endsWithGz(const std::string& p) {
    if (p.size() < 3) return false;
    std::string tail = p.substr(p.size() - 3);
    for (char& c : tail) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return tail == ".gz";
}

}  // namespace

MemoryBudget::MemoryBudget(uint64_t limitBytes) : m_limit(limitBytes == 0 ? defaultLimit() : limitBytes) {
    if (const char* env = std::getenv("STROBE_MEMORY_LIMIT"); env != nullptr && *env != '\0') {
        const uint64_t v = parseSize(env);
        if (v > 0)
            m_limit = v;
        else
            spdlog::warn("STROBE_MEMORY_LIMIT='{}' is not a size (e.g. 512M, 2G); using {}", env, formatSize(m_limit));
    }
}

uint64_t MemoryBudget::defaultLimit() {
    uint64_t avail = memAvailableBytes();
    if (avail == 0) {
        const long pages = sysconf(_SC_PHYS_PAGES);
        const long page = sysconf(_SC_PAGESIZE);
        if (pages > 0 && page > 0) avail = static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
    }
    // A cgroup's limit (a Slurm task's allocation, a container's) bounds what this process may use, whatever the
    // machine has free.
    if (const uint64_t room = cgroupAvailable(); room != 0) avail = avail == 0 ? room : std::min(avail, room);
    if (avail == 0) return UINT64_MAX;  // unknown: do not refuse
    return avail / 4 * 3;
}

uint64_t MemoryBudget::parseSize(const std::string& text) {
    size_t i = 0;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    const char* begin = text.c_str() + i;
    char* end = nullptr;
    const double v = std::strtod(begin, &end);
    if (end == begin || !(v > 0) || v > 1e19) return 0;
    std::string unit(end);
    unit.erase(std::remove_if(unit.begin(), unit.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
               unit.end());
    for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    double mult = 1;
    if (unit.empty() || unit == "b")
        mult = 1;
    else if (unit == "k" || unit == "kb" || unit == "kib")
        mult = 1024.0;
    else if (unit == "m" || unit == "mb" || unit == "mib")
        mult = 1024.0 * 1024;
    else if (unit == "g" || unit == "gb" || unit == "gib")
        mult = 1024.0 * 1024 * 1024;
    else if (unit == "t" || unit == "tb" || unit == "tib")
        mult = 1024.0 * 1024 * 1024 * 1024;
    else
        return 0;
    const double bytes = v * mult;
    if (bytes >= 1.8e19) return 0;
    return static_cast<uint64_t>(bytes);
}

std::string MemoryBudget::formatSize(uint64_t bytes) {
    const double b = static_cast<double>(bytes);
    if (bytes >= (1ULL << 30)) return fmt::format("{:.1f} GiB", b / (1ULL << 30));
    if (bytes >= (1ULL << 20)) return fmt::format("{:.1f} MiB", b / (1ULL << 20));
    if (bytes >= (1ULL << 10)) return fmt::format("{:.1f} KiB", b / (1ULL << 10));
    return fmt::format("{} bytes", bytes);
}

Result<uint64_t> MemoryBudget::jsonSizeOf(const std::string& path) {
    std::error_code ec;
    const uint64_t size = fs::file_size(path, ec);
    if (ec) return Error(Location{path}, "cannot read the file size: " + ec.message());
    if (!endsWithGz(path) || size < 18) return size;
    // gzip: the last 4 bytes hold the uncompressed size modulo 2^32 (of the last member only).
    std::ifstream in(path, std::ios::binary);
    unsigned char t[4] = {0, 0, 0, 0};
    uint64_t isize = 0;
    if (in.seekg(-4, std::ios::end) && in.read(reinterpret_cast<char*>(t), 4))
        isize = uint64_t(t[0]) | uint64_t(t[1]) << 8 | uint64_t(t[2]) << 16 | uint64_t(t[3]) << 24;
    return std::max(isize, size * kGzipMinRatio);
}

Result<uint64_t> MemoryBudget::estimateFile(const std::string& path) {
    auto json = jsonSizeOf(path);
    if (!json) return json.error();
    return static_cast<uint64_t>(static_cast<double>(json.value()) * kPeakRssPerJsonByte);
}

std::vector<std::pair<uint64_t, size_t>> MemoryBudget::largestFirst(const std::vector<std::string>& files) {
    std::vector<std::pair<uint64_t, size_t>> est;  // estimate, file index
    est.reserve(files.size());
    for (size_t i = 0; i < files.size(); ++i) {
        auto e = estimateFile(files[i]);
        if (e) est.emplace_back(e.value(), i);
    }
    std::sort(est.begin(), est.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    return est;
}

uint64_t MemoryBudget::estimateRun(const std::vector<std::string>& files, size_t concurrent) {
    const auto est = largestFirst(files);
    uint64_t total = 0;
    for (size_t j = 0; j < std::min(std::max<size_t>(concurrent, 1), est.size()); ++j) total += est[j].first;
    return total;
}

uint64_t MemoryBudget::estimateResident(const std::vector<std::string>& files) {
    uint64_t total = 0;
    for (const auto& f : files)
        if (auto json = jsonSizeOf(f)) total += static_cast<uint64_t>(static_cast<double>(*json) * kResidentPerJsonByte);
    return total;
}

Status MemoryBudget::check(const std::vector<std::string>& files, size_t concurrent) const {
    const auto est = largestFirst(files);
    if (est.empty()) return Ok{};
    const size_t k = std::clamp<size_t>(concurrent, 1, est.size());
    uint64_t total = 0;
    for (size_t j = 0; j < k; ++j) total += est[j].first;
    if (total <= m_limit) return Ok{};
    const std::string& biggest = files[est.front().second];
    std::string msg;
    if (k == 1)
        msg = fmt::format("refused: loading this file needs about {} of memory (estimated from its size), more "
                          "than the limit of {} (set by RunLoadOptions::memoryLimitBytes or STROBE_MEMORY_LIMIT)",
                          formatSize(total), formatSize(m_limit));
    else
        msg = fmt::format("refused: loading {} files at once needs about {} of memory (this, the largest, about {}), "
                          "more than the limit of {} (set by RunLoadOptions::memoryLimitBytes or "
                          "STROBE_MEMORY_LIMIT; fewer threads need less)",
                          k, formatSize(total), formatSize(est.front().first), formatSize(m_limit));
    return Error(Location{biggest}, std::move(msg));
}

}  // namespace strobe::core
