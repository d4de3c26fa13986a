// The tray icon (DESIGN §11): shows the app's state (idle / running / needs attention) and a
// menu with Show and Quit, and notifications for asks and failures. Created from QML; does
// nothing where the desktop has no tray.
#pragma once

#include <memory>

#include <QObject>
#include <QString>
#include <QtQml/qqmlregistration.h>

class QMenu;
class QSystemTrayIcon;

namespace paddock::gui {

class TrayIcon : public QObject {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(State state READ state WRITE setState NOTIFY stateChanged)
  Q_PROPERTY(QString detail READ detail WRITE setDetail NOTIFY stateChanged)
  Q_PROPERTY(bool available READ available CONSTANT)

 public:
  enum State { Idle, Running, NeedsAttention };
  Q_ENUM(State)

  explicit TrayIcon(QObject* parent = nullptr);
  ~TrayIcon() override;

  State state() const { return state_; }
  void setState(State s);
  QString detail() const { return detail_; }
  void setDetail(const QString& d);
  bool available() const;
  QString toolTip() const;
  // A desktop notification (an ask, a failure); a no-op where there is no tray.
  Q_INVOKABLE void notify(const QString& title, const QString& message);

 signals:
  void stateChanged();
  void showRequested();

 private:
  void refresh();

  State state_ = Idle;
  QString detail_;
  std::unique_ptr<QMenu> menu_;
  std::unique_ptr<QSystemTrayIcon> icon_;
};

}  // namespace paddock::gui
