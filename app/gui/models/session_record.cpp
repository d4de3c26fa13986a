#include "session_record.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace paddock::gui {
namespace {

// Returns the object, or an empty one; sets `problem` when the file exists but is not JSON.
QJsonObject read_object(const QString& path, QString& problem) {
  QFile f(path);
  if (!f.exists() || !f.open(QIODevice::ReadOnly)) return {};
  QJsonParseError err{};
  auto doc = QJsonDocument::fromJson(f.readAll(), &err);
  if (err.error != QJsonParseError::NoError || !doc.isObject()) {
    problem = QFileInfo(path).fileName() + ": " + err.errorString();
    return {};
  }
  return doc.object();
}

QString command_text(const QJsonValue& v) {
  if (v.isString()) return v.toString();
  if (v.isArray()) {
    QStringList parts;
    for (const auto& a : v.toArray()) parts << a.toString();
    return parts.join(' ');
  }
  return {};
}

}  // namespace

SessionRecord read_session_dir(const QString& dir, const QString& runtime_dir) {
  SessionRecord r;
  r.dir = dir;
  r.id = QFileInfo(dir).fileName();
  const QJsonObject report = read_object(dir + "/report.json", r.problem);
  const QJsonObject attestation = read_object(dir + "/attestation.json", r.problem);

  bool ended = false;
  QFile events(dir + "/events.jsonl");
  if (events.open(QIODevice::ReadOnly)) {
    // Line by line: the last line of a live session may be half written; skip what does not parse.
    while (!events.atEnd()) {
      auto doc = QJsonDocument::fromJson(events.readLine());
      if (!doc.isObject()) continue;
      const auto ev = doc.object();
      const QString type = ev.value("event").toString();
      if (type == "session_started") {
        r.started = ev.value("ts").toString();
        if (r.command.isEmpty()) r.command = command_text(ev.value("command"));
        if (r.command.isEmpty()) r.command = command_text(ev.value("argv"));
      } else if (type == "session_ended") {
        ended = true;
      }
    }
  }
  if (QString c = command_text(report.value("command")); !c.isEmpty()) r.command = c;
  r.irHash = attestation.value("ir_hash").toString();
  if (r.irHash.isEmpty()) r.irHash = report.value("ir_hash").toString();
  if (r.started.isEmpty()) r.started = report.value("started").toString();

  if (report.contains("state")) {
    r.state = report.value("state").toString();
  } else if (!report.isEmpty() || ended) {
    r.state = "ended";
  } else if (QFileInfo::exists(runtime_dir.isEmpty() ? dir + "/control.sock"
                                                      : runtime_dir + "/paddock/" + r.id + ".sock")) {
    r.state = "running";
  } else {
    // No report, no end event, no control socket: the supervisor is gone.
    r.state = "stale";
  }
  return r;
}

}  // namespace paddock::gui
