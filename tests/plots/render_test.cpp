#include <gtest/gtest.h>

#include <QFile>
#include <QTemporaryDir>

#include "plots/plot_registry.h"
#include "plots/render.h"
#include "tests/plots/plot_test_data.h"

using namespace strobe;
using namespace strobe::plots;

TEST(Render, WritesPngSvgPdf) {
    const Plot* plot = PlotRegistry::instance().find("kernel-breakdown");
    ASSERT_NE(plot, nullptr);
    RunSet runs{RunEntry{"small", testdata::smallRun(), {}}};
    auto values = *resolveValues(plot->parameters(runs), {});
    auto prepared = *prepareNow(*plot, runs);
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    auto path = [&](const char* name) { return dir.filePath(name).toStdString(); };
    struct Case {
        const char* file;
        QByteArray magic;
    } cases[] = {{"a.png", QByteArray("\x89PNG", 4)}, {"a.svg", "<?xml"}, {"a.pdf", "%PDF"}};
    for (const auto& c : cases) {
        auto st = renderToFile(*plot, *prepared, values, QSize(800, 500), path(c.file));
        ASSERT_TRUE(st.ok()) << st.error().toString();
        QFile f(QString::fromStdString(path(c.file)));
        ASSERT_TRUE(f.open(QIODevice::ReadOnly));
        QByteArray bytes = f.readAll();
        EXPECT_TRUE(bytes.startsWith(c.magic)) << c.file;
        EXPECT_GT(bytes.size(), 1000) << c.file;
    }
    QImage png(QString::fromStdString(path("a.png")));
    EXPECT_EQ(png.size(), QSize(800, 500));
    EXPECT_GT(countNonBackgroundPixels(png), 2000);
    // The SVG holds drawing, not just a header.
    QFile svg(QString::fromStdString(path("a.svg")));
    ASSERT_TRUE(svg.open(QIODevice::ReadOnly));
    QByteArray text = svg.readAll();
    EXPECT_TRUE(text.contains("<rect") || text.contains("<path")) << text.left(400).toStdString();
    EXPECT_TRUE(text.contains("<text") || text.contains("<path"));
}

TEST(Render, ErrorsNameTheFile) {
    const Plot* plot = PlotRegistry::instance().find("kernel-breakdown");
    RunSet runs{RunEntry{"small", testdata::smallRun(), {}}};
    auto values = *resolveValues(plot->parameters(runs), {});
    auto prepared = *prepareNow(*plot, runs);
    auto bad = renderToFile(*plot, *prepared, values, QSize(800, 500), "/nonexistent-dir/x.png");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().toString().find("/nonexistent-dir/x.png"), std::string::npos);
    auto fmt = renderToFile(*plot, *prepared, values, QSize(800, 500), "/tmp/x.bmp");
    ASSERT_FALSE(fmt.ok());
    EXPECT_NE(fmt.error().message.find(".png"), std::string::npos);
    EXPECT_EQ(imageFormatFromPath("A.PDF"), ImageFormat::Pdf);
    EXPECT_FALSE(imageFormatFromPath("noext").has_value());
}

TEST(Render, DarkThemeChangesBackground) {
    const Plot* plot = PlotRegistry::instance().find("kernel-durations");
    RunSet runs{RunEntry{"small", testdata::smallRun(), {}}};
    auto values = *resolveValues(plot->parameters(runs), {});
    auto prepared = *prepareNow(*plot, runs);
    QImage light = renderToImage(*plot, *prepared, values, QSize(400, 300), false);
    QImage dark = renderToImage(*plot, *prepared, values, QSize(400, 300), true);
    EXPECT_GT(qGray(light.pixel(0, 0)), 200);
    EXPECT_LT(qGray(dark.pixel(0, 0)), 60);
}
