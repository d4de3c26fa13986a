// The tray icon: the app's state (idle / running / needs attention), a tooltip with the counts,
// and the menu that TrayMenuModel describes (running sessions with Open and Stop, recent
// launches, Show Paddock, Quit), plus notifications. Created from QML; does nothing where the
// desktop has no tray.
#pragma once

#include <memory>

#include <QObject>
#include <QPointer>
#include <QString>
#include <QtQml/qqmlregistration.h>

#include "tray_menu_model.h"

class QMenu;
class QSystemTrayIcon;

namespace paddock::gui {

class TrayIcon : public QObject {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(State state READ state WRITE setState NOTIFY stateChanged)
  Q_PROPERTY(QString detail READ detail WRITE setDetail NOTIFY stateChanged)
  Q_PROPERTY(bool available READ available CONSTANT)
  Q_PROPERTY(paddock::gui::TrayMenuModel* menu READ menu WRITE setMenu NOTIFY menuChanged)
  // Closing the window keeps the app in the tray (Settings); false quits with the window.
  Q_PROPERTY(bool keepRunning READ keepRunning WRITE setKeepRunning NOTIFY stateChanged)

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
  TrayMenuModel* menu() const { return model_; }
  void setMenu(TrayMenuModel* m);
  bool keepRunning() const { return keep_running_; }
  void setKeepRunning(bool on);
  // A desktop notification (an ask, a denial, a failure); a no-op where there is no tray.
  Q_INVOKABLE void notify(const QString& title, const QString& message);
  // The QMenu as it is now (tests): one line per action, "text" or "text > sub1 | sub2".
  Q_INVOKABLE QStringList menuText() const;

 signals:
  void stateChanged();
  void menuChanged();
  void showRequested();
  void quitRequested();
  void openSessionRequested(const QString& dir);
  void stopSessionRequested(const QString& dir);
  void relaunchRequested(int index);

 private:
  void refresh();
  void rebuildMenu();

  State state_ = Idle;
  QString detail_;
  bool keep_running_ = true;
  QPointer<TrayMenuModel> model_;
  std::unique_ptr<QMenu> qmenu_;
  std::unique_ptr<QSystemTrayIcon> icon_;
};

}  // namespace paddock::gui
