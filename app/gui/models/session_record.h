// One session directory ($XDG_STATE_HOME/paddock/sessions/<id>/, DESIGN §9) read into a value.
#pragma once

#include <QString>

namespace paddock::gui {

struct SessionRecord {
  QString id;
  QString dir;
  QString state;     // from report.json, else derived: running | ended | stale
  QString command;
  QString irHash;
  QString started;   // ts of session_started, UTC
  QString problem;   // a file that exists but does not parse, in words
};

// Reads report.json, attestation.json and events.jsonl of one session directory. A missing file
// is normal (a live session has no report yet); a malformed one is reported in `problem`.
SessionRecord read_session_dir(const QString& dir, const QString& runtime_dir);

}  // namespace paddock::gui
