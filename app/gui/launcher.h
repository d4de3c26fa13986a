// Launching an agent from the app: exactly `paddock run` with the arguments shown as the CLI
// equivalent, either in the user's terminal emulator (interactive agents) or in the background
// with the agent's output captured to <state>/output/<session id>.log. The CLI refuses what it
// must before any fork and execs paddock-helper in its own process, so a session started here is
// the same helper, the same checks and the same records as one started in a shell, and it keeps
// running when the app quits.
//
// A refusal (126 blocked, 125 cannot be enforced, 103 mismatch, 2 bad input, 127 no such
// command) is shown as the CLI's one line plus, where there is one, the action that fixes it;
// each fix is checked before it is offered (a net-off launch is offered only when its plan
// passes the same check).
#pragma once

#include <memory>
#include <vector>

#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QTimer>
#include <QtQml/qqmlregistration.h>

#include "engine/engine.h"
#include "engine/session/launch_request.h"

namespace paddock::gui {

class Launcher : public QObject {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(QString project READ project WRITE setProject NOTIFY inputsChanged)
  Q_PROPERTY(QString agentPreset READ agentPreset WRITE setAgentPreset NOTIFY inputsChanged)
  // The agent's command line (a program on PATH, or a custom command line).
  Q_PROPERTY(QString command READ command WRITE setCommand NOTIFY inputsChanged)
  Q_PROPERTY(QString profile READ profile WRITE setProfile NOTIFY inputsChanged)
  // This run's options (the cli-flags tier): "" = as the policy says.
  Q_PROPERTY(QString netMode READ netMode WRITE setNetMode NOTIFY inputsChanged)
  Q_PROPERTY(QString extraDomains READ extraDomains WRITE setExtraDomains NOTIFY inputsChanged)
  Q_PROPERTY(QString limits READ limits WRITE setLimits NOTIFY inputsChanged)
  Q_PROPERTY(QString timeout READ timeout WRITE setTimeout NOTIFY inputsChanged)
  // Host loopback ports forwarded into the sandbox (--publish), e.g. "1455" for a login callback.
  Q_PROPERTY(QString publish READ publish WRITE setPublish NOTIFY inputsChanged)
  // Ports of this computer's loopback the sandbox reaches at its own 127.0.0.1 (--host-port), e.g.
  // "11434" for a local model server (docs/agents.md).
  Q_PROPERTY(QString hostPorts READ hostPorts WRITE setHostPorts NOTIFY inputsChanged)
  // Hold the agent's writes for review (--review; the project's choice, docs/review.md).
  Q_PROPERTY(bool review READ review WRITE setReview NOTIFY inputsChanged)
  // The Linux sandbox tier, --tier ("" = namespaces; "landlock": docs/capabilities.md).
  Q_PROPERTY(QString tier READ tier WRITE setTier NOTIFY inputsChanged)
  // The terminal emulator to use ("" = the first one found on PATH, see knownTerminals()).
  Q_PROPERTY(QString terminal READ terminal WRITE setTerminal NOTIFY inputsChanged)
  Q_PROPERTY(QString cliEquivalent READ cliEquivalent NOTIFY inputsChanged)
  Q_PROPERTY(State state READ state NOTIFY stateChanged)
  Q_PROPERTY(QString message READ message NOTIFY stateChanged)
  Q_PROPERTY(int exitCode READ exitCode NOTIFY stateChanged)
  // approve | net-off | create-agent-dir | "" ; fixLabel is the button's words.
  Q_PROPERTY(QString fixKind READ fixKind NOTIFY stateChanged)
  Q_PROPERTY(QString fixLabel READ fixLabel NOTIFY stateChanged)
  Q_PROPERTY(QString fixTarget READ fixTarget NOTIFY stateChanged)
  // The session the last launch became ("" until its helper has started it).
  Q_PROPERTY(QString sessionId READ sessionId NOTIFY stateChanged)
  // How the last launch ran: "terminal" | "background" | "".
  Q_PROPERTY(QString mode READ mode NOTIFY stateChanged)

 public:
  enum State { Idle, Starting, Running, Ended, Refused, Failed };
  Q_ENUM(State)

  explicit Launcher(QObject* parent = nullptr);
  ~Launcher() override;

  QString project() const { return project_; }
  void setProject(const QString& v);
  QString agentPreset() const { return agent_preset_; }
  void setAgentPreset(const QString& v);
  QString command() const { return command_; }
  void setCommand(const QString& v);
  QString profile() const { return profile_; }
  void setProfile(const QString& v);
  QString netMode() const { return net_mode_; }
  void setNetMode(const QString& v);
  QString extraDomains() const { return extra_domains_; }
  void setExtraDomains(const QString& v);
  QString limits() const { return limits_; }
  void setLimits(const QString& v);
  QString timeout() const { return timeout_; }
  void setTimeout(const QString& v);
  QString publish() const { return publish_; }
  void setPublish(const QString& v);
  QString hostPorts() const { return host_ports_; }
  void setHostPorts(const QString& v);
  QString terminal() const { return terminal_; }
  void setTerminal(const QString& v);
  QString tier() const { return tier_; }
  void setTier(const QString& v);
  bool review() const { return review_; }
  void setReview(bool on);

  State state() const { return state_; }
  QString message() const { return message_; }
  int exitCode() const { return exit_code_; }
  QString fixKind() const { return fix_kind_; }
  QString fixLabel() const { return fix_label_; }
  QString fixTarget() const { return fix_target_; }
  QString sessionId() const { return session_id_; }
  QString mode() const { return last_mode_; }

  // The launch this panel asks for (engine/session/launch_request.h): its argv and the engine's
  // Inputs are both derived from it.
  session::LaunchRequest request() const;
  // `paddock run ...` as argv (after the program) and as one shell-quoted line.
  QStringList cliArguments() const;
  QString cliEquivalent() const;
  Q_INVOKABLE void copyCliEquivalent() const;

  Q_INVOKABLE bool launchInBackground();
  Q_INVOKABLE bool launchInTerminal();
  // The fixes that need no review (net-off: relaunch with --net off; create-agent-dir: make
  // $AGENT, mode 0700, and relaunch). An approval is reviewed in the approval dialog first
  // (PolicyComposer::approve), then the page launches again.
  Q_INVOKABLE bool applyFix();
  // Creates `dir` (and its parents) with mode 0700; "" or the reason it could not.
  Q_INVOKABLE static QString createDirectory(const QString& dir);
  Q_INVOKABLE void reset();

  // A command line as the shell splits it into words (quotes and backslashes; no expansion);
  // {} when a quote is not closed.
  static QStringList splitCommandLine(const QString& line);
  // x-terminal-emulator, gnome-terminal, konsole, xfce4-terminal, kitty, alacritty, foot, xterm.
  Q_INVOKABLE static QStringList knownTerminals();
  // The known terminals found on `path_env` (PATH), in the order above.
  static QStringList detectTerminals(const QString& path_env);
  Q_INVOKABLE QStringList detectedTerminals() const;
  // The terminal's argv that runs `argv` in a new window, keeping it open on a failure so the
  // reason can be read; the command's exit status is written to `status_file` when it ends.
  static QStringList terminalCommand(const QString& terminal, const QStringList& argv,
                                     const QString& status_file = {});
  // How long a terminal launch may take to become a session before the app says so (tests
  // shorten it).
  static constexpr int kTerminalSessionWaitMs = 10000;
  void setTerminalWaitMs(int ms) { terminal_wait_ms_ = ms; }

 signals:
  void inputsChanged();
  void stateChanged();
  // A background launch became a session (its directory exists and its helper started it).
  void sessionStarted(const QString& sessionId, const QString& sessionDir);
  void launched(const QString& project, const QString& agent, const QString& mode);

 private:
  void setState(State s, const QString& message = {});
  void findSession();
  void onFinished(int code, QProcess::ExitStatus status);
  // A terminal launch: the terminal process and the session it should start are watched until
  // the session appears, the command ends, the terminal fails, or the wait is over.
  void watchTerminal();
  void onTerminalFinished(int code, QProcess::ExitStatus status);
  void settleTerminal(const QString& failure);
  QString terminalOutputTail() const;
  void releaseProcess(QProcess*& p);
  // `line`: what the CLI said ("" when it is in a terminal window, not here).
  void diagnose(int code, const QString& line);
  bool relaunch();
  QString last_mode_;

 public:
  // The engine's Inputs for request() in this app (its environment and resources).
  Result<Inputs> engineInputs() const;

 private:

  QString project_, agent_preset_, command_, profile_ = "default";
  QString net_mode_, extra_domains_, limits_, timeout_, publish_, host_ports_, terminal_, tier_;
  bool review_ = false;
  State state_ = Idle;
  QString message_;
  int exit_code_ = -1;
  QString fix_kind_, fix_label_, fix_target_;
  QString session_id_;
  QString output_file_;
  // The CLI's pid, kept: once it has exited, QProcess reports 0, and a session that ended before
  // the first look must still be matched to it.
  qint64 pid_ = 0;
  QProcess* process_ = nullptr;  // released, never killed, when the app quits (see ~Launcher)
  QTimer find_;                  // looks for the session the process became
  // The terminal of the last terminal launch (released like process_), what it printed, the
  // file its command's exit status goes to, the terminal's name, and when it started.
  QProcess* terminal_process_ = nullptr;
  QString terminal_output_, terminal_status_, terminal_name_;
  qint64 terminal_started_ms_ = 0;
  bool terminal_exited_ = false;
  int terminal_wait_ms_ = kTerminalSessionWaitMs;
  QTimer terminal_watch_;
  QStringList known_before_;     // session ids that existed before this launch
};

}  // namespace paddock::gui
