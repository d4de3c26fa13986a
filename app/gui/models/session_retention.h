// How long ended sessions' records stay (engine/session/retention.h): the Settings page's "Keep
// session records for N days", saved in $XDG_CONFIG_HOME/paddock/sessions.json (the file `paddock
// sessions --prune` reads), and the prune itself, run when the app starts and on request. A session
// that still holds changes for review is never removed.
#pragma once

#include <QObject>
#include <QString>
#include <QtQml/qqmlregistration.h>

namespace paddock::gui {

class SessionRetention : public QObject {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(int keepDays READ keepDays WRITE setKeepDays NOTIFY changed)
  Q_PROPERTY(QString errorString READ errorString NOTIFY changed)
  Q_PROPERTY(QString lastPrune READ lastPrune NOTIFY changed)
  Q_PROPERTY(bool busy READ busy NOTIFY changed)

 public:
  explicit SessionRetention(QObject* parent = nullptr);

  int keepDays() const { return keep_days_; }
  void setKeepDays(int days);
  QString errorString() const { return error_; }
  QString lastPrune() const { return last_prune_; }
  bool busy() const { return busy_; }

  // Removes the old records on a worker thread; `pruned` says what it did.
  Q_INVOKABLE void pruneNow();

 signals:
  void changed();
  void pruned(int removed);

 private:
  int keep_days_;
  bool writable_ = true;  // false: sessions.json does not read, and is left as it is
  QString error_, last_prune_;
  bool busy_ = false;
};

}  // namespace paddock::gui
