// libFuzzer target: the SQL front end (core/query/sql_query.h). The input is one query run against a small hand-built
// run (kernels, slices with names, steps, samples; the merge's derived columns left empty, as a partial load may leave
// them): any text must give rows or an error that says something, never a crash, a write or a hang (step budget).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/query/sql_query.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

std::shared_ptr<strobe::core::Dataset> makeRun() {
    using namespace strobe::core;
    auto r = std::make_shared<RankData>();
    r->rank = 0;
    r->tracks.push_back(Track{10, 11});
    for (int k = 0; k < 6; ++k) {
        GpuRecord g;
        g.name = r->strings.intern(k % 2 ? "ncclKernel_AllReduce" : "volta_sgemm_128x32_tn");
        g.kind = k == 5 ? EventKind::Memcpy : EventKind::Kernel;
        g.ts = 1000 * (6 - k);  // not in time order: the time-order index is built
        g.dur = 100 + k;
        g.stream = 7;
        r->gpu.appendRaw(g);
        SliceRecord s;
        s.name = r->strings.intern(k % 3 ? "aten::mm" : "cudaLaunchKernel");
        s.kind = k % 3 ? EventKind::CpuOp : EventKind::Runtime;
        s.ts = 900 * k;
        s.dur = 50;
        s.track = 0;
        r->slices.appendRaw(s);
    }
    r->steps.number.push_back(3);
    r->steps.start.push_back(0);
    r->steps.end.push_back(10000);
    r->samples.ts.push_back(500);
    r->samples.device.push_back(0);
    r->samples.metric.push_back(r->strings.intern("power_w"));
    r->samples.value.push_back(300.5);
    auto d = std::make_shared<Dataset>();
    d->ranks.push_back(r);
    d->sources.push_back("fuzz");
    return d;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static auto engine = [] {
        auto e = strobe::core::QueryEngine::open({{"fuzz", makeRun()}});
        if (!e) std::abort();
        e.value()->setMaxSteps(100000);
        e.value()->setMaxValueBytes(16 * 1024);  // with 16 rows at most: bounded memory whatever the query makes
        return std::move(e.value());
    }();
    const std::string sql(reinterpret_cast<const char*>(data), size);
    auto r = engine->run(sql, 16);
    if (!r.ok()) strobe::fuzz::checkError(r.error());
    // The engine still answers, and the views are still there: nothing the input did changed it.
    auto again = engine->run("SELECT count(*) FROM kernel_time_per_step");
    if (!again.ok()) std::abort();
    return 0;
}
