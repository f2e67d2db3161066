#pragma once
// The search bar of a timeline view (Ctrl+F): a text field (name substring, or a regular expression with the
// ".*" toggle), "k of N", previous / next and close. Enter / F3 step to the next match, Shift+Enter / Shift+F3 to
// the previous one, Esc closes. The view does the matching (plots::TimelineNavigation::findItems) and the stepping.

#include <QWidget>

class QLabel;
class QLineEdit;
class QToolButton;

namespace strobe::app {

class TimelineSearchBar : public QWidget {
    Q_OBJECT
public:
    explicit TimelineSearchBar(QWidget* parent = nullptr);

    QString text() const;
    bool isRegex() const;
    void setQuery(const QString& text, bool regex);  // emits queryChanged
    void focusText();
    // "k of N", "N matches", "no match" or an error (a bad regular expression).
    void setStatus(int current, int count, const QString& error = {});
    QString statusText() const;
    QLineEdit* lineEdit() const { return m_edit; }

Q_SIGNALS:
    void queryChanged(const QString& text, bool regex);
    void nextRequested();
    void previousRequested();
    void closeRequested();
    void listRequested();  // every match in the events list

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QLineEdit* m_edit = nullptr;
    QToolButton* m_regex = nullptr;
    QLabel* m_status = nullptr;
};

}  // namespace strobe::app
