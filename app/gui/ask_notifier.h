// A desktop notification for each ask, with Allow and Deny on it where the desktop's notification
// service supports actions: the freedesktop service on the session bus
// (org.freedesktop.Notifications: Notify with actions, answered by its ActionInvoked signal).
// The answer goes to the session through the ask inbox (its control socket), exactly as the
// Sessions page's buttons send it. Without that service — no session bus, nobody owning the name,
// or a server without actions — the tray's plain notification is shown instead (the answer is
// then given in the app). A notification whose ask was settled elsewhere (in the app, by the
// timeout, the session ending) is withdrawn.
#pragma once

#include <map>

#include <QObject>
#include <QPointer>
#include <QString>
#include <QtQml/qqmlregistration.h>

#include "ask_inbox.h"
#include "tray_icon.h"

namespace paddock::gui {

class AskNotifier : public QObject {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(paddock::gui::AskInbox* inbox READ inbox WRITE setInbox NOTIFY changed)
  Q_PROPERTY(paddock::gui::TrayIcon* tray READ tray WRITE setTray NOTIFY changed)
  // The service on the bus answered and offers actions: asks are notified with Allow and Deny.
  Q_PROPERTY(bool actionsAvailable READ actionsAvailable NOTIFY changed)
  // The service's answer has come (or there is no bus): what actionsAvailable says is known.
  Q_PROPERTY(bool ready READ ready NOTIFY changed)

 public:
  explicit AskNotifier(QObject* parent = nullptr);

  AskInbox* inbox() const { return inbox_; }
  void setInbox(AskInbox* inbox);
  TrayIcon* tray() const { return tray_; }
  void setTray(TrayIcon* tray);
  bool actionsAvailable() const { return actions_; }
  bool ready() const { return ready_; }
  // Notifications shown on the bus and not yet withdrawn or answered (tests).
  int openNotifications() const { return static_cast<int>(open_.size()); }

  static constexpr const char* kAllow = "allow";
  static constexpr const char* kDeny = "deny";

 signals:
  void changed();
  // The notification itself was clicked: show the app.
  void showRequested();

 private slots:
  // The service's signals (connected by name on the bus).
  void onAction(uint id, const QString& key);
  void onClosed(uint id, uint reason);

 private:
  struct Pending {
    QString sessionDir, askId;
  };
  void onAsk(const QString& sessionId, const QString& host, int port, const QString& sessionDir, const QString& askId,
             int timeoutSecs);
  void withdrawSettled();

  QPointer<AskInbox> inbox_;
  QPointer<TrayIcon> tray_;
  bool actions_ = false;
  bool ready_ = false;
  std::map<uint, Pending> open_;  // notification id -> its ask
};

}  // namespace paddock::gui
