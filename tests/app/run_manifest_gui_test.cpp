// A run opened in the workbench by its directory carries its manifest (issue 19): the run record's entry has the
// manifest's parameters (typed), repeat and the manifest itself, and the plots' RunEntry gets them too. Values are
// the manifest written here.

#include <gtest/gtest.h>

#include <filesystem>
#include <variant>

#include "app/gui/run_manager.h"
#include "core/engine/job_runner.h"
#include "test_support.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

using namespace strobe;

namespace {

TEST(RunManifestGui, ARunOpenedByItsDirectoryCarriesItsManifestParameters) {
    test::app();
    test::TempDir dir("strobe-gui-manifest");
    const auto run = dir.path() / "run";
    std::filesystem::create_directories(run / "torch");
    test::writeFile(run / "manifest.yaml",
                    "strobe_manifest: 1\nparameters: {bs: 64, algo: \"ring\"}\nrepeat: 1\n"
                    "tools:\n  - {name: cpu-sampler, version: \"1.0\", params: {}}\nhost: node01\nstatus: completed\n");
    std::filesystem::copy_file(std::string(STROBE_TEST_DATA_DIR) +
                                   "/kineto/kineto-configs/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
                               run / "torch" / "worker0.pt.trace.json.gz");
    core::JobRunner runner(1);
    app::RunManager runs(runner);
    auto options = runs.loadOptions();
    options.useCache = false;
    runs.setLoadOptions(options);
    const int id = runs.openRun({QString::fromStdString(run.string())});
    const app::RunRecord* r = runs.run(id);
    ASSERT_NE(r, nullptr);
    ASSERT_TRUE(r->entry.manifest);
    EXPECT_EQ(std::get<long long>(r->entry.parameters.at("bs")), 64);
    EXPECT_EQ(std::get<std::string>(r->entry.parameters.at("algo")), "ring");
    EXPECT_EQ(r->entry.repeat, 1);
    EXPECT_EQ(r->entry.manifest->host, "node01");
    ASSERT_TRUE(test::waitFor([&] { return !runs.anyLoading(); }));
    const plots::RunEntry e = runs.runEntry(id);
    ASSERT_TRUE(e.dataset);
    EXPECT_EQ(e.dataset->ranks.size(), 1u);
    EXPECT_EQ(e.key(), "algo=ring,bs=64");
    ASSERT_TRUE(e.manifest);
    EXPECT_EQ(e.manifest->tools.at(0).name, "cpu-sampler");
}

}  // namespace
