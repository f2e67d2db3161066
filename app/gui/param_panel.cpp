#include "app/gui/param_panel.h"

#include <algorithm>

#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

#include "app/gui/param_editor.h"

namespace strobe::app {

ParamPanel::ParamPanel(QWidget* parent) : QWidget(parent) {
    // Wide enough for every built-in plot's labels and buttons (ParamPanelFits checks each at 1500 x 920).
    setMinimumWidth(300);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(4, 4, 4, 4);
    m_title = new QLabel(this);
    m_title->setWordWrap(true);
    // A long plot title wraps inside the dock rather than widening it (the right column kept its width per plot).
    m_title->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    QFont f = m_title->font();
    f.setBold(true);
    m_title->setFont(f);
    outer->addWidget(m_title);

    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    m_body = new QWidget(scroll);
    m_bodyLayout = new QVBoxLayout(m_body);
    m_bodyLayout->setContentsMargins(0, 0, 0, 0);
    scroll->setWidget(m_body);
    outer->addWidget(scroll, 1);

    m_resetAll = new QPushButton(tr("Reset all to defaults"), this);
    m_resetAll->setToolTip(tr("Every parameter of this plot back to its default"));
    outer->addWidget(m_resetAll);
    connect(m_resetAll, &QPushButton::clicked, this, [this] { Q_EMIT resetAllRequested(); });
    clear();
}

void ParamPanel::clear() {
    m_specs.clear();
    m_editors.clear();
    while (auto* item = m_bodyLayout->takeAt(0)) {
        if (auto* w = item->widget()) w->deleteLater();
        delete item;
    }
    m_title->setText(tr("No plot selected"));
    auto* hint = new QLabel(tr("Open a plot from the list on the left to see its parameters here."), m_body);
    hint->setWordWrap(true);
    hint->setEnabled(false);
    m_bodyLayout->addWidget(hint);
    m_bodyLayout->addStretch();
    m_resetAll->setEnabled(false);
}

void ParamPanel::setSpecs(const QString& title, const std::vector<core::ParamSpec>& specs,
                          const core::ParamValues& values, const std::vector<int>& ranks,
                          const std::vector<std::string>& hiddenKeys) {
    clear();
    while (auto* item = m_bodyLayout->takeAt(0)) {
        if (auto* w = item->widget()) w->deleteLater();
        delete item;
    }
    m_title->setText(title);
    m_specs = specs;
    m_resetAll->setEnabled(true);

    auto makeGroup = [&](const QString& name, const QString& tip, bool prepare) {
        auto* box = new QGroupBox(name, m_body);
        box->setToolTip(tip);
        auto* form = new QFormLayout(box);
        form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
        form->setRowWrapPolicy(QFormLayout::WrapLongRows);
        int rows = 0;
        for (const auto& spec : specs) {
            if (spec.affectsPrepare != prepare) continue;
            if (std::find(hiddenKeys.begin(), hiddenKeys.end(), spec.key) != hiddenKeys.end()) continue;
            auto* editor = ParamEditor::create(spec, ranks, box);
            if (auto it = values.find(spec.key); it != values.end()) editor->setValue(it->second);
            m_editors[spec.key] = editor;

            auto* field = new QWidget(box);
            auto* row = new QHBoxLayout(field);
            row->setContentsMargins(0, 0, 0, 0);
            row->addWidget(editor, 1);
            auto* reset = new QToolButton(field);
            reset->setIcon(style()->standardIcon(QStyle::SP_DialogResetButton));
            reset->setAutoRaise(true);
            reset->setToolTip(tr("Reset “%1” to its default").arg(QString::fromStdString(spec.label)));
            reset->setObjectName(QStringLiteral("reset_") + QString::fromStdString(spec.key));
            row->addWidget(reset, 0, Qt::AlignTop);

            QString label = QString::fromStdString(spec.label.empty() ? spec.key : spec.label);
            auto* labelWidget = new QLabel(label, box);
            labelWidget->setToolTip(QString::fromStdString(spec.tooltip));
            form->addRow(labelWidget, field);
            ++rows;

            const std::string key = spec.key;
            connect(editor, &ParamEditor::edited, this, [this, editor, key] { Q_EMIT valueEdited(key, editor->value()); });
            connect(reset, &QToolButton::clicked, editor, &ParamEditor::resetToDefault);
        }
        if (rows == 0) {
            delete box;
            return;
        }
        m_bodyLayout->addWidget(box);
    };
    makeGroup(tr("Data"), tr("Changing these re-prepares the plot in the background"), true);
    makeGroup(tr("Drawing"), tr("Changing these redraws at once"), false);
    if (m_editors.empty()) {
        auto* none = new QLabel(tr("This plot has no parameters."), m_body);
        none->setEnabled(false);
        m_bodyLayout->addWidget(none);
    }
    m_bodyLayout->addStretch();
}

void ParamPanel::showValues(const core::ParamValues& values) {
    for (const auto& [key, editor] : m_editors) {
        auto it = values.find(key);
        const core::ParamValue& v = it != values.end() ? it->second : editor->spec().defaultValue;
        if (!(editor->value() == v)) editor->setValue(v);  // zoom and pan call this often: touch only changes
    }
}

ParamEditor* ParamPanel::editor(const std::string& key) const {
    auto it = m_editors.find(key);
    return it == m_editors.end() ? nullptr : it->second;
}

}  // namespace strobe::app
