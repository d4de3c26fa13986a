// The user's projects and agents and the current choice of each, remembered in
// $XDG_CONFIG_HOME/paddock/gui.json (written atomically on every change). A gui.json that does
// not parse is reported and never overwritten, so a typo cannot cost the user their list.
#pragma once

#include <map>
#include <vector>

#include <QJsonObject>
#include <QVariantList>
#include <QVariantMap>

#include <QObject>
#include <QtQml/qqmlregistration.h>

#include "agents_model.h"
#include "projects_model.h"

// The app's settings, each declared once: property (QML and C++), setter, C++ type, its key in
// gui.json's "settings" object, and the value it has when gui.json does not hold one of that type.
// The members, accessors, setters, reading and writing are all made from this list.
//   terminal         the terminal emulator ("" = the first one found on PATH, Launcher)
//   default_agent    the agent chosen for a project added with none chosen ("" = the first found)
//   default_profile  the built-in profile launches use
//   close_to_tray    closing the window keeps the app in the tray
//   tray_notice_shown  the one-time "still running in the tray" notice was shown
//   linux_tier       the Linux sandbox tier every launch asks for: "namespaces", or "landlock"
//                    where user namespaces are unavailable (docs/capabilities.md)
#define PADDOCK_GUI_SETTINGS(X)                                                  \
  X(terminal, setTerminal, QString, "terminal", QString())                       \
  X(defaultAgent, setDefaultAgent, QString, "default_agent", QString())          \
  X(defaultProfile, setDefaultProfile, QString, "default_profile", "default")    \
  X(closeToTray, setCloseToTray, bool, "close_to_tray", true)                    \
  X(trayNoticeShown, setTrayNoticeShown, bool, "tray_notice_shown", false)       \
  X(linuxTier, setLinuxTier, QString, "linux_tier", "namespaces")

#define PADDOCK_GUI_SETTING_PROPERTY(name, setter, Type, key, fallback) \
  Q_PROPERTY(Type name READ name WRITE setter NOTIFY settingsChanged)
#define PADDOCK_GUI_SETTING_ACCESSORS(name, setter, Type, key, fallback) \
  Type name() const { return name##_; }                                  \
  void setter(const Type& v);
#define PADDOCK_GUI_SETTING_MEMBER(name, setter, Type, key, fallback) Type name##_ = Type(fallback);

namespace paddock::gui {

class Workspace : public QObject {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(paddock::gui::ProjectsModel* projects READ projects CONSTANT)
  Q_PROPERTY(paddock::gui::AgentsModel* agents READ agents CONSTANT)
  Q_PROPERTY(QString currentProject READ currentProject WRITE setCurrentProject NOTIFY currentChanged)
  Q_PROPERTY(QString currentAgent READ currentAgent WRITE setCurrentAgent NOTIFY currentChanged)
  Q_PROPERTY(QString currentAgentPreset READ currentAgentPreset NOTIFY currentChanged)
  // The current project's review choice (reviewOf).
  Q_PROPERTY(bool currentReview READ currentReview WRITE setCurrentReview NOTIFY reviewChanged)
  Q_PROPERTY(QString errorString READ errorString NOTIFY errorStringChanged)
  Q_PROPERTY(QString configFile READ configFile CONSTANT)
  // Settings (the Settings page), remembered in gui.json beside the projects: one property each,
  // from PADDOCK_GUI_SETTINGS (moc expands the macro).
  PADDOCK_GUI_SETTINGS(PADDOCK_GUI_SETTING_PROPERTY)
  // Opt-in: on writes $XDG_CONFIG_HOME/autostart/paddock.desktop, off removes it.
  Q_PROPERTY(bool autostart READ autostart WRITE setAutostart NOTIFY settingsChanged)
  Q_PROPERTY(QString autostartFile READ autostartFile CONSTANT)
  // The built-in profiles a launch may use (the engine's names, for the default profile's choice).
  Q_PROPERTY(QStringList profileNames READ profileNames CONSTANT)
  // project path -> the agent chosen for it (a binding's dependency: cards follow a change at once).
  Q_PROPERTY(QVariantMap projectAgents READ projectAgents NOTIFY currentChanged)
  // [{project, agent, mode, label}], newest first (the tray's "Launch again").
  Q_PROPERTY(QVariantList recentLaunches READ recentLaunches NOTIFY recentChanged)

 public:
  explicit Workspace(QObject* parent = nullptr);

  ProjectsModel* projects() { return &projects_; }
  AgentsModel* agents() { return &agents_; }
  QString currentProject() const { return current_project_; }
  void setCurrentProject(const QString& p);
  QString currentAgent() const { return current_agent_; }
  void setCurrentAgent(const QString& name);
  QString currentAgentPreset() const;
  QString errorString() const { return error_; }
  QString configFile() const { return file_; }

  // Accepts a path or a file: URL (FolderDialog, drag and drop); selects the project.
  Q_INVOKABLE bool addProject(const QString& path_or_url);
  Q_INVOKABLE void removeProject(int row);
  Q_INVOKABLE bool addCustomAgent(const QString& name, const QString& command);
  Q_INVOKABLE void removeCustomAgent(const QString& name);
  // Something a page could not do (the folder picker failed to load): shown where errors are.
  Q_INVOKABLE void reportError(const QString& message) { setError(message); }
  // The agent chosen for a project ("" = none chosen yet: the default agent).
  Q_INVOKABLE QString agentOf(const QString& project) const;
  QVariantMap projectAgents() const;
  // The project's "Review changes before they reach the project" (docs/review.md): on unless the
  // user turned it off for this project.
  Q_INVOKABLE bool reviewOf(const QString& project) const;
  Q_INVOKABLE void setReviewOf(const QString& project, bool on);
  bool currentReview() const { return reviewOf(current_project_); }
  void setCurrentReview(bool on) { setReviewOf(current_project_, on); }
  Q_INVOKABLE void recordLaunch(const QString& project, const QString& agent, const QString& mode);

  PADDOCK_GUI_SETTINGS(PADDOCK_GUI_SETTING_ACCESSORS)
  bool autostart() const { return autostart_; }
  void setAutostart(bool v);
  static QString autostartFile();
  static QStringList profileNames();
  QVariantList recentLaunches() const { return recent_; }

 signals:
  void currentChanged();
  void reviewChanged();
  void errorStringChanged();
  void settingsChanged();
  void recentChanged();

 private:
  void load();
  void save();
  void rebuildAgents(const std::vector<AgentEntry>& custom);
  void setError(const QString& e);

  QString file_;
  ProjectsModel projects_;
  AgentsModel agents_;
  std::vector<AgentEntry> custom_;
  QString current_project_;
  QString current_agent_;
  QString error_;
  bool writable_ = true;
  QJsonObject loaded_;  // gui.json as read: keys this version does not know are written back
  std::map<QString, QString> project_agents_;
  std::map<QString, bool> project_review_;
  PADDOCK_GUI_SETTINGS(PADDOCK_GUI_SETTING_MEMBER)
  bool autostart_ = false;
  QVariantList recent_;
};

}  // namespace paddock::gui
