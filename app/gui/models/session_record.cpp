#include "session_record.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStringList>

#include "engine/display_text.h"
#include "engine/ir.h"
#include "engine/session/summary.h"
#include "platform/read_file.h"
#include "platform/sessions.h"
#include "platform/unix_socket.h"

namespace paddock::gui {

SessionRecord read_session_dir(const QString& dir, const QString& control_socket) {
  const std::string d = QFile::encodeName(dir).toStdString();
  session::SessionFiles files;
  platform::ReadOptions record;
  record.max_bytes = std::size_t{1} << 20;
  record.no_follow = true;
  if (auto r = platform::read_file_if_exists(d + "/report.json", record); r.ok()) files.report = std::move(*r);
  else files.read_error = r.error().message;
  platform::ReadOptions head = record;
  head.prefix = true;
  if (auto e = platform::read_file_if_exists(d + "/events.jsonl", head); e.ok()) files.events_head = std::move(*e);
  else if (files.read_error.empty()) files.read_error = e.error().message;
  if (!files.report) files.live = platform::unix_socket_accepts(QFile::encodeName(control_socket).toStdString());
  const session::SessionSummary s = session::summarize(QFileInfo(dir).fileName().toStdString(), files);

  SessionRecord r;
  r.dir = dir;
  r.id = QString::fromStdString(s.id);
  r.state = QString::fromUtf8(session::to_string(s.state));
  QStringList parts;
  for (const auto& a : s.command) parts << QString::fromStdString(display_text(a));
  r.command = parts.join(' ');
  r.irHash = QString::fromStdString(s.ir_hash);
  r.started = QString::fromStdString(s.started);
  r.problem = QString::fromStdString(display_text(s.problem));
  if (s.exit_code) r.exitCode = *s.exit_code;
  if (s.report) {
    r.ended = QString::fromStdString(s.report->ended);
    r.durationMs = s.report->duration_ms;
    r.cpuMs = s.report->usage.cpu_ms;
    r.maxRss = s.report->usage.max_rss;
    r.pids = s.report->usage.pids;
    if (s.report->error) r.error = QString::fromStdString(display_text(*s.report->error));
    QStringList changed;
    const QString home = QDir::homePath();
    for (const auto& c : s.report->config_changes) {
      QString file = QFile::decodeName(QByteArray::fromStdString(c.file));
      if (file.startsWith(home + '/')) file = "~" + file.mid(home.size());
      file = QString::fromStdString(display_text(file.toStdString()));
      changed << (c.key == "(file)" ? file : file + ' ' + QString::fromStdString(display_text(c.key)));
    }
    if (!changed.isEmpty())
      r.configChanges = QCoreApplication::translate("SessionRecord", "Changed settings that run on your machine: %1 (review them before you start that agent outside Paddock)")
                            .arg(changed.join(", "));
  }
  return r;
}

void read_session_meta(SessionRecord& r) {
  auto ir = platform::read_session_ir(QFile::encodeName(r.dir).toStdString());
  if (!ir.ok()) return;
  r.project = QString::fromStdString(ir->meta.project);
  r.agent = QString::fromStdString(ir->meta.agent);
  const auto& res = ir->resources;
  r.cpuLimitSecs = res.cpu_seconds.value_or(-1);
  r.memoryLimit = res.memory_bytes.value_or(-1);
  r.processLimit = res.processes.value_or(-1);
  r.wallLimitSecs = res.wall_time_secs.value_or(-1);
}

QString state_words(const QString& state) {
  if (state == "exited") return QCoreApplication::translate("SessionRecord", "ended");
  if (state == "timeout") return QCoreApplication::translate("SessionRecord", "timed out");
  if (state == "abandoned") return QCoreApplication::translate("SessionRecord", "crashed");
  if (state == "ending") return QCoreApplication::translate("SessionRecord", "ending…");
  if (state == "starting") return QCoreApplication::translate("SessionRecord", "starting…");
  return state;
}

}  // namespace paddock::gui
