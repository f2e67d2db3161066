#pragma once
// The inline error bar above the plot area: one message at a time, selectable, dismissed by its close button or
// by the next success; never a modal dialog.

#include <QFrame>

class QLabel;

namespace strobe::app {

class ErrorBar : public QFrame {
    Q_OBJECT
public:
    explicit ErrorBar(QWidget* parent = nullptr);

    void showMessage(const QString& text);  // shows the bar with `text`
    void dismiss();                          // hides it and forgets the text
    QString text() const;
    void setDark(bool dark);                 // colours for a dark or a light palette

private:
    QLabel* m_text = nullptr;
};

}  // namespace strobe::app
