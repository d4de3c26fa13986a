// The user's projects and agents and the current choice of each, remembered in
// $XDG_CONFIG_HOME/paddock/gui.json (written atomically on every change). A gui.json that does
// not parse is reported and never overwritten, so a typo cannot cost the user their list.
#pragma once

#include <vector>

#include <QObject>
#include <QtQml/qqmlregistration.h>

#include "agents_model.h"
#include "projects_model.h"

namespace paddock::gui {

class Workspace : public QObject {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(paddock::gui::ProjectsModel* projects READ projects CONSTANT)
  Q_PROPERTY(paddock::gui::AgentsModel* agents READ agents CONSTANT)
  Q_PROPERTY(QString currentProject READ currentProject WRITE setCurrentProject NOTIFY currentChanged)
  Q_PROPERTY(QString currentAgent READ currentAgent WRITE setCurrentAgent NOTIFY currentChanged)
  Q_PROPERTY(QString currentAgentPreset READ currentAgentPreset NOTIFY currentChanged)
  Q_PROPERTY(QString errorString READ errorString NOTIFY errorStringChanged)
  Q_PROPERTY(QString configFile READ configFile CONSTANT)

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
  Q_INVOKABLE void clearError() { setError({}); }

 signals:
  void currentChanged();
  void errorStringChanged();

 private:
  void load();
  void save();
  void setError(const QString& e);

  QString file_;
  ProjectsModel projects_;
  AgentsModel agents_;
  std::vector<AgentEntry> custom_;
  QString current_project_;
  QString current_agent_;
  QString error_;
  bool writable_ = true;
};

}  // namespace paddock::gui
