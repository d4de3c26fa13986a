#include "workspace.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>

#include "app_paths.h"
#include "platform/atomic_file.h"

namespace paddock::gui {

Workspace::Workspace(QObject* parent) : QObject(parent), file_(AppPaths::guiConfigFile()) { load(); }

void Workspace::setError(const QString& e) {
  if (e == error_) return;
  error_ = e;
  emit errorStringChanged();
}

void Workspace::load() {
  QStringList paths;
  QFile f(file_);
  if (f.exists()) {
    QJsonParseError err{};
    const auto doc = f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll(), &err) : QJsonDocument();
    const QJsonObject o = doc.object();
    if (!doc.isObject() || o.value("version").toInt() != 1) {
      writable_ = false;
      const QString why = doc.isObject() ? tr("unknown version") : err.errorString();
      projects_.markReady(tr("%1 cannot be read (%2); fix or remove it — Paddock will not overwrite it")
                              .arg(file_, why));
      agents_.rebuild(QProcessEnvironment::systemEnvironment().value("PATH"), {});
      return;
    }
    for (const auto& p : o.value("projects").toArray()) paths << p.toObject().value("path").toString();
    for (const auto& a : o.value("custom_agents").toArray()) {
      const auto ao = a.toObject();
      custom_.push_back({ao.value("name").toString(), ao.value("command").toString(), "custom", {}, true});
    }
    current_project_ = o.value("current_project").toString();
    current_agent_ = o.value("current_agent").toString();
  }
  projects_.setPaths(paths);
  projects_.markReady();
  agents_.rebuild(QProcessEnvironment::systemEnvironment().value("PATH"), custom_);
  if (!paths.contains(current_project_)) current_project_ = paths.isEmpty() ? QString() : paths.first();
  if (agents_.indexOfName(current_agent_) < 0 && !agents_.entries().empty())
    current_agent_ = agents_.entries().front().name;
}

void Workspace::save() {
  if (!writable_) return;
  QJsonArray projects;
  for (const auto& p : projects_.paths()) projects.append(QJsonObject{{"path", p}});
  QJsonArray custom;
  for (const auto& c : custom_) custom.append(QJsonObject{{"name", c.name}, {"command", c.command}});
  const QJsonObject o{{"version", 1},
                      {"projects", projects},
                      {"current_project", current_project_},
                      {"current_agent", current_agent_},
                      {"custom_agents", custom}};
  const QByteArray bytes = QJsonDocument(o).toJson(QJsonDocument::Indented);
  const Status st = platform::write_file_atomic(
      file_.toStdString(), std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())),
      platform::WriteOptions{.mode = 0600, .keep_mode = true, .create_dirs = true});
  if (!st.ok()) setError(QString::fromStdString(st.error().message));
}

void Workspace::setCurrentProject(const QString& p) {
  if (p == current_project_) return;
  current_project_ = p;
  save();
  emit currentChanged();
}

void Workspace::setCurrentAgent(const QString& name) {
  if (name == current_agent_) return;
  current_agent_ = name;
  save();
  emit currentChanged();
}

QString Workspace::currentAgentPreset() const {
  return agents_.presetAt(agents_.indexOfName(current_agent_));
}

bool Workspace::addProject(const QString& path_or_url) {
  QString err;
  const QString canonical = ProjectsModel::canonicalProject(path_or_url, &err);
  if (canonical.isEmpty()) {
    setError(err);
    return false;
  }
  setError({});
  projects_.add(canonical);
  current_project_ = canonical;
  save();
  emit currentChanged();
  return true;
}

void Workspace::removeProject(int row) {
  if (row < 0 || row >= projects_.paths().size()) return;
  const bool was_current = projects_.paths().at(row) == current_project_;
  projects_.remove(row);
  if (was_current) current_project_ = projects_.paths().isEmpty() ? QString() : projects_.paths().first();
  save();
  emit currentChanged();
}

bool Workspace::addCustomAgent(const QString& name, const QString& command) {
  const QString n = name.trimmed(), c = command.trimmed();
  if (n.isEmpty() || c.isEmpty()) {
    setError(tr("a custom agent needs a name and a command"));
    return false;
  }
  if (agents_.indexOfName(n) >= 0) {
    setError(tr("an agent named '%1' already exists").arg(n));
    return false;
  }
  setError({});
  custom_.push_back({n, c, "custom", {}, true});
  agents_.rebuild(QProcessEnvironment::systemEnvironment().value("PATH"), custom_);
  current_agent_ = n;
  save();
  emit currentChanged();
  return true;
}

void Workspace::removeCustomAgent(const QString& name) {
  std::erase_if(custom_, [&](const AgentEntry& e) { return e.name == name; });
  agents_.rebuild(QProcessEnvironment::systemEnvironment().value("PATH"), custom_);
  if (agents_.indexOfName(current_agent_) < 0)
    current_agent_ = agents_.entries().empty() ? QString() : agents_.entries().front().name;
  save();
  emit currentChanged();
}

}  // namespace paddock::gui
