#include <gtest/gtest.h>

#include <QFile>
#include <QRegularExpression>
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

// An exported picture says what it shows: the timeline (whose draw() has no title line) gets "GPU timeline" and
// the run names at the top, at exactly the size asked for; plots with their own title get only the runs.
TEST(Render, ExportCaptionNamesThePlotAndTheRuns) {
    const Plot* timeline = PlotRegistry::instance().find("gpu-timeline");
    ASSERT_NE(timeline, nullptr);
    EXPECT_FALSE(timeline->drawsTitle());
    RunSet runs{RunEntry{"small", testdata::smallRun(), {}}};
    auto values = *resolveValues(timeline->parameters(runs), {});
    auto prepared = *prepareNow(*timeline, runs);
    const Caption caption = exportCaption(*timeline, {"resnet50-nw0", "resnet50-nw8"});
    EXPECT_EQ(caption.title, "GPU timeline");
    EXPECT_EQ(caption.runs, "runs: resnet50-nw0 vs resnet50-nw8");
    const QString svg = QString::fromUtf8(renderToSvg(*timeline, *prepared, values, QSize(1600, 900), false, caption));
    // A text item (the SVG's <title> element holds the plot title in every export).
    const QRegularExpression titleText(QStringLiteral("<text[^>]*>GPU timeline</text>"));
    EXPECT_TRUE(svg.contains(titleText)) << svg.left(3000).toStdString();
    EXPECT_TRUE(svg.contains(QStringLiteral("resnet50-nw0 vs resnet50-nw8")));
    // Without a caption (the window's picture) neither is drawn: the timeline has no title of its own.
    const QString plain = QString::fromUtf8(renderToSvg(*timeline, *prepared, values, QSize(1600, 900)));
    EXPECT_FALSE(plain.contains(titleText));

    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const std::string png = dir.filePath(QStringLiteral("t.png")).toStdString();
    ASSERT_TRUE(renderToFile(*timeline, *prepared, values, QSize(1600, 900), png, std::nullopt, false, caption).ok());
    QImage img(QString::fromStdString(png));
    ASSERT_EQ(img.size(), QSize(1600, 900));
    // The caption's text is in the top rows: dark pixels in the first 24 rows over the left 300 px (the plain
    // picture has only its background and the axis gutter's muted text there, further down).
    auto darkPixels = [](const QImage& image) {
        int n = 0;
        for (int y = 0; y < 24; ++y)
            for (int x = 0; x < 300; ++x) n += qGray(image.pixel(x, y)) < 100;
        return n;
    };
    EXPECT_GT(darkPixels(img), 30);
    EXPECT_EQ(darkPixels(renderToImage(*timeline, *prepared, values, QSize(1600, 900))), 0);

    const Plot* breakdown = PlotRegistry::instance().find("kernel-breakdown");
    ASSERT_NE(breakdown, nullptr);
    EXPECT_TRUE(breakdown->drawsTitle());
    const Caption own = exportCaption(*breakdown, {"sample"});
    EXPECT_TRUE(own.title.empty());
    EXPECT_EQ(own.runs, "run: sample");
}
