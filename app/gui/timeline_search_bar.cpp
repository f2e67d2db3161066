#include "app/gui/timeline_search_bar.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>

namespace strobe::app {

TimelineSearchBar::TimelineSearchBar(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("timelineSearchBar"));
    setAutoFillBackground(true);
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(6, 3, 6, 3);
    row->setSpacing(4);
    m_edit = new QLineEdit(this);
    m_edit->setObjectName(QStringLiteral("timelineSearchText"));
    m_edit->setPlaceholderText(tr("Find kernels and operators by name"));
    m_edit->setClearButtonEnabled(true);
    m_edit->installEventFilter(this);
    m_regex = new QToolButton(this);
    m_regex->setObjectName(QStringLiteral("timelineSearchRegex"));
    m_regex->setText(QStringLiteral(".*"));
    m_regex->setCheckable(true);
    m_regex->setFocusPolicy(Qt::NoFocus);  // Enter keeps going to the text field
    m_regex->setToolTip(tr("Regular expression (ECMAScript, case-insensitive)"));
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("timelineSearchStatus"));
    m_status->setMinimumWidth(90);
    auto button = [this](const QString& text, const QString& tip) {
        auto* b = new QToolButton(this);
        b->setText(text);
        b->setToolTip(tip);
        b->setAutoRaise(true);
        return b;
    };
    auto* prev = button(QStringLiteral("▲"), tr("Previous match (Shift+Enter, Shift+F3)"));
    auto* next = button(QStringLiteral("▼"), tr("Next match (Enter, F3)"));
    auto* close = button(QStringLiteral("✕"), tr("Close (Esc)"));
    auto* list = button(tr("List"), tr("List every match in the Events dock, sortable by duration"));
    list->setObjectName(QStringLiteral("timelineSearchList"));
    row->addWidget(m_edit, 1);
    row->addWidget(m_regex);
    row->addWidget(m_status);
    row->addWidget(prev);
    row->addWidget(next);
    row->addWidget(list);
    row->addWidget(close);
    connect(m_edit, &QLineEdit::textChanged, this, [this] { Q_EMIT queryChanged(text(), isRegex()); });
    connect(m_regex, &QToolButton::toggled, this, [this] {
        m_edit->setFocus(Qt::OtherFocusReason);  // Enter steps right after the toggle
        Q_EMIT queryChanged(text(), isRegex());
    });
    connect(prev, &QToolButton::clicked, this, &TimelineSearchBar::previousRequested);
    connect(next, &QToolButton::clicked, this, &TimelineSearchBar::nextRequested);
    connect(close, &QToolButton::clicked, this, &TimelineSearchBar::closeRequested);
    connect(list, &QToolButton::clicked, this, &TimelineSearchBar::listRequested);
    setStatus(-1, 0);
}

QString TimelineSearchBar::text() const { return m_edit->text(); }
bool TimelineSearchBar::isRegex() const { return m_regex->isChecked(); }
QString TimelineSearchBar::statusText() const { return m_status->text(); }
void TimelineSearchBar::focusText() {
    m_edit->setFocus(Qt::ShortcutFocusReason);
    m_edit->selectAll();
}

void TimelineSearchBar::setQuery(const QString& text, bool regex) {
    const QSignalBlocker block(m_regex);
    m_regex->setChecked(regex);
    if (m_edit->text() == text) Q_EMIT queryChanged(text, regex);
    else m_edit->setText(text);  // emits queryChanged
}

void TimelineSearchBar::setStatus(int current, int count, const QString& error) {
    if (!error.isEmpty()) {
        m_status->setText(tr("bad regex"));
        m_status->setToolTip(error);
        return;
    }
    m_status->setToolTip({});
    if (text().isEmpty()) m_status->clear();
    else if (count == 0) m_status->setText(tr("no match"));
    else if (current < 0) m_status->setText(count == 1 ? tr("1 match") : tr("%1 matches").arg(count));
    else m_status->setText(tr("%1 of %2").arg(current + 1).arg(count));
}

bool TimelineSearchBar::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_edit && event->type() == QEvent::KeyPress) {
        auto* k = static_cast<QKeyEvent*>(event);
        const bool shift = k->modifiers() & Qt::ShiftModifier;
        switch (k->key()) {
        case Qt::Key_Return:
        case Qt::Key_Enter:
        case Qt::Key_F3:
            Q_EMIT(shift ? previousRequested() : nextRequested());
            return true;
        case Qt::Key_Escape: Q_EMIT closeRequested(); return true;
        default: break;
        }
    }
    return QWidget::eventFilter(watched, event);
}

}  // namespace strobe::app
