#include "core/formats/kineto_header.h"

#include <cmath>
#include <limits>

#include <simdjson.h>

#include <fmt/format.h>

#include "core/formats/kineto_text.h"

namespace strobe::core::kineto {

namespace {

using simdjson::dom::element;

std::string compact(std::string_view raw) {
    std::string out;
    appendCompactJson(raw, out);
    return out;
}

// A version key may be written as a number (4.1) or a string ("12.4"): keep its text either way.
std::string scalarText(element e) {
    std::string_view s;
    if (e.get_string().get(s) == simdjson::SUCCESS) return std::string(s);
    return simdjson::minify(e);
}

bool intOf(element e, int64_t& out) {
    int64_t i = 0;
    if (e.get_int64().get(i) == simdjson::SUCCESS) {
        out = i;
        return true;
    }
    uint64_t u = 0;
    if (e.get_uint64().get(u) == simdjson::SUCCESS && u <= static_cast<uint64_t>(INT64_MAX)) {
        out = static_cast<int64_t>(u);
        return true;
    }
    double d = 0;  // 4.0; beyond int64 (2^70 arrives as a double) it is out of range
    if (e.get_double().get(d) == simdjson::SUCCESS && d > -9.2e18 && d < 9.2e18 && d == std::floor(d)) {
        out = static_cast<int64_t>(d);
        return true;
    }
    std::string_view s;  // "rank": "3" happens in hand-written traces
    if (e.get_string().get(s) == simdjson::SUCCESS && parseQuotedInteger(s, i)) {
        out = i;
        return true;
    }
    return false;
}

// Where the header's warnings point (the file and the byte offset of the top-level key's value) and how they read:
// "key": expected ..., got ...; ignored.
struct Reporter {
    const std::string& file;
    uint64_t offset;
    Diagnostics& diagnostics;

    void ignored(std::string_view key, element value, std::string_view expected, std::string_view note = {}) const {
        Location where{file};
        where.byteOffset = static_cast<int64_t>(offset);
        diagnostics.push_back({Severity::Warning, where,
                               fmt::format("key \"{}\": expected {}, got {}; ignored{}", key, expected,
                                           describeJsonValue(simdjson::minify(value)), note)});
    }
};

// An integer field in [0, max of T] (a number or a string holding one); a value of another type or out of range is
// reported as "<path>.<key>" and leaves `out` unchanged.
template <class T>
void setInt(const Reporter& report, element obj, const char* key, std::string_view path, T& out,
            std::string_view note = {}) {
    element v;
    if (obj[key].get(v) != simdjson::SUCCESS) return;
    constexpr int64_t kMax = std::numeric_limits<T>::max();
    int64_t i = 0;
    if (intOf(v, i) && i >= 0 && i <= kMax) {
        out = static_cast<T>(i);
        return;
    }
    report.ignored(fmt::format("{}.{}", path, key), v,
                   kMax == INT64_MAX ? std::string("a non-negative integer") : fmt::format("an integer from 0 to {}", kMax),
                   note);
}

void setString(element obj, const char* key, std::string& out) {
    element v;
    if (obj[key].get(v) == simdjson::SUCCESS) out = scalarText(v);
}

// Calls each(object, path) for each object in `arr`, path being "<prefix>[index]"; any other element is reported as
// ignored (`expected`: what it should have been).
template <class F>
void forEachObject(const Reporter& report, simdjson::dom::array arr, std::string_view prefix, std::string_view expected,
                   F&& each) {
    size_t index = 0;
    for (element e : arr) {
        const std::string path = fmt::format("{}[{}]", prefix, index++);
        if (e.is_object()) each(e, path);
        else report.ignored(path, e, expected);
    }
}

}  // namespace

void applyTopLevelKey(TraceInfo& info, std::string_view key, std::string_view rawValue, const std::string& file,
                      uint64_t offset, Diagnostics& diagnostics) {
    const Reporter report{file, offset, diagnostics};
    simdjson::dom::parser parser;
    simdjson::padded_string text(rawValue);
    element root;
    if (auto e = parser.parse(text).get(root)) {
        Location where{file};
        where.byteOffset = static_cast<int64_t>(offset);
        diagnostics.push_back({Severity::Warning, where,
                               fmt::format("top-level key \"{}\": invalid JSON value ({}); ignored", key,
                                           simdjson::error_message(e))});
        return;
    }

    if (key == "schemaVersion") {
        int64_t v = 0;
        if (intOf(root, v)) info.schemaVersion = static_cast<int>(v);
        else report.ignored(key, root, "an integer");
    } else if (key == "deviceProperties") {
        simdjson::dom::array arr;
        if (root.get_array().get(arr)) return report.ignored(key, root, "an array of device objects");
        forEachObject(report, arr, "deviceProperties", "a device object", [&](element d, const std::string& path) {
            DeviceProperties p;
            setInt(report, d, "id", path, p.id);
            setString(d, "name", p.name);
            setInt(report, d, "totalGlobalMem", path, p.totalGlobalMem);
            setInt(report, d, "computeMajor", path, p.computeMajor);
            setInt(report, d, "computeMinor", path, p.computeMinor);
            setInt(report, d, "warpSize", path, p.warpSize);
            setInt(report, d, "numSms", path, p.numSms);
            setInt(report, d, "maxThreadsPerBlock", path, p.maxThreadsPerBlock);
            setInt(report, d, "maxThreadsPerMultiprocessor", path, p.maxThreadsPerMultiprocessor);
            setInt(report, d, "regsPerBlock", path, p.regsPerBlock);
            setInt(report, d, "sharedMemPerBlock", path, p.sharedMemPerBlock);
            p.rawJson = simdjson::minify(d);
            info.devices.push_back(std::move(p));
        });
    } else if (key == "distributedInfo") {
        if (!root.is_object()) return report.ignored(key, root, "an object");
        DistributedInfo& di = info.distributed;
        di.present = true;
        setString(root, "backend", di.backend);
        setInt(report, root, "rank", key, di.rank, " (the rank comes from the file name or its place in the run)");
        setInt(report, root, "world_size", key, di.worldSize);
        setString(root, "nccl_version", di.ncclVersion);
        element pgConfig;
        if (root["pg_config"].get(pgConfig) == simdjson::SUCCESS) {
            simdjson::dom::array groups;
            if (pgConfig.get_array().get(groups))
                return report.ignored("distributedInfo.pg_config", pgConfig, "an array of process-group objects");
            auto readGroup = [&](element g, const std::string& path) {
                ProcessGroupConfig pg;
                setString(g, "pg_name", pg.name);
                setString(g, "pg_desc", pg.desc);
                setString(g, "backend_config", pg.backendConfig);
                setInt(report, g, "pg_size", path, pg.size);
                element ranks;
                if (g["ranks"].get(ranks) == simdjson::SUCCESS) {
                    // All or nothing: a list with holes would name the wrong ranks.
                    simdjson::dom::array list;
                    bool good = ranks.get_array().get(list) == simdjson::SUCCESS;
                    if (good) {
                        for (element r : list) {
                            int64_t v = 0;
                            good = intOf(r, v) && v >= 0 && v <= INT32_MAX;
                            if (!good) break;
                            pg.ranks.push_back(static_cast<int>(v));
                        }
                    }
                    if (!good) {
                        pg.ranks.clear();
                        report.ignored(path + ".ranks", ranks, "an array of non-negative integers");
                    }
                }
                di.processGroups.push_back(std::move(pg));
            };
            forEachObject(report, groups, "distributedInfo.pg_config", "a process-group object", readGroup);
        }
    } else if (key == "roctracer_version") {
        info.roctracerVersion = scalarText(root);
    } else if (key == "rocprofiler-sdk_version") {
        info.rocprofilerSdkVersion = scalarText(root);
    } else if (key == "cupti_version") {
        info.cuptiVersion = scalarText(root);
    } else if (key == "baseTimeNanoseconds") {
        int64_t v = 0;
        if (intOf(root, v)) info.baseTimeNanoseconds = v;
        else report.ignored(key, root, "an integer");
    } else if (key == "displayTimeUnit") {
        info.displayTimeUnit = scalarText(root);
    } else if (key == "traceName") {
        info.traceName = scalarText(root);
    } else {
        info.otherKeys.emplace_back(std::string(key), compact(rawValue));
    }
}

}  // namespace strobe::core::kineto
