#include "launcher.h"

#include <sys/stat.h>

#include <QClipboard>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QProcessEnvironment>
#include <QRandomGenerator>
#include <QRegularExpression>

#include "app_paths.h"
#include "backends/backend.h"
#include "engine/session/event.h"
#include "engine/session/layout.h"
#include "platform/probe.h"
#include "platform/read_file.h"
#include "session_record.h"

namespace paddock::gui {
namespace {

QString shell_quote(const QString& a) {
  static const QRegularExpression kSafe(R"(^[A-Za-z0-9_@%+=:,./-]+$)");
  if (!a.isEmpty() && kSafe.match(a).hasMatch()) return a;
  QString q = a;
  q.replace('\'', "'\\''");
  return "'" + q + "'";
}

}  // namespace

// Shell words: '...' literal, "..." with \ escapes for " \ $ `, \ outside quotes; no expansion.
QStringList Launcher::splitCommandLine(const QString& line) {
  QStringList out;
  QString word;
  bool in_word = false;
  for (qsizetype i = 0; i < line.size(); ++i) {
    const QChar c = line[i];
    if (c == '\'') {
      const qsizetype end = line.indexOf('\'', i + 1);
      if (end < 0) return {};  // unterminated: not a command line
      word += line.mid(i + 1, end - i - 1);
      i = end;
      in_word = true;
    } else if (c == '"') {
      qsizetype j = i + 1;
      for (; j < line.size() && line[j] != '"'; ++j) {
        if (line[j] == '\\' && j + 1 < line.size() && QString("\"\\$`").contains(line[j + 1])) ++j;
        word += line[j];
      }
      if (j >= line.size()) return {};
      i = j;
      in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
      in_word = true;
    } else if (c.isSpace()) {
      if (in_word) out << word;
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) out << word;
  return out;
}

namespace {

// Words of a list field (domains, ports): separated by spaces or commas.
QStringList split_words(const QString& s) {
  static const QRegularExpression kSep(R"([\s,]+)");
  return s.split(kSep, Qt::SkipEmptyParts);
}

// The session that the helper of `pid` started: its events.jsonl begins with session_started,
// which names the helper's pid (the CLI execs the helper, so it is the process started here).
bool started_by(const QString& dir, qint64 pid) {
  platform::ReadOptions head;
  head.max_bytes = 64 * 1024;
  head.prefix = true;
  head.no_follow = true;
  auto bytes = platform::read_file_if_exists(QFile::encodeName(dir + "/events.jsonl").toStdString(), head);
  if (!bytes.ok() || !*bytes) return false;
  const std::string& text = **bytes;
  const auto nl = text.find('\n');
  if (nl == std::string::npos) return false;  // the first line is not complete yet
  auto ev = session::decode_event(std::string_view(text).substr(0, nl));
  if (!ev.ok() || ev->type != session::EventType::kSessionStarted) return false;
  auto started = session::payload_of<session::SessionStarted>(*ev);
  return started.ok() && started->helper_pid == pid;
}

QStringList session_ids(const QString& sessions_dir) {
  return QDir(sessions_dir).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
}

}  // namespace

Launcher::Launcher(QObject* parent) : QObject(parent) {
  find_.setInterval(50);
  connect(&find_, &QTimer::timeout, this, &Launcher::findSession);
  terminal_watch_.setInterval(100);
  connect(&terminal_watch_, &QTimer::timeout, this, &Launcher::watchTerminal);
}

Launcher::~Launcher() {
  releaseProcess(process_);
  releaseProcess(terminal_process_);
}

void Launcher::releaseProcess(QProcess*& p) {
  if (!p) return;
  p->disconnect(this);
  if (p->state() != QProcess::NotRunning) {
    // A running session belongs to its helper, and a terminal to the user, not to the app:
    // QProcess would kill it on destruction, so the process object is let go instead (the
    // process is reparented to init and keeps running).
    p->setParent(nullptr);
  } else {
    p->deleteLater();
  }
  p = nullptr;  // intentionally not deleted while it runs
}

#define PADDOCK_SETTER(Name, member)            \
  void Launcher::set##Name(const QString& v) {  \
    if (v == member) return;                    \
    member = v;                                 \
    emit inputsChanged();                       \
  }
PADDOCK_SETTER(Project, project_)
PADDOCK_SETTER(AgentPreset, agent_preset_)
PADDOCK_SETTER(Command, command_)
PADDOCK_SETTER(Profile, profile_)
PADDOCK_SETTER(NetMode, net_mode_)
PADDOCK_SETTER(ExtraDomains, extra_domains_)
PADDOCK_SETTER(Limits, limits_)
PADDOCK_SETTER(Timeout, timeout_)
PADDOCK_SETTER(Publish, publish_)
PADDOCK_SETTER(HostPorts, host_ports_)
PADDOCK_SETTER(Terminal, terminal_)
PADDOCK_SETTER(Tier, tier_)
#undef PADDOCK_SETTER

void Launcher::setReview(bool on) {
  if (on == review_) return;
  review_ = on;
  emit inputsChanged();
}

session::LaunchRequest Launcher::request() const {
  session::LaunchRequest r;
  r.project = project_.toStdString();
  r.agent = agent_preset_.toStdString();
  r.profile = profile_.isEmpty() ? "default" : profile_.toStdString();
  r.net = net_mode_.toStdString();
  for (const QString& d : split_words(extra_domains_)) r.allow_domains.push_back(d.toStdString());
  r.limits = limits_.trimmed().toStdString();
  r.timeout = timeout_.trimmed().toStdString();
  // As typed: the CLI refuses a bad port in one line, which the panel then shows.
  for (const QString& p : split_words(publish_)) r.publish.push_back(p.toStdString());
  for (const QString& p : split_words(host_ports_)) r.host_ports.push_back(p.toStdString());
  r.review = review_;
  r.tier = tier_ == "namespaces" ? std::string() : tier_.toStdString();
  for (const QString& w : splitCommandLine(command_)) r.command.push_back(w.toStdString());
  return r;
}

QStringList Launcher::cliArguments() const {
  QStringList a;
  for (const auto& w : session::run_arguments(request())) a << QString::fromStdString(w);
  return a;
}

QString Launcher::cliEquivalent() const {
  QStringList parts{"paddock"};
  for (const QString& a : cliArguments()) parts << shell_quote(a);
  return parts.join(' ');
}

void Launcher::copyCliEquivalent() const {
  if (auto* cb = QGuiApplication::clipboard()) cb->setText(cliEquivalent());
}

void Launcher::setState(State s, const QString& message) {
  state_ = s;
  message_ = message;
  emit stateChanged();
}

void Launcher::reset() {
  fix_kind_.clear();
  fix_label_.clear();
  fix_target_.clear();
  exit_code_ = -1;
  setState(process_ ? state_ : Idle);
}

bool Launcher::launchInBackground() {
  if (project_.isEmpty() || splitCommandLine(command_).isEmpty()) {
    setState(Failed, tr("choose a project and an agent first"));
    return false;
  }
  // One launch at a time per launcher: the earlier one keeps running as its own session.
  releaseProcess(process_);
  terminal_watch_.stop();
  releaseProcess(terminal_process_);
  const QString out_dir = AppPaths::outputDir();
  if (out_dir.isEmpty() || !QDir().mkpath(out_dir)) {
    setState(Failed, tr("cannot create %1 for the agent's output").arg(out_dir));
    return false;
  }
  ::chmod(QFile::encodeName(out_dir).constData(), 0700);
  output_file_ = out_dir + QString("/launch-%1-%2.log")
                               .arg(QDateTime::currentMSecsSinceEpoch())
                               .arg(QRandomGenerator::global()->generate(), 8, 16, QChar('0'));
  fix_kind_.clear();
  fix_label_.clear();
  fix_target_.clear();
  exit_code_ = -1;
  session_id_.clear();
  known_before_ = session_ids(AppPaths::sessionsDir());
  process_ = new QProcess(this);
  process_->setProgram(AppPaths::cliPath());
  process_->setArguments(cliArguments());
  process_->setWorkingDirectory(project_);
  // No terminal: the agent's stdin is empty and its output (and the CLI's refusal line) go to
  // one file, in the order they are written.
  process_->setStandardInputFile(QProcess::nullDevice());
  process_->setStandardOutputFile(output_file_, QIODevice::Append);
  process_->setStandardErrorFile(output_file_, QIODevice::Append);
  connect(process_, &QProcess::finished, this, &Launcher::onFinished);
  connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e == QProcess::FailedToStart) setState(Failed, tr("cannot start %1: %2").arg(AppPaths::cliPath(), process_->errorString()));
  });
  last_mode_ = "background";
  setState(Starting);
  process_->start();
  if (!process_->waitForStarted(5000)) return false;
  pid_ = process_->processId();
  find_.start();
  emit launched(project_, agent_preset_, last_mode_);
  return true;
}

void Launcher::findSession() {
  if (!process_) {
    find_.stop();
    return;
  }
  const qint64 pid = pid_;
  const QString sessions = AppPaths::sessionsDir();
  for (const QString& id : session_ids(sessions)) {
    if (known_before_.contains(id)) continue;
    const QString dir = sessions + "/" + id;
    if (!started_by(dir, pid)) continue;
    find_.stop();
    session_id_ = id;
    // The file is renamed under the running agent (its descriptors stay valid): from now on the
    // session's output is <output>/<id>.log, which the session view reads.
    const QString named = AppPaths::outputDir() + "/" + id + ".log";
    if (QFile::rename(output_file_, named)) output_file_ = named;
    setState(Running);
    emit sessionStarted(id, dir);
    return;
  }
}

void Launcher::onFinished(int code, QProcess::ExitStatus status) {
  find_.stop();
  if (session_id_.isEmpty()) findSession();  // a session that ended at once still started
  find_.stop();
  exit_code_ = status == QProcess::NormalExit ? code : 128 + 9;
  if (process_) {
    process_->deleteLater();
    process_ = nullptr;
  }
  if (!session_id_.isEmpty()) {
    setState(Ended, tr("the session ended with exit status %1").arg(exit_code_));
    return;
  }
  // What the CLI said: its last line ("paddock: ..."). Nothing ran, so the file holds the CLI's
  // message only, which is kept in `message`.
  QString line;
  QFile f(output_file_);
  if (f.open(QIODevice::ReadOnly)) {
    const QList<QByteArray> lines = f.readAll().split('\n');
    for (auto it = lines.rbegin(); it != lines.rend(); ++it)
      if (!it->trimmed().isEmpty()) {
        line = QString::fromUtf8(it->trimmed());
        break;
      }
  }
  f.remove();
  if (line.startsWith("paddock: ")) line = line.mid(9);
  if (line.isEmpty()) line = tr("paddock run exited with status %1 before the session started").arg(exit_code_);
  diagnose(exit_code_, line);
}

Result<Inputs> Launcher::engineInputs() const {
  session::LaunchContext ctx;
  ctx.environment = AppPaths::environment();
  ctx.resources_dir = AppPaths::resourcesDir().toStdString();
  ctx.os = backends::to_string(backends::host_backend());
  return session::inputs_of(request(), ctx);
}

// A launch that did not become a session: what the CLI said (`line`), and the fix for it, worked
// out from the engine's own answers rather than from the words.
void Launcher::diagnose(int code, const QString& line) {
  const bool refused = code == 2 || code == 103 || code == 125 || code == 126 || code == 127;

  auto inputs = engineInputs();
  if (!inputs.ok()) {
    setState(refused ? Refused : Failed, line);
    return;
  }
  const Inputs& in = *inputs;
  auto ev = evaluate(in);
  if (ev.ok() && code == 126) {
    for (const auto& l : ev->layers)
      if (l.applies && l.approval == ApprovalState::kUnapproved) {
        fix_kind_ = "approve";
        fix_target_ = QString::fromStdString(l.file);
        fix_label_ = tr("Review and approve %1…").arg(QFileInfo(fix_target_).fileName());
        break;
      }
  }
  if (ev.ok() && code == 125 && fix_kind_.isEmpty() && ev->ir.egress.mode != NetMode::kOff) {
    // Offered only when the same launch with the network off passes the check here.
    Inputs off = in;
    off.net = NetMode::kOff;
    auto ev_off = evaluate(off);
    auto layout = session::from_env(in.environment);
    if (ev_off.ok() && layout.ok()) {
      const platform::ProbeCache cache(AppPaths::helperPath().toStdString(), layout->probe_cache());
      auto probe = cache.load();
      if (probe.ok()) {
        auto plan = backends::compile(ev_off->ir, backends::host_backend(), probe->probe);
        if (plan.ok() && backends::check(*plan).ok()) {
          fix_kind_ = "net-off";
          fix_label_ = tr("Launch with the network off");
        }
      }
    }
  }
  if (ev.ok() && fix_kind_.isEmpty() && !ev->ir.meta.agent_dir.empty() &&
      !QFileInfo::exists(QString::fromStdString(ev->ir.meta.agent_dir))) {
    fix_kind_ = "create-agent-dir";
    fix_target_ = QString::fromStdString(ev->ir.meta.agent_dir);
    fix_label_ = tr("Create %1 and launch").arg(fix_target_);
  }
  setState(refused ? Refused : Failed, line);
}

QString Launcher::createDirectory(const QString& dir) {
  if (dir.isEmpty()) return tr("no directory given");
  if (!QDir().mkpath(dir)) return tr("cannot create %1").arg(dir);
  ::chmod(QFile::encodeName(dir).constData(), 0700);
  return {};
}

bool Launcher::relaunch() { return last_mode_ == "terminal" ? launchInTerminal() : launchInBackground(); }

bool Launcher::applyFix() {
  if (fix_kind_ == "net-off") {
    setNetMode("off");
    return relaunch();
  }
  if (fix_kind_ == "create-agent-dir") {
    if (const QString err = createDirectory(fix_target_); !err.isEmpty()) {
      setState(Failed, err);
      return false;
    }
    return relaunch();
  }
  if (fix_kind_ == "approve") return relaunch();  // approved in the review dialog first
  return false;
}

QStringList Launcher::knownTerminals() {
  return {"x-terminal-emulator", "gnome-terminal", "konsole", "xfce4-terminal", "kitty", "alacritty", "foot", "xterm"};
}

QStringList Launcher::detectTerminals(const QString& path_env) {
  QStringList found;
  const QStringList dirs = path_env.split(':', Qt::SkipEmptyParts);
  for (const QString& t : knownTerminals())
    for (const QString& d : dirs)
      if (QFileInfo fi(d + "/" + t); fi.isFile() && fi.isExecutable()) {
        found << t;
        break;
      }
  return found;
}

QStringList Launcher::detectedTerminals() const {
  return detectTerminals(QProcessEnvironment::systemEnvironment().value("PATH"));
}

QStringList Launcher::terminalCommand(const QString& terminal, const QStringList& argv, const QString& status_file) {
  // The window stays open after a failure, so a refusal's one line can be read; the exit status
  // goes to the status file, so the app knows a launch that ended before it became a session.
  const QStringList wrapped = QStringList{"sh", "-c",
                                          "st=$1; shift; \"$@\"; s=$?; [ -z \"$st\" ] || echo \"$s\" > \"$st\"; "
                                          "if [ \"$s\" -ne 0 ]; then printf '\\n[paddock: exit status %s; "
                                          "press Enter to close]\\n' \"$s\"; read _; fi",
                                          "paddock-launch", status_file} + argv;
  QStringList cmd = QProcess::splitCommand(terminal);
  const QString name = cmd.isEmpty() ? QString() : QFileInfo(cmd.first()).fileName();
  if (name == "gnome-terminal") cmd << "--";
  else if (name == "xfce4-terminal") cmd << "-x";
  else if (name == "kitty" || name == "foot") {}
  else cmd << "-e";  // x-terminal-emulator, konsole, alacritty, xterm and most others
  return cmd + wrapped;
}

bool Launcher::launchInTerminal() {
  if (project_.isEmpty() || splitCommandLine(command_).isEmpty()) {
    setState(Failed, tr("choose a project and an agent first"));
    return false;
  }
  QString term = terminal_.trimmed();
  if (term.isEmpty()) {
    const QStringList found = detectedTerminals();
    if (found.isEmpty()) {
      setState(Failed, tr("no terminal emulator found (looked for %1); choose one in Settings, or run in the background")
                           .arg(knownTerminals().join(", ")));
      return false;
    }
    term = found.first();
  }
  const QString out_dir = AppPaths::outputDir();
  if (out_dir.isEmpty() || !QDir().mkpath(out_dir)) {
    setState(Failed, tr("cannot create %1 for the terminal's messages").arg(out_dir));
    return false;
  }
  ::chmod(QFile::encodeName(out_dir).constData(), 0700);
  terminal_watch_.stop();
  releaseProcess(terminal_process_);
  const QString stamp = QString("%1-%2").arg(QDateTime::currentMSecsSinceEpoch())
                            .arg(QRandomGenerator::global()->generate(), 8, 16, QChar('0'));
  terminal_output_ = out_dir + "/terminal-" + stamp + ".log";
  terminal_status_ = out_dir + "/terminal-" + stamp + ".status";
  terminal_name_ = term;
  terminal_exited_ = false;
  const QStringList cmd = terminalCommand(term, QStringList{AppPaths::cliPath()} + cliArguments(), terminal_status_);
  last_mode_ = "terminal";
  fix_kind_.clear();
  fix_label_.clear();
  fix_target_.clear();
  exit_code_ = -1;
  session_id_.clear();
  known_before_ = session_ids(AppPaths::sessionsDir());
  // The terminal is watched, not fired and forgotten: one that dies at start, or never shows
  // the session, is reported with its reason. Its own messages go to a file for that.
  terminal_process_ = new QProcess(this);
  terminal_process_->setProgram(cmd.first());
  terminal_process_->setArguments(cmd.mid(1));
  terminal_process_->setWorkingDirectory(project_);
  terminal_process_->setStandardInputFile(QProcess::nullDevice());
  terminal_process_->setStandardOutputFile(terminal_output_, QIODevice::Append);
  terminal_process_->setStandardErrorFile(terminal_output_, QIODevice::Append);
  connect(terminal_process_, &QProcess::finished, this, &Launcher::onTerminalFinished);
  terminal_process_->start();
  if (!terminal_process_->waitForStarted(5000)) {
    const QString why = terminal_process_->errorString();
    releaseProcess(terminal_process_);
    QFile::remove(terminal_output_);
    setState(Failed, tr("cannot start the terminal %1: %2; choose another terminal in Settings, or run in the background")
                         .arg(term, why));
    return false;
  }
  terminal_started_ms_ = QDateTime::currentMSecsSinceEpoch();
  setState(Starting, tr("Opening %1 with the agent…").arg(term));
  terminal_watch_.start();
  emit launched(project_, agent_preset_, last_mode_);
  return true;
}

QString Launcher::terminalOutputTail() const {
  QFile f(terminal_output_);
  if (!f.open(QIODevice::ReadOnly)) return {};
  const QList<QByteArray> lines = f.readAll().split('\n');
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (!it->trimmed().isEmpty()) return QString::fromUtf8(it->trimmed()).left(300);
  return {};
}

void Launcher::settleTerminal(const QString& failure) {
  terminal_watch_.stop();
  releaseProcess(terminal_process_);
  QFile::remove(terminal_output_);
  QFile::remove(terminal_status_);
  if (!failure.isEmpty()) setState(Failed, failure);
}

void Launcher::watchTerminal() {
  if (last_mode_ != "terminal" || !session_id_.isEmpty()) {
    terminal_watch_.stop();
    return;
  }
  // The session it started: a new session directory whose IR is for this project.
  const QString sessions = AppPaths::sessionsDir();
  for (const QString& id : session_ids(sessions)) {
    if (known_before_.contains(id)) continue;
    SessionRecord r;
    r.dir = sessions + "/" + id;
    read_session_meta(r);
    if (r.project != project_) continue;
    session_id_ = id;
    terminal_watch_.stop();
    // The terminal is the user's now; the Sessions page follows the session.
    releaseProcess(terminal_process_);
    QFile::remove(terminal_output_);
    setState(Idle, tr("Started in %1 as session %2.").arg(terminal_name_, id));
    emit sessionStarted(id, r.dir);
    return;
  }
  // The command ended before it became a session: `paddock run` refused or failed, and said why
  // in the terminal window (which stays open until Enter).
  QFile status(terminal_status_);
  if (status.open(QIODevice::ReadOnly)) {
    bool ok = false;
    const int code = QString::fromUtf8(status.readAll()).trimmed().toInt(&ok);
    if (ok) {
      settleTerminal({});
      exit_code_ = code;
      diagnose(code, tr("paddock run exited with status %1 in %2 before the session started; its reason is in that "
                        "window").arg(code).arg(terminal_name_));
      return;
    }
  }
  if (QDateTime::currentMSecsSinceEpoch() - terminal_started_ms_ < terminal_wait_ms_) return;
  const int secs = std::max(1, terminal_wait_ms_ / 1000);
  if (terminal_exited_) {
    const QString tail = terminalOutputTail();
    settleTerminal(tr("%1 exited at once and no session started within %2 s: it may have failed to open a window%3. "
                      "Choose another terminal in Settings, or run in the background.")
                       .arg(terminal_name_).arg(secs).arg(tail.isEmpty() ? QString() : " (" + tail + ")"));
    return;
  }
  // Still open: the window may be waiting for something; the user can see it, the app cannot.
  terminal_watch_.stop();
  releaseProcess(terminal_process_);
  QFile::remove(terminal_output_);
  setState(Idle, tr("%1 is open, but no session has started after %2 s: look at its window.").arg(terminal_name_).arg(secs));
}

void Launcher::onTerminalFinished(int code, QProcess::ExitStatus status) {
  terminal_exited_ = true;
  if (!session_id_.isEmpty() || !terminal_watch_.isActive()) return;
  watchTerminal();  // the session or the command's status may be there already
  if (!session_id_.isEmpty() || !terminal_watch_.isActive()) return;
  const QString tail = terminalOutputTail();
  const QString said = tail.isEmpty() ? QString() : tr(": %1").arg(tail);
  if (status == QProcess::CrashExit)
    settleTerminal(tr("the terminal %1 crashed as it started, so the agent did not start%2. Choose another terminal in "
                      "Settings, or run in the background.").arg(terminal_name_, said));
  else if (code != 0)
    settleTerminal(tr("the terminal %1 exited with status %2 as it started, so the agent did not start%3. Choose another "
                      "terminal in Settings, or run in the background.").arg(terminal_name_).arg(code).arg(said));
  // Status 0: a launcher that handed the window to a terminal already running (gnome-terminal
  // does): the session is waited for as before.
}

}  // namespace paddock::gui
