#include "workspace.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>

#include "app_paths.h"
#include "engine/tiers.h"
#include "platform/atomic_file.h"

namespace paddock::gui {

Workspace::Workspace(QObject* parent) : QObject(parent), file_(AppPaths::guiConfigFile()) { load(); }

void Workspace::setError(const QString& e) {
  if (e == error_) return;
  error_ = e;
  emit errorStringChanged();
}

// The agent list from PATH; a broken installation (an agent preset that does not parse) is said
// where errors are, not shown as an empty list.
void Workspace::rebuildAgents(const std::vector<AgentEntry>& custom) {
  agents_.rebuild(QProcessEnvironment::systemEnvironment().value("PATH"), custom);
  if (agents_.status() == ModelStatus::Error) setError(agents_.errorString());
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
      rebuildAgents({});
      return;
    }
    loaded_ = o;
    for (const auto& p : o.value("projects").toArray()) {
      const QString path = p.toObject().value("path").toString();
      paths << path;
      if (const QString a = p.toObject().value("agent").toString(); !a.isEmpty()) project_agents_[path] = a;
      if (const QJsonValue r = p.toObject().value("review"); r.isBool()) project_review_[path] = r.toBool();
    }
    const QJsonObject st = o.value("settings").toObject();
    // A value of another type than the setting's reads as its fallback, which the next save
    // writes in its place (keys this version does not know are kept as they are).
#define PADDOCK_READ(name, setter, Type, key, fallback) \
  if (const QVariant v = st.value(key).toVariant(); v.metaType() == QMetaType::fromType<Type>()) name##_ = v.value<Type>();
    PADDOCK_GUI_SETTINGS(PADDOCK_READ)
#undef PADDOCK_READ
    autostart_ = QFile::exists(autostartFile());
    recent_ = o.value("recent_launches").toArray().toVariantList();
    for (const auto& a : o.value("custom_agents").toArray()) {
      const auto ao = a.toObject();
      custom_.push_back({ao.value("name").toString(), ao.value("command").toString(), "custom", {}, true});
    }
    current_project_ = o.value("current_project").toString();
    current_agent_ = o.value("current_agent").toString();
  }
  projects_.setPaths(paths);
  projects_.markReady();
  rebuildAgents(custom_);
  if (!paths.contains(current_project_)) current_project_ = paths.isEmpty() ? QString() : paths.first();
  if (agents_.indexOfName(current_agent_) < 0 && !agents_.entries().empty())
    current_agent_ = agents_.indexOfName(defaultAgent()) >= 0 ? defaultAgent() : agents_.entries().front().name;
}

void Workspace::save() {
  if (!writable_) return;
  QJsonArray projects;
  for (const auto& p : projects_.paths()) {
    QJsonObject entry{{"path", p}};
    if (auto it = project_agents_.find(p); it != project_agents_.end()) entry.insert("agent", it->second);
    entry.insert("review", reviewOf(p));
    projects.append(entry);
  }
  QJsonArray custom;
  for (const auto& c : custom_) custom.append(QJsonObject{{"name", c.name}, {"command", c.command}});
  QJsonObject o = loaded_;  // what a newer version wrote survives an older one's save
  o.insert("version", 1);
  o.insert("projects", projects);
  o.insert("current_project", current_project_);
  o.insert("current_agent", current_agent_);
  o.insert("custom_agents", custom);
  QJsonObject settings = o.value("settings").toObject();
#define PADDOCK_WRITE(name, setter, Type, key, fallback) settings.insert(key, QJsonValue::fromVariant(QVariant::fromValue(name##_)));
  PADDOCK_GUI_SETTINGS(PADDOCK_WRITE)
#undef PADDOCK_WRITE
  o.insert("settings", settings);
  o.insert("recent_launches", QJsonArray::fromVariantList(recent_));
  const QByteArray bytes = QJsonDocument(o).toJson(QJsonDocument::Indented);
  const Status st = platform::write_file_atomic(
      file_.toStdString(), std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())),
      platform::WriteOptions{.mode = 0600, .keep_mode = true, .create_dirs = true});
  if (!st.ok()) setError(QString::fromStdString(st.error().message));
}

void Workspace::setCurrentProject(const QString& p) {
  if (p == current_project_) return;
  current_project_ = p;
  if (const QString a = agentOf(p); !a.isEmpty() && agents_.indexOfName(a) >= 0) current_agent_ = a;
  save();
  emit currentChanged();
  emit reviewChanged();
}

void Workspace::setCurrentAgent(const QString& name) {
  if (name == current_agent_) return;
  current_agent_ = name;
  if (!current_project_.isEmpty()) project_agents_[current_project_] = name;
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
  if (const QString a = agentOf(canonical); !a.isEmpty() && agents_.indexOfName(a) >= 0) current_agent_ = a;
  else if (agents_.indexOfName(defaultAgent()) >= 0) current_agent_ = defaultAgent();
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
  rebuildAgents(custom_);
  current_agent_ = n;
  save();
  emit currentChanged();
  return true;
}

void Workspace::removeCustomAgent(const QString& name) {
  std::erase_if(custom_, [&](const AgentEntry& e) { return e.name == name; });
  rebuildAgents(custom_);
  if (agents_.indexOfName(current_agent_) < 0)
    current_agent_ = agents_.entries().empty() ? QString() : agents_.entries().front().name;
  save();
  emit currentChanged();
}

bool Workspace::reviewOf(const QString& project) const {
  auto it = project_review_.find(project);
  return it == project_review_.end() || it->second;
}

void Workspace::setReviewOf(const QString& project, bool on) {
  if (project.isEmpty() || reviewOf(project) == on) return;
  project_review_[project] = on;
  save();
  emit reviewChanged();
}

QString Workspace::agentOf(const QString& project) const {
  auto it = project_agents_.find(project);
  return it == project_agents_.end() ? QString() : it->second;
}

QVariantMap Workspace::projectAgents() const {
  QVariantMap out;
  for (const auto& [project, agent] : project_agents_) out.insert(project, agent);
  return out;
}

void Workspace::recordLaunch(const QString& project, const QString& agent, const QString& mode) {
  const QString label = QFileInfo(project).fileName() + " · " + agent + (mode == "terminal" ? tr(" (terminal)") : QString());
  const QVariantMap entry{{"project", project}, {"agent", agent}, {"mode", mode}, {"label", label}};
  for (int i = 0; i < recent_.size(); ++i)
    if (recent_.at(i).toMap().value("label") == label) {
      recent_.removeAt(i);
      break;
    }
  recent_.prepend(entry);
  while (recent_.size() > 8) recent_.removeLast();
  save();
  emit recentChanged();
}

#define PADDOCK_SET(name, setter, Type, key, fallback) \
  void Workspace::setter(const Type& v) {              \
    if (v == name##_) return;                          \
    name##_ = v;                                       \
    save();                                            \
    emit settingsChanged();                            \
  }
PADDOCK_GUI_SETTINGS(PADDOCK_SET)
#undef PADDOCK_SET

QStringList Workspace::profileNames() {
  QStringList out;
  for (const auto& n : profile_names()) out << QString::fromStdString(n);
  return out;
}

QString Workspace::autostartFile() {
  const QString config = AppPaths::configDir();  // $XDG_CONFIG_HOME/paddock
  return config.isEmpty() ? QString() : QFileInfo(config).path() + "/autostart/paddock.desktop";
}

void Workspace::setAutostart(bool on) {
  if (on == autostart_) return;
  const QString file = autostartFile();
  if (file.isEmpty()) {
    setError(tr("no config directory (HOME is not set), so there is no autostart directory"));
    return;
  }
  if (on) {
    // Written only because the user turned it on (Settings); the entry starts this executable.
    const QByteArray entry = QString("[Desktop Entry]\nType=Application\nName=Paddock\n"
                                     "Comment=Sandbox manager for AI coding agents (tray)\n"
                                     "Exec=%1\nIcon=paddock\nTerminal=false\nX-GNOME-Autostart-enabled=true\n")
                                 .arg(QCoreApplication::applicationFilePath())
                                 .toUtf8();
    const Status st = platform::write_file_atomic(
        file.toStdString(), std::string_view(entry.constData(), static_cast<std::size_t>(entry.size())),
        platform::WriteOptions{.mode = 0644, .keep_mode = false, .create_dirs = true});
    if (!st.ok()) {
      setError(QString::fromStdString(st.error().message));
      return;
    }
  } else if (QFile::exists(file) && !QFile::remove(file)) {
    setError(tr("cannot remove %1").arg(file));
    return;
  }
  autostart_ = on;
  emit settingsChanged();
}

}  // namespace paddock::gui
