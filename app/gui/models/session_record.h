// One session directory ($XDG_STATE_HOME/paddock/sessions/<id>/) read into a value, with the
// session module's reader (engine/session/summary.h): the app shows what `paddock sessions`
// shows, in the same words, plus what a list row needs (project, agent, how long, how many
// requests and denials).
#pragma once

#include <QString>
#include <QtGlobal>

namespace paddock::gui {

struct SessionRecord {
  QString id;
  QString dir;
  QString state;     // running | exited | failed | timeout | stopped | abandoned | unreadable
  QString command;
  QString irHash;
  QString started;   // ts of session_started, UTC
  QString ended;     // report's end time, UTC ("" while running or without a report)
  qint64 durationMs = -1;  // from the report (-1 = none)
  int exitCode = -1;       // -1 = none
  QString problem;   // with state unreadable: which file, and what is wrong with it
  QString error;     // the report's error (why a failed session did not run)
  // The report's changes to agents' settings that run on the host, in one line of plain words
  // ("" when none): said with the session each time it is shown, as `paddock sessions` does.
  QString configChanges;
  QString project;   // from ir.json's meta ("" when it does not read)
  QString agent;
  qint64 cpuMs = -1, maxRss = -1, pids = -1;  // usage from the report
  // The limits the session ran under (ir.json's resources; -1 = no limit).
  qint64 cpuLimitSecs = -1, memoryLimit = -1, processLimit = -1, wallLimitSecs = -1;
};

// Reads report.json and the first line of events.jsonl; a session without a report is running
// while its control socket (control_socket) accepts connections. Never fails: a file that does
// not read or parse makes the record unreadable, naming the file.
SessionRecord read_session_dir(const QString& dir, const QString& control_socket);

// The project and agent a session ran with, from its ir.json (the engine's reader).
void read_session_meta(SessionRecord& r);

// Words for a row's state: "running", "ended", "failed", "timed out", "stopped", "crashed"
// (abandoned: its helper is gone without a report), "ending…" (the sessions list's word for a
// helper that closed its socket and has not written its report yet), "unreadable".
QString state_words(const QString& state);

}  // namespace paddock::gui
