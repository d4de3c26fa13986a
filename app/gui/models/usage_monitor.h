// A running session's usage, live: asks the helper on the session's control socket
// ({"cmd":"usage"}, engine/session/usage_message.h) every 1.5 s, only while `active` (the Usage
// tab is shown), so an idle app sends nothing. Values are -1 until the first answer; a limit is
// -1 when the plan sets none.
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>
#include <QtQml/qqmlregistration.h>

#include "control_client.h"

namespace paddock::gui {

class UsageMonitor : public QObject {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(QString sessionDir READ sessionDir WRITE setSessionDir NOTIFY sessionDirChanged)
  Q_PROPERTY(bool active READ active WRITE setActive NOTIFY activeChanged)
  // The last request was answered: the values are the session's now.
  Q_PROPERTY(bool live READ live NOTIFY usageChanged)
  Q_PROPERTY(qint64 cpuMs READ cpuMs NOTIFY usageChanged)
  Q_PROPERTY(qint64 memoryBytes READ memoryBytes NOTIFY usageChanged)
  Q_PROPERTY(qint64 processes READ processes NOTIFY usageChanged)
  Q_PROPERTY(qint64 cpuLimitMs READ cpuLimitMs NOTIFY usageChanged)
  Q_PROPERTY(qint64 memoryLimit READ memoryLimit NOTIFY usageChanged)
  Q_PROPERTY(qint64 processLimit READ processLimit NOTIFY usageChanged)
  // Why there are no live values (an answer that does not read, a refusal); "" otherwise.
  Q_PROPERTY(QString error READ error NOTIFY usageChanged)

 public:
  explicit UsageMonitor(QObject* parent = nullptr);

  QString sessionDir() const { return dir_; }
  void setSessionDir(const QString& dir);
  bool active() const { return active_; }
  void setActive(bool active);
  bool live() const { return live_; }
  qint64 cpuMs() const { return cpu_ms_; }
  qint64 memoryBytes() const { return memory_; }
  qint64 processes() const { return processes_; }
  qint64 cpuLimitMs() const { return cpu_limit_; }
  qint64 memoryLimit() const { return memory_limit_; }
  qint64 processLimit() const { return process_limit_; }
  QString error() const { return error_; }
  static constexpr int kIntervalMs = 1500;

 signals:
  void sessionDirChanged();
  void activeChanged();
  void usageChanged();

 private:
  void restart();
  void request();
  void onMessage(const QJsonObject& line);
  void clear(const QString& error = {});

  QString dir_;
  bool active_ = false;
  bool live_ = false;
  bool waiting_ = false;  // one request at a time: a slow helper is not queued up
  qint64 cpu_ms_ = -1, memory_ = -1, processes_ = -1, cpu_limit_ = -1, memory_limit_ = -1, process_limit_ = -1;
  QString error_;
  ControlClient client_;
  QTimer timer_;
};

}  // namespace paddock::gui
