// Tooltips and the Selection dock's details (app/gui/format.h): wrapped at a readable width, key fields first.
#include "app/gui/format.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <QRegularExpression>

#include "test_support.h"

using namespace strobe;

namespace {
const std::string kLongName =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)";

// The longest run of text between two tags or <br>s.
qsizetype longestTextLine(const QString& html) {
    qsizetype longest = 0;
    for (const auto& part : html.split(QRegularExpression(QStringLiteral("<[^>]*>"))))
        longest = std::max(longest, QString(part).replace(QStringLiteral("&lt;"), QStringLiteral("<"))
                                        .replace(QStringLiteral("&gt;"), QStringLiteral(">"))
                                        .replace(QStringLiteral("&amp;"), QStringLiteral("&"))
                                        .size());
    return longest;
}
}  // namespace

TEST(Format, TooltipsWrapAtSixtyCharacters) {
    test::app();
    const QString html = app::tooltipHtml(QString::fromStdString(kLongName + "\nduration: 587 ns\ncategory: elementwise"));
    EXPECT_TRUE(html.startsWith(QStringLiteral("<qt>")));  // rich text: QToolTip lays it out as HTML
    EXPECT_LE(longestTextLine(html), app::kReadableLineChars) << html.toStdString();
    EXPECT_TRUE(html.contains(QStringLiteral("duration: 587 ns")));
    EXPECT_TRUE(html.contains(QStringLiteral("&lt;4,")));  // escaped, not taken for a tag
}

TEST(Format, SelectionShowsKeyFieldsBeforeALongName) {
    test::app();
    plots::HitInfo hit;
    hit.title = kLongName;
    // In the timeline's order: category before rank and stream; extra fields after.
    hit.fields = {{"launched by", "aten::add"}, {"category", "elementwise"}, {"stream", "7"}, {"rank", "0"},
                  {"start", "1234 (+1.2 µs)"}, {"duration", "587 ns"}};
    const QString html = app::selectionHtml(hit);
    const auto at = [&](const char* text) { return html.indexOf(QString::fromUtf8(text)); };
    ASSERT_GE(at("duration"), 0);
    EXPECT_LT(at("duration"), at("start"));
    EXPECT_LT(at("start"), at(">rank<"));
    EXPECT_LT(at(">rank<"), at(">stream<"));
    EXPECT_LT(at(">stream<"), at(">category<"));
    EXPECT_LT(at(">category<"), at("launched by"));
    EXPECT_LT(at("launched by"), at("vectorized_elementwise_kernel"));  // the long name after every field
    EXPECT_LE(longestTextLine(html), app::kReadableLineChars);
    // A short title stays on top.
    hit.title = "ProfilerStep#3";
    const QString shortHtml = app::selectionHtml(hit);
    EXPECT_LT(shortHtml.indexOf(QStringLiteral("ProfilerStep#3")), shortHtml.indexOf(QStringLiteral("duration")));
}
