// One session directory ($XDG_STATE_HOME/paddock/sessions/<id>/) read into a value, with the
// session module's reader (engine/session/summary.h): the app shows what `paddock sessions`
// shows, in the same words.
#pragma once

#include <QString>

namespace paddock::gui {

struct SessionRecord {
  QString id;
  QString dir;
  QString state;     // running | exited | failed | timeout | stopped | abandoned | unreadable
  QString command;
  QString irHash;
  QString started;   // ts of session_started, UTC
  QString problem;   // with state unreadable: which file, and what is wrong with it
};

// Reads report.json and the first line of events.jsonl; a session without a report is running
// while its control socket (control_socket) accepts connections. Never fails: a file that does
// not read or parse makes the record unreadable, naming the file.
SessionRecord read_session_dir(const QString& dir, const QString& control_socket);

}  // namespace paddock::gui
