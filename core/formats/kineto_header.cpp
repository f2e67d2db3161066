#include "core/formats/kineto_header.h"

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
    double d = 0;
    if (e.get_double().get(d) == simdjson::SUCCESS && d == static_cast<double>(static_cast<int64_t>(d))) {
        out = static_cast<int64_t>(d);
        return true;
    }
    std::string_view s;  // "rank": "3" happens in hand-written traces
    if (e.get_string().get(s) == simdjson::SUCCESS && parseInteger(s, i)) {
        out = i;
        return true;
    }
    return false;
}

template <class T>
void setInt(element obj, const char* key, T& out) {
    element v;
    int64_t i = 0;
    if (obj[key].get(v) == simdjson::SUCCESS && intOf(v, i)) out = static_cast<T>(i);
}

void setString(element obj, const char* key, std::string& out) {
    element v;
    if (obj[key].get(v) == simdjson::SUCCESS) out = scalarText(v);
}

}  // namespace

void applyTopLevelKey(TraceInfo& info, std::string_view key, std::string_view rawValue, const std::string& file,
                      uint64_t offset, Diagnostics& diagnostics) {
    auto warnType = [&](std::string_view expected) {
        Location where{file};
        where.byteOffset = static_cast<int64_t>(offset);
        diagnostics.push_back({Severity::Warning, where,
                               fmt::format("top-level key \"{}\": expected {}; ignored", key, expected)});
    };
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
        else warnType("an integer");
    } else if (key == "deviceProperties") {
        simdjson::dom::array arr;
        if (root.get_array().get(arr)) return warnType("an array of device objects");
        for (element d : arr) {
            if (!d.is_object()) continue;
            DeviceProperties p;
            setInt(d, "id", p.id);
            setString(d, "name", p.name);
            setInt(d, "totalGlobalMem", p.totalGlobalMem);
            setInt(d, "computeMajor", p.computeMajor);
            setInt(d, "computeMinor", p.computeMinor);
            setInt(d, "warpSize", p.warpSize);
            setInt(d, "numSms", p.numSms);
            setInt(d, "maxThreadsPerBlock", p.maxThreadsPerBlock);
            setInt(d, "maxThreadsPerMultiprocessor", p.maxThreadsPerMultiprocessor);
            setInt(d, "regsPerBlock", p.regsPerBlock);
            setInt(d, "sharedMemPerBlock", p.sharedMemPerBlock);
            p.rawJson = simdjson::minify(d);
            info.devices.push_back(std::move(p));
        }
    } else if (key == "distributedInfo") {
        if (!root.is_object()) return warnType("an object");
        DistributedInfo& di = info.distributed;
        di.present = true;
        setString(root, "backend", di.backend);
        setInt(root, "rank", di.rank);
        setInt(root, "world_size", di.worldSize);
        setString(root, "nccl_version", di.ncclVersion);
        simdjson::dom::array groups;
        if (root["pg_config"].get_array().get(groups) == simdjson::SUCCESS) {
            for (element g : groups) {
                if (!g.is_object()) continue;
                ProcessGroupConfig pg;
                setString(g, "pg_name", pg.name);
                setString(g, "pg_desc", pg.desc);
                setString(g, "backend_config", pg.backendConfig);
                setInt(g, "pg_size", pg.size);
                simdjson::dom::array ranks;
                if (g["ranks"].get_array().get(ranks) == simdjson::SUCCESS) {
                    for (element r : ranks) {
                        int64_t v = 0;
                        if (intOf(r, v)) pg.ranks.push_back(static_cast<int>(v));
                    }
                }
                di.processGroups.push_back(std::move(pg));
            }
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
        else warnType("an integer");
    } else if (key == "displayTimeUnit") {
        info.displayTimeUnit = scalarText(root);
    } else if (key == "traceName") {
        info.traceName = scalarText(root);
    } else {
        info.otherKeys.emplace_back(std::string(key), compact(rawValue));
    }
}

}  // namespace strobe::core::kineto
