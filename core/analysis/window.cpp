#include "core/analysis/window.h"
#include "core/analysis/columns.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

namespace strobe::core {

namespace {
TimeNs medianOf(std::vector<TimeNs> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return static_cast<TimeNs>(std::llround(stats::quantile(std::span<const TimeNs>(v), 0.5)));
}
}  // namespace

SteadyState findSteadyState(AnalysisContext& ctx, double threshold) {
    SteadyState ss;
    std::map<int64_t, std::vector<StepSpan>> byNumber;
    for (size_t ri = 0; ri < ctx.rankCount(); ++ri)
        for (const auto& s : ctx.steps(ri)) byNumber[s.number].push_back(s);
    if (byNumber.empty()) {
        ss.reason = "the trace has no ProfilerStep#N annotations";
        return ss;
    }
    std::vector<TimeNs> medians;
    for (const auto& [n, spans] : byNumber) {
        SteadyStep st;
        st.number = n;
        st.start = INT64_MAX;
        st.end = INT64_MIN;
        std::vector<TimeNs> durs;
        for (const auto& s : spans) {
            st.start = std::min(st.start, s.start);
            st.end = std::max(st.end, s.end);
            durs.push_back(s.end - s.start);
        }
        st.minDur = *std::min_element(durs.begin(), durs.end());
        st.maxDur = *std::max_element(durs.begin(), durs.end());
        st.medianDur = medianOf(durs);
        st.ranks = static_cast<int64_t>(spans.size());
        medians.push_back(st.medianDur);
        ss.steps.push_back(st);
    }
    const size_t n = ss.steps.size();
    if (n < 3) {
        for (auto& s : ss.steps) {
            s.kept = true;
            s.reason = "fewer than three steps: all kept";
            ss.kept.push_back(s.number);
        }
        ss.reason = fmt::format("kept steps {} (fewer than three steps: no outlier test)", fmt::join(ss.kept, ","));
        return ss;
    }
    const TimeNs med = medianOf(medians);
    std::vector<TimeNs> dev;
    for (TimeNs d : medians) dev.push_back(d > med ? d - med : med - d);
    const double mad = static_cast<double>(medianOf(dev));
    const double scale = std::max(1.4826 * mad, 0.05 * static_cast<double>(med));
    for (auto& s : ss.steps) {
        double z = scale > 0 ? std::abs(static_cast<double>(s.medianDur - med)) / scale : 0.0;
        s.outlier = z > threshold;
    }
    size_t first = 0, last = n;  // [first, last)
    while (first < n && ss.steps[first].outlier) ++first;
    while (last > first && ss.steps[last - 1].outlier) --last;
    if (first == last) {  // everything is an outlier: keep all rather than nothing
        first = 0;
        last = n;
    }
    std::vector<int64_t> warm, tail;
    for (size_t i = 0; i < n; ++i) {
        auto& s = ss.steps[i];
        if (i < first) {
            s.reason = fmt::format("warm-up: {} ns vs median {} ns", s.medianDur, med);
            warm.push_back(s.number);
        } else if (i >= last) {
            s.reason = fmt::format("tail: {} ns vs median {} ns", s.medianDur, med);
            tail.push_back(s.number);
        } else {
            s.kept = true;
            s.reason = s.outlier ? fmt::format("kept: interior outlier ({} ns vs median {} ns)", s.medianDur, med)
                                 : "steady";
            ss.kept.push_back(s.number);
        }
    }
    ss.reason = fmt::format("kept steps {} of {}", fmt::join(ss.kept, ","), n);
    if (!warm.empty()) ss.reason += fmt::format("; dropped warm-up steps {}", fmt::join(warm, ","));
    if (!tail.empty()) ss.reason += fmt::format("; dropped tail steps {}", fmt::join(tail, ","));
    if (warm.empty() && tail.empty()) ss.reason += " (no outlying step at either end)";
    return ss;
}

Result<Table> steadyStateWindow(AnalysisContext& ctx, double threshold) {
    SteadyState ss = findSteadyState(ctx, threshold);
    Table t;
    t.columns = kWindowColumns;
    for (const auto& s : ss.steps)
        t.addRow({s.number, s.start, s.end, s.medianDur, s.minDur, s.maxDur, s.ranks, int64_t{s.outlier ? 1 : 0},
                  int64_t{s.kept ? 1 : 0}, s.reason});
    t.messages.push_back("window: " + ss.reason);
    return t;
}

namespace {
const DoubleParam kThreshold{"threshold", "threshold", "outlier when |dur − median| > threshold × robust deviation",
                             3.0};
}  // namespace

AnalysisInfo windowAnalysisInfo() {
    return AnalysisInfo(
        "window", "Steady-state steps: warm-up and tail steps with outlying durations dropped (the auto window)",
        {kThreshold.spec()}, kWindowColumns,
        [](AnalysisContext& ctx, const AnalysisRequest& req) { return steadyStateWindow(ctx, req.get(kThreshold)); });
}

}  // namespace strobe::core
