#include "app/gui/error_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

namespace strobe::app {

ErrorBar::ErrorBar(QWidget* parent) : QFrame(parent) {
    setObjectName(QStringLiteral("errorBar"));
    setDark(false);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 4, 4);
    auto* icon = new QLabel(this);
    icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(16, 16));
    m_text = new QLabel(this);
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* close = new QToolButton(this);
    close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    close->setAutoRaise(true);
    close->setToolTip(tr("Dismiss"));
    connect(close, &QToolButton::clicked, this, &ErrorBar::dismiss);
    layout->addWidget(icon);
    layout->addWidget(m_text, 1);
    layout->addWidget(close);
    hide();
}

void ErrorBar::showMessage(const QString& text) {
    m_text->setText(text);
    show();
}

void ErrorBar::dismiss() {
    hide();
    m_text->clear();
}

QString ErrorBar::text() const { return m_text->text(); }

void ErrorBar::setDark(bool dark) {
    setStyleSheet(dark ? QStringLiteral("QFrame#errorBar { background: #4a1f1f; border-bottom: 1px solid #803030; }"
                                        " QLabel { color: #ffd0d0; }")
                       : QStringLiteral("QFrame#errorBar { background: #fbe3e3; border-bottom: 1px solid #d08080; }"
                                        " QLabel { color: #7a0000; }"));
}

}  // namespace strobe::app
