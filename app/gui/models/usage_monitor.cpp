#include "usage_monitor.h"

#include <QFileInfo>
#include <QJsonDocument>

#include "app_paths.h"
#include "engine/session/control.h"
#include "engine/session/usage_message.h"

namespace paddock::gui {

UsageMonitor::UsageMonitor(QObject* parent) : QObject(parent) {
  timer_.setInterval(kIntervalMs);
  connect(&timer_, &QTimer::timeout, this, &UsageMonitor::request);
  connect(&client_, &ControlClient::message, this, &UsageMonitor::onMessage);
  // The session ended (or its helper is gone): nothing more to ask until it is shown again.
  connect(&client_, &ControlClient::closed, this, [this] {
    timer_.stop();
    clear();
  });
  connect(&client_, &ControlClient::failed, this, [this](const QString& why) {
    if (client_.isOpen()) return;  // a line that did not read; the next answer may
    timer_.stop();
    clear(why);
  });
}

void UsageMonitor::setSessionDir(const QString& dir) {
  if (dir == dir_) return;
  dir_ = dir;
  emit sessionDirChanged();
  restart();
}

void UsageMonitor::setActive(bool active) {
  if (active == active_) return;
  active_ = active;
  emit activeChanged();
  restart();
}

void UsageMonitor::restart() {
  timer_.stop();
  client_.close();
  waiting_ = false;
  clear();
  if (!active_ || dir_.isEmpty()) return;
  const QString socket = AppPaths::controlSocketPath(dir_);
  if (!QFileInfo::exists(socket) || QFileInfo::exists(dir_ + "/report.json")) return;  // not running
  client_.open(socket);
  request();
  timer_.start();
}

void UsageMonitor::request() {
  if (waiting_) return;
  waiting_ = true;
  client_.send(session::request_of(session::ControlCommand::kUsage));
}

void UsageMonitor::onMessage(const QJsonObject& line) {
  waiting_ = false;
  auto usage = session::decode_usage_reply(QJsonDocument(line).toJson(QJsonDocument::Compact).toStdString());
  if (!usage.ok()) {
    timer_.stop();  // a helper that does not answer this will not start to
    clear(QString::fromStdString(usage.error().message));
    return;
  }
  live_ = true;
  error_.clear();
  cpu_ms_ = usage->cpu_ms;
  memory_ = usage->memory_bytes;
  processes_ = usage->processes;
  cpu_limit_ = usage->limits.cpu_ms.value_or(-1);
  memory_limit_ = usage->limits.memory_bytes.value_or(-1);
  process_limit_ = usage->limits.processes.value_or(-1);
  emit usageChanged();
}

void UsageMonitor::clear(const QString& error) {
  live_ = false;
  error_ = error;
  cpu_ms_ = memory_ = processes_ = cpu_limit_ = memory_limit_ = process_limit_ = -1;
  emit usageChanged();
}

}  // namespace paddock::gui
