#include "app/gui/param_editor.h"

#include <algorithm>
#include <climits>
#include <cmath>

#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QCheckBox>
#include <QColorDialog>
#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPainter>
#include <QPixmap>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

namespace strobe::app {

using core::ParamSpec;
using core::ParamType;
using core::ParamValue;

namespace {

QString qsParamEditor(const std::string& s) { return QString::fromStdString(s); }

bool asBool(const ParamValue& v, bool fallback) {
    if (auto b = std::get_if<bool>(&v)) return *b;
    if (auto i = std::get_if<long long>(&v)) return *i != 0;
    return fallback;
}
double asDouble(const ParamValue& v, double fallback) {
    if (auto d = std::get_if<double>(&v)) return *d;
    if (auto i = std::get_if<long long>(&v)) return static_cast<double>(*i);
    return fallback;
}
long long asInt(const ParamValue& v, long long fallback) {
    if (auto i = std::get_if<long long>(&v)) return *i;
    if (auto d = std::get_if<double>(&v)) return std::llround(*d);
    return fallback;
}
std::string asString(const ParamValue& v, const std::string& fallback) {
    if (auto s = std::get_if<std::string>(&v)) return *s;
    return fallback;
}
std::vector<std::string> asList(const ParamValue& v) {
    if (auto l = std::get_if<std::vector<std::string>>(&v)) return *l;
    if (auto s = std::get_if<std::string>(&v)) return s->empty() ? std::vector<std::string>{} : std::vector{*s};
    return {};
}

// Wheel events over a value widget (combo box, spin box) change its value only when it has the keyboard focus;
// otherwise they scroll what holds it, the Parameters dock: scrolling the dock must never change "Sort by" or a
// bound under the pointer. The widgets take focus by click or Tab (Qt::StrongFocus), not by the wheel.
class WheelOnlyWhenFocused final : public QObject {
public:
    using QObject::QObject;
    bool eventFilter(QObject* o, QEvent* e) override {
        if (e->type() != QEvent::Wheel) return false;
        auto* w = qobject_cast<QWidget*>(o);
        if (!w || w->hasFocus()) return false;
        for (QWidget* p = w->parentWidget(); p; p = p->parentWidget())
            if (auto* area = qobject_cast<QAbstractScrollArea*>(p)) {
                QCoreApplication::sendEvent(area->verticalScrollBar(), e);
                break;
            }
        return true;
    }
};

void guardWheel(QWidget* editor) {
    static auto* filter = new WheelOnlyWhenFocused(QCoreApplication::instance());
    for (QWidget* c : editor->findChildren<QWidget*>())
        if (qobject_cast<QComboBox*>(c) || qobject_cast<QAbstractSpinBox*>(c)) {
            c->setFocusPolicy(Qt::StrongFocus);
            c->installEventFilter(filter);
        }
}

QHBoxLayout* rowLayout(QWidget* w) {
    auto* l = new QHBoxLayout(w);
    l->setContentsMargins(0, 0, 0, 0);
    l->setSpacing(4);
    return l;
}

// ---------------------------------------------------------------- Bool

class BoolEditor final : public ParamEditor {
public:
    BoolEditor(const ParamSpec& spec, QWidget* parent) : ParamEditor(spec, parent) {
        m_box = new QCheckBox(this);
        rowLayout(this)->addWidget(m_box);
        connect(m_box, &QCheckBox::toggled, this, [this] { notifyEdited(); });
    }
    ParamValue value() const override { return m_box->isChecked(); }
    void setValue(const ParamValue& v) override {
        QSignalBlocker b(m_box);
        m_box->setChecked(asBool(v, asBool(spec().defaultValue, false)));
    }

private:
    QCheckBox* m_box = nullptr;
};

// ---------------------------------------------------------------- Int

// A QSpinBox when the bounds fit an int; else a QDoubleSpinBox with no decimals (nanosecond values exceed int).
class IntEditor final : public ParamEditor {
public:
    IntEditor(const ParamSpec& spec, QWidget* parent) : ParamEditor(spec, parent) {
        const double lo = spec.hasBounds() ? spec.min : -9.0e15;
        const double hi = spec.hasBounds() ? spec.max : 9.0e15;
        const double step = spec.step > 0 ? spec.step : 1.0;
        if (lo >= INT_MIN && hi <= INT_MAX) {
            m_int = new QSpinBox(this);
            m_int->setRange(static_cast<int>(lo), static_cast<int>(hi));
            m_int->setSingleStep(std::max(1, static_cast<int>(step)));
            m_int->setKeyboardTracking(false);
            m_int->setSuffix(spec.unit.empty() ? QString() : QStringLiteral(" ") + qsParamEditor(spec.unit));
            rowLayout(this)->addWidget(m_int);
            connect(m_int, &QSpinBox::valueChanged, this, [this] { notifyEdited(); });
        } else {
            m_wide = new QDoubleSpinBox(this);
            m_wide->setDecimals(0);
            m_wide->setRange(lo, hi);
            m_wide->setSingleStep(std::max(1.0, std::round(step)));
            m_wide->setKeyboardTracking(false);
            m_wide->setSuffix(spec.unit.empty() ? QString() : QStringLiteral(" ") + qsParamEditor(spec.unit));
            rowLayout(this)->addWidget(m_wide);
            connect(m_wide, &QDoubleSpinBox::valueChanged, this, [this] { notifyEdited(); });
        }
    }
    ParamValue value() const override {
        if (m_int) return static_cast<long long>(m_int->value());
        return static_cast<long long>(std::llround(m_wide->value()));
    }
    void setValue(const ParamValue& v) override {
        const long long x = asInt(v, asInt(spec().defaultValue, 0));
        if (m_int) {
            QSignalBlocker b(m_int);
            m_int->setValue(static_cast<int>(std::clamp<long long>(x, m_int->minimum(), m_int->maximum())));
        } else {
            QSignalBlocker b(m_wide);
            m_wide->setValue(static_cast<double>(x));
        }
    }

private:
    QSpinBox* m_int = nullptr;
    QDoubleSpinBox* m_wide = nullptr;
};

// ---------------------------------------------------------------- Double

class DoubleEditor final : public ParamEditor {
public:
    DoubleEditor(const ParamSpec& spec, QWidget* parent) : ParamEditor(spec, parent) {
        m_box = new QDoubleSpinBox(this);
        const double step = spec.step > 0 ? spec.step : 0.1;
        // Enough decimals to show the step, and at least the default's own precision.
        int decimals = std::clamp(static_cast<int>(std::ceil(-std::log10(step))) + 1, 1, 9);
        m_box->setDecimals(decimals);
        m_box->setRange(spec.hasBounds() ? spec.min : -1.0e15, spec.hasBounds() ? spec.max : 1.0e15);
        m_box->setSingleStep(step);
        m_box->setKeyboardTracking(false);
        m_box->setSuffix(spec.unit.empty() ? QString() : QStringLiteral(" ") + qsParamEditor(spec.unit));
        rowLayout(this)->addWidget(m_box);
        connect(m_box, &QDoubleSpinBox::valueChanged, this, [this] { notifyEdited(); });
    }
    ParamValue value() const override { return m_box->value(); }
    void setValue(const ParamValue& v) override {
        QSignalBlocker b(m_box);
        m_box->setValue(asDouble(v, asDouble(spec().defaultValue, 0.0)));
    }

private:
    QDoubleSpinBox* m_box = nullptr;
};

// ---------------------------------------------------------------- Enum

class EnumEditor final : public ParamEditor {
public:
    EnumEditor(const ParamSpec& spec, QWidget* parent) : ParamEditor(spec, parent) {
        m_box = new QComboBox(this);
        for (const auto& c : spec.choices) m_box->addItem(qsParamEditor(c), qsParamEditor(c));
        rowLayout(this)->addWidget(m_box);
        connect(m_box, &QComboBox::currentIndexChanged, this, [this] { notifyEdited(); });
    }
    ParamValue value() const override { return m_box->currentData().toString().toStdString(); }
    void setValue(const ParamValue& v) override {
        QSignalBlocker b(m_box);
        int i = m_box->findData(qsParamEditor(asString(v, {})));
        if (i < 0) i = m_box->findData(qsParamEditor(asString(spec().defaultValue, {})));
        m_box->setCurrentIndex(std::max(i, 0));
    }

private:
    QComboBox* m_box = nullptr;
};

// ---------------------------------------------------------------- String

class StringEditor final : public ParamEditor {
public:
    StringEditor(const ParamSpec& spec, QWidget* parent) : ParamEditor(spec, parent) {
        m_edit = new QLineEdit(this);
        m_edit->setClearButtonEnabled(true);
        rowLayout(this)->addWidget(m_edit);
        connect(m_edit, &QLineEdit::textEdited, this, [this] { notifyEdited(); });
    }
    ParamValue value() const override { return m_edit->text().toStdString(); }
    void setValue(const ParamValue& v) override {
        QSignalBlocker b(m_edit);
        m_edit->setText(qsParamEditor(asString(v, asString(spec().defaultValue, {}))));
    }

private:
    QLineEdit* m_edit = nullptr;
};

// ---------------------------------------------------------------- Regex

// Validates with the same rules as the plots (core::validate), so that what is accepted here is what a plot
// accepts. Invalid text turns red with the reason below and is not applied.
class RegexEditor final : public ParamEditor {
public:
    RegexEditor(const ParamSpec& spec, QWidget* parent) : ParamEditor(spec, parent) {
        auto* col = new QVBoxLayout(this);
        col->setContentsMargins(0, 0, 0, 0);
        col->setSpacing(2);
        m_edit = new QLineEdit(this);
        m_edit->setClearButtonEnabled(true);
        m_edit->setPlaceholderText(tr("regular expression"));
        m_message = new QLabel(this);
        m_message->setWordWrap(true);
        m_message->setObjectName(QStringLiteral("regexMessage"));
        m_message->setStyleSheet(QStringLiteral("color: #d03030;"));
        m_message->hide();
        col->addWidget(m_edit);
        col->addWidget(m_message);
        connect(m_edit, &QLineEdit::textEdited, this, [this] {
            validateText();
            if (m_valid) {
                m_lastValid = m_edit->text().toStdString();
                notifyEdited();
            }
        });
    }
    ParamValue value() const override { return m_lastValid; }
    void setValue(const ParamValue& v) override {
        QSignalBlocker b(m_edit);
        m_lastValid = asString(v, asString(spec().defaultValue, {}));
        m_edit->setText(qsParamEditor(m_lastValid));
        validateText();
    }
    bool isInputValid() const override { return m_valid; }

private:
    void validateText() {
        auto st = core::validate(spec(), ParamValue(m_edit->text().toStdString()));
        m_valid = st.ok();
        if (m_valid) {
            m_edit->setStyleSheet(QString());
            m_message->hide();
            m_edit->setToolTip(QString());
        } else {
            m_edit->setStyleSheet(QStringLiteral("QLineEdit { border: 1px solid #d03030; color: #d03030; }"));
            m_message->setText(tr("Invalid regular expression: %1").arg(qsParamEditor(st.error().message)));
            m_message->show();
            m_edit->setToolTip(m_message->text());
        }
    }

    QLineEdit* m_edit = nullptr;
    QLabel* m_message = nullptr;
    std::string m_lastValid;
    bool m_valid = true;
};

// ---------------------------------------------------------------- Path, Duration, KeyValueList

// A line edit over the value's string form ("30us", "A=1,B=2", a path), read back with core::coerceValue — the
// rule the command line, sessions and tool specs use. Invalid text turns red with the reason and is not applied.
class TextFormEditor final : public ParamEditor {
public:
    TextFormEditor(const ParamSpec& spec, QWidget* parent) : ParamEditor(spec, parent) {
        auto* col = new QVBoxLayout(this);
        col->setContentsMargins(0, 0, 0, 0);
        col->setSpacing(2);
        m_edit = new QLineEdit(this);
        m_edit->setClearButtonEnabled(true);
        m_message = new QLabel(this);
        m_message->setWordWrap(true);
        m_message->setObjectName(QStringLiteral("valueMessage"));
        m_message->setStyleSheet(QStringLiteral("color: #d03030;"));
        m_message->hide();
        col->addWidget(m_edit);
        col->addWidget(m_message);
        connect(m_edit, &QLineEdit::textEdited, this, [this] {
            if (check()) notifyEdited();
        });
    }
    ParamValue value() const override { return m_last; }
    void setValue(const ParamValue& v) override {
        QSignalBlocker b(m_edit);
        auto coerced = core::coerceValue(spec(), v);
        m_last = coerced ? coerced.value() : spec().defaultValue;
        m_edit->setText(qsParamEditor(core::valueToString(spec(), m_last)));
        check();
    }
    bool isInputValid() const override { return m_valid; }

private:
    bool check() {
        auto v = core::coerceValue(spec(), ParamValue(m_edit->text().toStdString()));
        m_valid = v.ok();
        if (m_valid) {
            m_last = v.value();
            m_edit->setStyleSheet(QString());
            m_message->hide();
        } else {
            m_edit->setStyleSheet(QStringLiteral("QLineEdit { border: 1px solid #d03030; color: #d03030; }"));
            m_message->setText(qsParamEditor(v.error().message));
            m_message->show();
        }
        m_edit->setToolTip(m_valid ? QString() : m_message->text());
        return m_valid;
    }

    QLineEdit* m_edit = nullptr;
    QLabel* m_message = nullptr;
    ParamValue m_last;
    bool m_valid = true;
};

// ---------------------------------------------------------------- Color

class ColorEditor final : public ParamEditor {
public:
    ColorEditor(const ParamSpec& spec, QWidget* parent) : ParamEditor(spec, parent) {
        m_button = new QPushButton(this);
        rowLayout(this)->addWidget(m_button);
        connect(m_button, &QPushButton::clicked, this, [this] {
            const QColor c = QColorDialog::getColor(
                m_color, this, tr("Choose a colour for %1").arg(qsParamEditor(this->spec().label)));
            if (c.isValid() && c != m_color) {
                show(c);
                notifyEdited();
            }
        });
    }
    ParamValue value() const override { return m_color.name(QColor::HexRgb).toStdString(); }
    void setValue(const ParamValue& v) override {
        QColor c(qsParamEditor(asString(v, {})));
        if (!c.isValid()) c = QColor(qsParamEditor(asString(spec().defaultValue, "#808080")));
        show(c);
    }

private:
    void show(const QColor& c) {
        m_color = c;
        QPixmap swatch(16, 16);
        swatch.fill(c);
        m_button->setIcon(QIcon(swatch));
        m_button->setText(c.name(QColor::HexRgb));
    }
    QPushButton* m_button = nullptr;
    QColor m_color;
};

// ---------------------------------------------------------------- StringList / RankSet

// A filter field over a checkable list, with All / None. Used for StringList (choices from the data) and,
// with an "All ranks" switch, for RankSet.
class ChecklistEditor : public ParamEditor {
public:
    ChecklistEditor(const ParamSpec& spec, const std::vector<std::string>& choices, bool rankMode, QWidget* parent)
        : ParamEditor(spec, parent), m_rankMode(rankMode) {
        auto* col = new QVBoxLayout(this);
        col->setContentsMargins(0, 0, 0, 0);
        col->setSpacing(2);
        if (rankMode) {
            m_all = new QCheckBox(tr("All ranks"), this);
            col->addWidget(m_all);
            connect(m_all, &QCheckBox::toggled, this, [this](bool on) {
                m_list->setEnabled(!on);
                updateCount();
                notifyEdited();
            });
        } else {
            m_filter = new QLineEdit(this);
            m_filter->setPlaceholderText(tr("Search %1…").arg(choices.size()));
            m_filter->setClearButtonEnabled(true);
            col->addWidget(m_filter);
            connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& t) {
                for (int i = 0; i < m_list->count(); ++i)
                    m_list->item(i)->setHidden(!t.isEmpty() && !m_list->item(i)->text().contains(t, Qt::CaseInsensitive));
            });
        }
        m_list = new QListWidget(this);
        m_list->setUniformItemSizes(true);
        if (rankMode) {
            m_list->setViewMode(QListView::IconMode);
            m_list->setFlow(QListView::LeftToRight);
            m_list->setWrapping(true);
            m_list->setResizeMode(QListView::Adjust);
            m_list->setMovement(QListView::Static);
            m_list->setGridSize(QSize(52, 24));
            m_list->setMaximumHeight(80);
        } else {
            m_list->setMaximumHeight(160);
        }
        for (const auto& c : choices) addItem(qsParamEditor(c), false);
        col->addWidget(m_list);

        auto* buttons = new QWidget(this);
        auto* row = rowLayout(buttons);
        auto* all = new QToolButton(buttons);
        // Short words, the full action in the tooltip: the row fits the Parameters dock's narrowest width.
        all->setText(tr("All"));
        all->setToolTip(tr("Select all"));
        auto* none = new QToolButton(buttons);
        none->setText(tr("None"));
        none->setToolTip(tr("Select none"));
        m_count = new QLabel(buttons);
        row->addWidget(all);
        row->addWidget(none);
        row->addStretch();
        row->addWidget(m_count);
        col->addWidget(buttons);
        connect(all, &QToolButton::clicked, this, [this] { checkAll(Qt::Checked); });
        connect(none, &QToolButton::clicked, this, [this] { checkAll(Qt::Unchecked); });
        connect(m_list, &QListWidget::itemChanged, this, [this] {
            updateCount();
            notifyEdited();
        });
        updateCount();
    }

    ParamValue value() const override {
        if (m_all && m_all->isChecked()) return std::vector<std::string>{};
        std::vector<std::string> out;
        for (int i = 0; i < m_list->count(); ++i)
            if (m_list->item(i)->checkState() == Qt::Checked) out.push_back(m_list->item(i)->text().toStdString());
        return out;
    }
    void setValue(const ParamValue& v) override {
        QSignalBlocker b(m_list);
        auto list = asList(v);
        for (int i = 0; i < m_list->count(); ++i) m_list->item(i)->setCheckState(Qt::Unchecked);
        for (const auto& s : list) {
            auto found = m_list->findItems(qsParamEditor(s), Qt::MatchExactly);
            if (found.isEmpty())
                addItem(qsParamEditor(s), true);  // a value the data no longer offers stays visible
            else found.front()->setCheckState(Qt::Checked);
        }
        if (m_all) {
            QSignalBlocker ba(m_all);
            m_all->setChecked(list.empty());
            m_list->setEnabled(!list.empty());
        }
        updateCount();
    }

private:
    void addItem(const QString& text, bool checked) {
        auto* item = new QListWidgetItem(text, m_list);
        item->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled | Qt::ItemIsSelectable);
        item->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
        if (m_rankMode) item->setToolTip(tr("Rank %1").arg(text));
    }
    void checkAll(Qt::CheckState s) {
        {
            QSignalBlocker b(m_list);
            for (int i = 0; i < m_list->count(); ++i)
                if (!m_list->item(i)->isHidden()) m_list->item(i)->setCheckState(s);
        }
        if (m_all && s == Qt::Checked) {
            QSignalBlocker ba(m_all);
            m_all->setChecked(true);
            m_list->setEnabled(false);
        }
        updateCount();
        notifyEdited();
    }
    void updateCount() {
        int n = 0;
        for (int i = 0; i < m_list->count(); ++i) n += m_list->item(i)->checkState() == Qt::Checked;
        if (m_all && m_all->isChecked()) m_count->setText(tr("all %1").arg(m_list->count()));
        else m_count->setText(tr("%1 of %2").arg(n).arg(m_list->count()));
    }

    bool m_rankMode = false;
    QCheckBox* m_all = nullptr;
    QLineEdit* m_filter = nullptr;
    QListWidget* m_list = nullptr;
    QLabel* m_count = nullptr;
};

}  // namespace

ParamEditor::ParamEditor(core::ParamSpec spec, QWidget* parent) : QWidget(parent), m_spec(std::move(spec)) {
    setObjectName(QStringLiteral("param_") + QString::fromStdString(m_spec.key));
    setToolTip(QString::fromStdString(m_spec.tooltip));
}

void ParamEditor::notifyEdited() { Q_EMIT edited(); }

void ParamEditor::resetToDefault() {
    const ParamValue before = value();
    setValue(m_spec.defaultValue);
    if (!(value() == before)) notifyEdited();
}

ParamEditor* ParamEditor::create(const core::ParamSpec& spec, const std::vector<int>& ranks, QWidget* parent) {
    ParamEditor* e = nullptr;
    switch (spec.type) {
        case ParamType::Bool: e = new BoolEditor(spec, parent); break;
        case ParamType::Int: e = new IntEditor(spec, parent); break;
        case ParamType::Double: e = new DoubleEditor(spec, parent); break;
        case ParamType::Enum: e = new EnumEditor(spec, parent); break;
        case ParamType::String: e = new StringEditor(spec, parent); break;
        case ParamType::Regex: e = new RegexEditor(spec, parent); break;
        case ParamType::Color: e = new ColorEditor(spec, parent); break;
        case ParamType::Path:
        case ParamType::Duration:
        case ParamType::KeyValueList: e = new TextFormEditor(spec, parent); break;
        case ParamType::StringList: e = new ChecklistEditor(spec, spec.choices, false, parent); break;
        case ParamType::RankSet: {
            std::vector<std::string> choices = spec.choices;
            if (choices.empty())
                for (int r : ranks) choices.push_back(std::to_string(r));
            e = new ChecklistEditor(spec, choices, true, parent);
            break;
        }
    }
    e->setValue(spec.defaultValue);
    guardWheel(e);
    return e;
}

}  // namespace strobe::app
