// Painting text needs a QGuiApplication (font database). One for the whole test binary, offscreen.
#include <cstdlib>
#include <memory>

#include <QGuiApplication>
#include <gtest/gtest.h>

namespace {

class GuiAppEnvironment : public ::testing::Environment {
public:
    void SetUp() override {
        if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
        static int argc = 1;
        static char arg0[] = "strobe_plots_tests";
        static char* argv[] = {arg0, nullptr};
        if (!QGuiApplication::instance()) m_app = std::make_unique<QGuiApplication>(argc, argv);
    }
    void TearDown() override { m_app.reset(); }

private:
    std::unique_ptr<QGuiApplication> m_app;
};

const auto* const s_env = ::testing::AddGlobalTestEnvironment(new GuiAppEnvironment);

}  // namespace
