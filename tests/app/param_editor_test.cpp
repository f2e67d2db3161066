// Every ParamSpec type produces the right widget and round-trips its value; user edits emit edited();
// the regex field validates as you type.
#include "app/gui/param_editor.h"
#include "app/gui/param_panel.h"
#include "app/gui/param_values.h"

#include <gtest/gtest.h>

#include <QAbstractSpinBox>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>

#include "test_support.h"

using strobe::app::ParamEditor;
using strobe::app::ParamPanel;
using namespace strobe::core;

namespace {

ParamSpec spec(const std::string& key, ParamType type, ParamValue def) {
    ParamSpec s;
    s.key = key;
    s.label = key;
    s.type = type;
    s.defaultValue = std::move(def);
    return s;
}

std::unique_ptr<ParamEditor> make(const ParamSpec& s, std::vector<int> ranks = {}) {
    strobe::test::app();
    return std::unique_ptr<ParamEditor>(ParamEditor::create(s, ranks, nullptr));
}

}  // namespace

TEST(ParamEditor, BoolIsACheckBoxAndRoundTrips) {
    auto e = make(spec("b", ParamType::Bool, false));
    auto* box = e->findChild<QCheckBox*>();
    ASSERT_NE(box, nullptr);
    EXPECT_FALSE(std::get<bool>(e->value()));
    e->setValue(true);
    EXPECT_TRUE(box->isChecked());
    EXPECT_EQ(e->value(), ParamValue(true));
    QSignalSpy edited(e.get(), &ParamEditor::edited);
    box->click();  // a user edit
    EXPECT_EQ(edited.count(), 1);
    EXPECT_EQ(e->value(), ParamValue(false));
}

TEST(ParamEditor, IntIsASpinBoxWithBoundsAndStep) {
    auto s = spec("n", ParamType::Int, 10LL);
    s.min = 1;
    s.max = 50;
    s.step = 5;
    auto e = make(s);
    auto* box = e->findChild<QSpinBox*>();
    ASSERT_NE(box, nullptr);
    EXPECT_EQ(box->minimum(), 1);
    EXPECT_EQ(box->maximum(), 50);
    EXPECT_EQ(box->singleStep(), 5);
    EXPECT_EQ(e->value(), ParamValue(10LL));
    e->setValue(37LL);
    EXPECT_EQ(e->value(), ParamValue(37LL));
    e->setValue(500LL);  // clamped to the bound
    EXPECT_EQ(e->value(), ParamValue(50LL));
    QSignalSpy edited(e.get(), &ParamEditor::edited);
    box->stepDown();
    EXPECT_EQ(edited.count(), 1);
    EXPECT_EQ(e->value(), ParamValue(45LL));
}

TEST(ParamEditor, WideIntKeepsNanosecondValues) {
    auto e = make(spec("t", ParamType::Int, 0LL));  // unbounded: nanoseconds exceed an int
    ASSERT_NE(e->findChild<QAbstractSpinBox*>(), nullptr);
    e->setValue(12'345'678'901LL);
    EXPECT_EQ(e->value(), ParamValue(12'345'678'901LL));
}

TEST(ParamEditor, DoubleIsADoubleSpinBox) {
    auto s = spec("x", ParamType::Double, 0.5);
    s.min = 0;
    s.max = 1;
    s.step = 0.05;
    auto e = make(s);
    auto* box = e->findChild<QDoubleSpinBox*>();
    ASSERT_NE(box, nullptr);
    EXPECT_DOUBLE_EQ(box->maximum(), 1.0);
    EXPECT_DOUBLE_EQ(box->singleStep(), 0.05);
    e->setValue(0.25);
    EXPECT_EQ(e->value(), ParamValue(0.25));
    e->setValue(1LL);  // an integer for a Double spec is accepted
    EXPECT_EQ(e->value(), ParamValue(1.0));
}

TEST(ParamEditor, EnumIsAComboBox) {
    auto s = spec("mode", ParamType::Enum, std::string("category"));
    s.choices = {"category", "top-n", "stream"};
    auto e = make(s);
    auto* combo = e->findChild<QComboBox*>();
    ASSERT_NE(combo, nullptr);
    EXPECT_EQ(combo->count(), 3);
    EXPECT_EQ(e->value(), ParamValue(std::string("category")));
    e->setValue(std::string("stream"));
    EXPECT_EQ(combo->currentText(), QStringLiteral("stream"));
    EXPECT_EQ(e->value(), ParamValue(std::string("stream")));
    QSignalSpy edited(e.get(), &ParamEditor::edited);
    combo->setCurrentIndex(1);
    EXPECT_EQ(edited.count(), 1);
    EXPECT_EQ(e->value(), ParamValue(std::string("top-n")));
}

TEST(ParamEditor, StringIsALineEdit) {
    auto e = make(spec("label", ParamType::String, std::string("x")));
    auto* edit = e->findChild<QLineEdit*>();
    ASSERT_NE(edit, nullptr);
    e->setValue(std::string("hello, world"));
    EXPECT_EQ(e->value(), ParamValue(std::string("hello, world")));
    QSignalSpy edited(e.get(), &ParamEditor::edited);
    edit->clear();
    QTest::keyClicks(edit, "abc");
    EXPECT_EQ(edited.count(), 3);
    EXPECT_EQ(e->value(), ParamValue(std::string("abc")));
}

TEST(ParamEditor, StringListIsASearchableMultiSelect) {
    auto s = spec("kernels", ParamType::StringList, std::vector<std::string>{});
    s.choices = {"ncclAllReduce", "sgemm_128", "elementwise_add", "ncclAllGather"};
    auto e = make(s);
    auto* list = e->findChild<QListWidget*>();
    auto* search = e->findChild<QLineEdit*>();
    ASSERT_NE(list, nullptr);
    ASSERT_NE(search, nullptr);
    EXPECT_EQ(list->count(), 4);
    const std::vector<std::string> pick{"ncclAllReduce", "elementwise_add"};
    e->setValue(pick);
    EXPECT_EQ(e->value(), ParamValue(pick));
    // Searching hides what does not match.
    QTest::keyClicks(search, "nccl");
    int visible = 0;
    for (int i = 0; i < list->count(); ++i) visible += !list->item(i)->isHidden();
    EXPECT_EQ(visible, 2);
    // Checking an item is a user edit.
    QSignalSpy edited(e.get(), &ParamEditor::edited);
    list->item(1)->setCheckState(Qt::Checked);
    EXPECT_EQ(edited.count(), 1);
    EXPECT_EQ(e->value(), ParamValue(std::vector<std::string>{"ncclAllReduce", "sgemm_128", "elementwise_add"}));
    // A value the data no longer offers stays (and round-trips).
    e->setValue(std::vector<std::string>{"gone_kernel"});
    EXPECT_EQ(e->value(), ParamValue(std::vector<std::string>{"gone_kernel"}));
}

// A value left at its default follows the default the data gives once loaded (the timeline's telemetry metrics,
// computed without data when a plot opens before its run has loaded); a value the user chose stays.
TEST(ParamEditor, ValuesAtTheirDefaultFollowTheDatasDefault) {
    ParamSpec before = spec("telemetry", ParamType::StringList, std::vector<std::string>{});
    ParamSpec after = spec("telemetry", ParamType::StringList, std::vector<std::string>{"cpu.util_pct", "mem_used_mib"});
    ParamSpec other = spec("height", ParamType::Int, 20LL);
    ParamValues values{{"telemetry", std::vector<std::string>{}}, {"height", 30LL}};
    auto next = strobe::app::followDataDefaults({before, other}, {after, other}, values);
    EXPECT_EQ(std::get<std::vector<std::string>>(next["telemetry"]),
              (std::vector<std::string>{"cpu.util_pct", "mem_used_mib"}));
    EXPECT_EQ(std::get<long long>(next["height"]), 30LL);
    values["telemetry"] = std::vector<std::string>{"mem_used_mib"};  // chosen: kept
    next = strobe::app::followDataDefaults({before, other}, {after, other}, values);
    EXPECT_EQ(std::get<std::vector<std::string>>(next["telemetry"]), std::vector<std::string>{"mem_used_mib"});
}

TEST(ParamEditor, RankSetIsARankPicker) {
    auto e = make(spec("ranks", ParamType::RankSet, std::vector<std::string>{}), {0, 1, 2, 3, 4, 5, 6, 7});
    auto* list = e->findChild<QListWidget*>();
    auto* all = e->findChild<QCheckBox*>();
    ASSERT_NE(list, nullptr);
    ASSERT_NE(all, nullptr);
    EXPECT_EQ(list->count(), 8);
    EXPECT_TRUE(all->isChecked());  // empty = all ranks
    EXPECT_EQ(e->value(), ParamValue(std::vector<std::string>{}));
    const std::vector<std::string> some{"1", "3", "6"};
    e->setValue(some);
    EXPECT_FALSE(all->isChecked());
    EXPECT_EQ(e->value(), ParamValue(some));
    QSignalSpy edited(e.get(), &ParamEditor::edited);
    all->click();
    EXPECT_EQ(edited.count(), 1);
    EXPECT_EQ(e->value(), ParamValue(std::vector<std::string>{}));
}

TEST(ParamEditor, RegexValidatesAsYouType) {
    auto e = make(spec("filter", ParamType::Regex, std::string("^nccl")));
    auto* edit = e->findChild<QLineEdit*>();
    auto* message = e->findChild<QLabel*>(QStringLiteral("regexMessage"));
    ASSERT_NE(edit, nullptr);
    ASSERT_NE(message, nullptr);
    e->show();
    EXPECT_TRUE(e->isInputValid());
    EXPECT_FALSE(message->isVisible());
    QSignalSpy edited(e.get(), &ParamEditor::edited);
    edit->clear();
    QTest::keyClicks(edit, "gemm(");  // the last character makes it invalid
    EXPECT_FALSE(e->isInputValid());
    EXPECT_TRUE(message->isVisible());
    EXPECT_FALSE(message->text().isEmpty());
    EXPECT_TRUE(edit->styleSheet().contains(QStringLiteral("#d03030")));  // red
    EXPECT_EQ(e->value(), ParamValue(std::string("gemm")));  // the last valid text stays in force
    const int editsBefore = static_cast<int>(edited.count());
    QTest::keyClicks(edit, ")");
    EXPECT_TRUE(e->isInputValid());
    EXPECT_FALSE(message->isVisible());
    EXPECT_EQ(edited.count(), editsBefore + 1);
    EXPECT_EQ(e->value(), ParamValue(std::string("gemm()")));
    e->setValue(std::string("a|b"));
    EXPECT_EQ(e->value(), ParamValue(std::string("a|b")));
}

// Duration, KeyValueList and Path are typed as text and read with core::coerceValue, the rule of the command
// line, sessions and tool specs; what it refuses is shown and not applied.
TEST(ParamEditor, TextFormTypesUseTheOneCoercionRule) {
    auto e = make(spec("interval", ParamType::Duration, 30000LL));
    auto* edit = e->findChild<QLineEdit*>();
    auto* message = e->findChild<QLabel*>(QStringLiteral("valueMessage"));
    ASSERT_NE(edit, nullptr);
    ASSERT_NE(message, nullptr);
    e->show();
    EXPECT_EQ(edit->text(), QStringLiteral("30us"));  // 30 000 ns in its string form
    edit->clear();
    QTest::keyClicks(edit, "2.5");  // 2.5 ns is not a whole number of nanoseconds
    EXPECT_FALSE(e->isInputValid());
    EXPECT_TRUE(message->text().contains(QStringLiteral("'interval'")));
    EXPECT_TRUE(message->text().contains(QStringLiteral("'2.5'")));
    EXPECT_EQ(e->value(), ParamValue(2LL));  // "2" was the last valid text
    QTest::keyClicks(edit, "us");
    EXPECT_TRUE(e->isInputValid());
    EXPECT_EQ(e->value(), ParamValue(2500LL));
    auto kv = make(spec("env", ParamType::KeyValueList, std::vector<std::string>{}));
    auto* kvEdit = kv->findChild<QLineEdit*>();
    ASSERT_NE(kvEdit, nullptr);
    QTest::keyClicks(kvEdit, "A=1,B");
    EXPECT_FALSE(kv->isInputValid());
    QTest::keyClicks(kvEdit, "=2");
    EXPECT_EQ(kv->value(), ParamValue(std::vector<std::string>{"A=1", "B=2"}));
}

// Values from a session or the settings: an int given 2.5 or "abc" keeps the default, and the error names the key
// and the value.
TEST(ParamValues, SanitizeReportsWhatTheSpecsRefuse) {
    auto top = spec("top_n", ParamType::Int, 10LL);
    std::vector<std::string> problems;
    auto v = strobe::app::sanitizeValues({top}, {{"top_n", 2.5}}, &problems);
    EXPECT_EQ(v.at("top_n"), ParamValue(10LL));
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("'top_n'"), std::string::npos) << problems[0];
    EXPECT_NE(problems[0].find("'2.5'"), std::string::npos) << problems[0];
    problems.clear();
    v = strobe::app::sanitizeValues({top}, {{"top_n", std::string("abc")}}, &problems);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("'abc'"), std::string::npos) << problems[0];
    v = strobe::app::sanitizeValues({top}, {{"top_n", std::string("12")}}, &problems);
    EXPECT_EQ(v.at("top_n"), ParamValue(12LL));  // text in the string form is read
}

TEST(ParamEditor, ColorIsAColorButton) {
    auto e = make(spec("color", ParamType::Color, std::string("#1f77b4")));
    auto* button = e->findChild<QPushButton*>();
    ASSERT_NE(button, nullptr);
    EXPECT_EQ(e->value(), ParamValue(std::string("#1f77b4")));
    e->setValue(std::string("#ff0000"));
    EXPECT_EQ(e->value(), ParamValue(std::string("#ff0000")));
    EXPECT_TRUE(button->text().contains(QStringLiteral("#ff0000")));
}

TEST(ParamEditor, ResetToDefault) {
    auto s = spec("n", ParamType::Int, 7LL);
    s.min = 0;
    s.max = 100;
    auto e = make(s);
    e->setValue(42LL);
    QSignalSpy edited(e.get(), &ParamEditor::edited);
    e->resetToDefault();
    EXPECT_EQ(e->value(), ParamValue(7LL));
    EXPECT_EQ(edited.count(), 1);
    e->resetToDefault();  // already the default: no edit
    EXPECT_EQ(edited.count(), 1);
}

TEST(ParamPanel, BuildsOneEditorPerSpecAndResets) {
    strobe::test::app();
    ParamPanel panel;
    auto a = spec("bins", ParamType::Int, 20LL);
    a.min = 1;
    a.max = 1000;
    auto b = spec("log", ParamType::Bool, false);
    b.affectsPrepare = false;
    auto hidden = spec("view_start_ns", ParamType::Int, 0LL);
    hidden.affectsPrepare = false;
    panel.setSpecs(QStringLiteral("Test"), {a, b, hidden}, {{"bins", 50LL}}, {}, {"view_start_ns"});
    ASSERT_NE(panel.editor("bins"), nullptr);
    ASSERT_NE(panel.editor("log"), nullptr);
    EXPECT_EQ(panel.editor("view_start_ns"), nullptr);
    EXPECT_EQ(panel.editor("bins")->value(), ParamValue(50LL));
    std::vector<std::pair<std::string, ParamValue>> edits;
    QObject::connect(&panel, &ParamPanel::valueEdited, &panel,
                     [&](const std::string& k, const ParamValue& v) { edits.emplace_back(k, v); });
    auto* reset = panel.findChild<QToolButton*>(QStringLiteral("reset_bins"));
    ASSERT_NE(reset, nullptr);
    reset->click();
    ASSERT_EQ(edits.size(), 1u);
    EXPECT_EQ(edits[0].first, "bins");
    EXPECT_EQ(edits[0].second, ParamValue(20LL));
    EXPECT_EQ(panel.editor("bins")->value(), ParamValue(20LL));
}

// The mouse wheel over the Parameters dock scrolls the dock: a combo box or spin box under the pointer keeps its
// value unless it has the keyboard focus (the user clicked or tabbed into it). Before, scrolling the dock changed
// Top kernels' "Sort by".
TEST(ParamEditor, WheelChangesAValueOnlyWhenItsWidgetHasFocus) {
    strobe::test::app();
    QScrollArea area;
    auto* content = new QWidget;
    auto* layout = new QVBoxLayout(content);
    ParamSpec e = spec("sort_by", ParamType::Enum, std::string("total_ns"));
    e.choices = {"total_ns", "count", "mean_ns"};
    ParamSpec i = spec("top_n", ParamType::Int, 10LL);
    i.min = 1;
    i.max = 100;
    i.step = 1;
    ParamEditor* combo = ParamEditor::create(e, {}, content);
    ParamEditor* spin = ParamEditor::create(i, {}, content);
    layout->addWidget(combo);
    layout->addWidget(spin);
    layout->addSpacing(3000);  // taller than the area: it can scroll
    area.setWidget(content);
    area.resize(300, 200);
    area.show();
    auto* box = combo->findChild<QComboBox*>();
    auto* sb = spin->findChild<QAbstractSpinBox*>();
    ASSERT_NE(box, nullptr);
    ASSERT_NE(sb, nullptr);
    EXPECT_EQ(box->focusPolicy(), Qt::StrongFocus);
    auto wheel = [](QWidget* w) {
        QPointF at(w->width() / 2.0, w->height() / 2.0);
        QWheelEvent ev(at, w->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                       Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(w, &ev);
    };
    QSignalSpy edits(combo, &ParamEditor::edited);
    const int scrollBefore = area.verticalScrollBar()->value();
    wheel(box);
    wheel(sb);
    EXPECT_EQ(combo->value(), ParamValue(std::string("total_ns")));
    EXPECT_EQ(spin->value(), ParamValue(10LL));
    EXPECT_EQ(edits.count(), 0);
    EXPECT_GT(area.verticalScrollBar()->value(), scrollBefore) << "the wheel scrolls the dock instead";

    // Focused (clicked or tabbed into), the widget takes the wheel as Qt's widgets do.
    area.activateWindow();
    box->setFocus(Qt::OtherFocusReason);
    ASSERT_TRUE(strobe::test::waitFor([&] { return box->hasFocus(); }, 2000));
    wheel(box);
    EXPECT_EQ(combo->value(), ParamValue(std::string("count")));
    EXPECT_EQ(edits.count(), 1);
}
