#include "session_record.h"

#include <QFile>
#include <QFileInfo>
#include <QStringList>

#include "engine/session/summary.h"
#include "platform/read_file.h"
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
  for (const auto& a : s.command) parts << QString::fromStdString(a);
  r.command = parts.join(' ');
  r.irHash = QString::fromStdString(s.ir_hash);
  r.started = QString::fromStdString(s.started);
  r.problem = QString::fromStdString(s.problem);
  return r;
}

}  // namespace paddock::gui
