#include "layer_document.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include "app_paths.h"
#include "engine/builtin_lists.h"
#include "engine/layer.h"
#include "engine/tiers.h"
#include "platform/atomic_file.h"
#include "yaml_text_edit.h"

namespace paddock::gui {
namespace {

constexpr int kUndoDepth = 500;

std::vector<std::string> to_std(const QStringList& l) {
  std::vector<std::string> out;
  for (const auto& s : l) out.push_back(s.toStdString());
  return out;
}

}  // namespace

LayerDocument::LayerDocument(QObject* parent) : QObject(parent) {
  // An atomic save elsewhere replaces the file (a new inode): the directory says so, and the
  // file is watched again under its name.
  connect(&watcher_, &QFileSystemWatcher::fileChanged, this, [this] { checkDisk(); });
  connect(&watcher_, &QFileSystemWatcher::directoryChanged, this, [this] {
    watch();
    checkDisk();
  });
}

void LayerDocument::watch() {
  if (path_.isEmpty()) return;
  const QString dir = QFileInfo(path_).absolutePath();
  if (!watcher_.directories().contains(dir) && QFileInfo(dir).isDir()) watcher_.addPath(dir);
  if (!watcher_.files().contains(path_) && QFileInfo::exists(path_)) watcher_.addPath(path_);
}

bool LayerDocument::readDisk(Disk& out) const {
  out = {};
  QFileInfo info(path_);
  if (!info.exists() && !info.isSymLink()) return true;
  QFile f(path_);
  if (!f.open(QIODevice::ReadOnly)) return false;
  out.exists = true;
  out.bytes = f.readAll();
  return true;
}

void LayerDocument::setDiskState(bool conflict, const QString& notice) {
  if (conflict == conflict_ && notice == notice_) return;
  conflict_ = conflict;
  notice_ = notice;
  emit diskStateChanged();
}

bool LayerDocument::checkDisk() {
  if (path_.isEmpty()) return true;
  Disk now;
  if (!readDisk(now)) return false;  // unreadable for a moment: the next change says more
  if (now == disk_) {
    if (conflict_) setDiskState(false, {});  // back to what was loaded (an undo elsewhere)
    return true;
  }
  if (!dirty()) {
    const QString file = QFileInfo(path_).fileName();
    const bool gone = !now.exists;
    reload();
    setDiskState(false, gone ? tr("%1 was removed on disk; this is a new, unsaved layer now").arg(file)
                             : tr("%1 changed on disk and was reloaded").arg(file));
    return false;
  }
  setDiskState(true, tr("%1 changed on disk since you opened it. Your unsaved edits are not saved over it: "
                        "reload to see the file as it is now (your edits here are dropped), then make them again.")
                         .arg(QFileInfo(path_).fileName()));
  return false;
}

bool LayerDocument::reload() {
  if (path_.isEmpty()) return false;
  const QString path = path_, tier = tier_;
  return open(path, tier);
}

QString LayerDocument::newLayerTemplate(const QString& kind) {
  const bool local = kind == "local";
  return QString(
             "version: 1\n"
             "metadata:\n"
             "  name: %1\n"
             "  description: %2\n"
             "# Keys the form does not show can be added here; the form keeps them.\n"
             "filesystem:\n"
             "  allow_write: []\n")
      .arg(local ? "local" : "repository",
           local ? "my own overrides for this checkout (not committed)"
                 : "policy shipped with this repository");
}

void LayerDocument::setError(const QString& e) {
  if (e == error_) return;
  error_ = e;
  emit errorStringChanged();
}

void LayerDocument::replaceText(const QString& text) {
  if (text == text_) return;
  if (!conflict_) setDiskState(false, {});  // a notice about the last reload is read by now
  undo_.append(text_);
  if (undo_.size() > kUndoDepth) undo_.removeFirst();
  text_ = text;
  ++revision_;
  emit textChanged();
}

void LayerDocument::setText(const QString& text) {
  setError({});
  replaceText(text);
}

bool LayerDocument::open(const QString& path, const QString& tier) {
  QString content;
  Disk disk;
  QFileInfo info(path);
  if (info.exists() || info.isSymLink()) {
    if (info.isSymLink()) {
      setError(tr("%1 is a symlink; a policy file must not be one").arg(path));
      return false;
    }
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
      setError(tr("cannot read %1: %2").arg(path, f.errorString()));
      return false;
    }
    disk.exists = true;
    disk.bytes = f.readAll();
    content = QString::fromUtf8(disk.bytes);
  } else {
    content = newLayerTemplate(tier == "local-override" ? "local" : "repository");
  }
  if (path != path_ && !watcher_.files().isEmpty()) watcher_.removePaths(watcher_.files());
  if (path != path_ && !watcher_.directories().isEmpty()) watcher_.removePaths(watcher_.directories());
  path_ = path;
  tier_ = tier;
  text_ = content;
  saved_ = disk.exists ? content : QString();
  exists_ = disk.exists;
  disk_ = disk;
  undo_.clear();
  ++revision_;
  setError({});
  setDiskState(false, {});
  watch();
  emit pathChanged();
  emit savedChanged();
  emit textChanged();
  return true;
}

bool LayerDocument::openExisting(const QString& path, const QString& tier) {
  return QFileInfo::exists(path) && open(path, tier);
}

bool LayerDocument::createInProject(const QString& project, const QString& kind) {
  if (kind != "repository" && kind != "local") {
    setError(tr("unknown layer kind '%1' (repository or local)").arg(kind));
    return false;
  }
  return open(projectFile(project, kind), kind == "local" ? kTierLocal : kTierRepo);
}

QString LayerDocument::projectFile(const QString& project, const QString& kind) const {
  const char* tier = kind == "local" ? kTierLocal : kind == "repository" ? kTierRepo : nullptr;
  if (!tier) return {};
  return QString::fromStdString(project.isEmpty() ? tier_file_name(tier) : tier_file(tier, project.toStdString(), {}));
}

QVariantList LayerDocument::denyLists() const {
  QVariantList out;
  const std::string resources = AppPaths::resourcesDir().toStdString();
  for (const auto& name : deny_list_names()) {
    auto l = load_builtin_list(resources, name);
    out << QVariantMap{{"name", QString::fromStdString(name)},
                       {"title", QString::fromStdString(l.ok() ? l->title : name)}};
  }
  return out;
}

bool LayerDocument::openExistingInProject(const QString& project, const QString& kind) {
  const QString file = projectFile(project, kind);
  return !project.isEmpty() && !file.isEmpty() && openExisting(file, kind == "local" ? kTierLocal : kTierRepo);
}

void LayerDocument::close() {
  if (!watcher_.files().isEmpty()) watcher_.removePaths(watcher_.files());
  if (!watcher_.directories().isEmpty()) watcher_.removePaths(watcher_.directories());
  disk_ = {};
  setDiskState(false, {});
  path_.clear();
  tier_.clear();
  text_.clear();
  saved_.clear();
  exists_ = false;
  undo_.clear();
  ++revision_;
  setError({});
  emit pathChanged();
  emit savedChanged();
  emit textChanged();
}

bool LayerDocument::save() {
  if (path_.isEmpty()) return false;
  // Never over a file that changed since it was loaded: those bytes are someone's newer work
  // (a fix saved from the violation inbox, an edit in another editor).
  Disk now;
  if (!readDisk(now)) {
    setError(tr("cannot read %1 to check it before saving; nothing was saved").arg(path_));
    return false;
  }
  if (!(now == disk_)) {
    checkDisk();  // says so (and reloads, when there is nothing unsaved to lose)
    setError(tr("%1 changed on disk since it was opened here; nothing was saved").arg(path_));
    return false;
  }
  // A new policy file gets the usual 0644 (and its .paddock/ the usual directory mode); an
  // existing one keeps its own mode. Written whole or not at all, never through a symlink.
  const QString dir = QFileInfo(path_).absolutePath();
  if (!QDir().mkpath(dir)) {
    setError(tr("cannot create %1").arg(dir));
    return false;
  }
  const QByteArray bytes = text_.toUtf8();
  const Status st = platform::write_file_atomic(
      QFile::encodeName(path_).toStdString(),
      std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())),
      platform::WriteOptions{.mode = 0644, .keep_mode = true});
  if (!st.ok()) {
    setError(QString::fromStdString(st.error().message));
    return false;
  }
  saved_ = text_;
  exists_ = true;
  disk_ = Disk{true, bytes};
  setError({});
  setDiskState(false, {});
  watch();
  emit savedChanged();
  emit textChanged();  // dirty changed
  emit saved(path_);
  return true;
}

void LayerDocument::undo() {
  if (undo_.isEmpty()) return;
  text_ = undo_.takeLast();
  ++revision_;
  setError({});
  emit textChanged();
}

void LayerDocument::revert() {
  if (!dirty()) return;
  replaceText(exists_ ? saved_ : newLayerTemplate(tier_ == "local-override" ? "local" : "repository"));
}

QStringList LayerDocument::list(const QString& section, const QString& key) const {
  auto r = read_yaml_sequence(text_.toStdString(), section.toStdString(), key.toStdString());
  QStringList out;
  if (r.ok())
    for (const auto& s : *r) out << QString::fromStdString(s);
  return out;
}

bool LayerDocument::setList(const QString& section, const QString& key, const QStringList& values) {
  auto r = set_yaml_sequence(text_.toStdString(), section.toStdString(), key.toStdString(), to_std(values));
  if (!r.ok()) {
    setError(QString::fromStdString(r.error().message));
    return false;
  }
  setError({});
  replaceText(QString::fromStdString(*r));
  return true;
}

bool LayerDocument::addItem(const QString& section, const QString& key, const QString& value) {
  const QString v = value.trimmed();
  if (v.isEmpty()) return false;
  QStringList l = list(section, key);
  if (l.contains(v)) return true;
  l << v;
  return setList(section, key, l);
}

bool LayerDocument::removeItem(const QString& section, const QString& key, int index) {
  QStringList l = list(section, key);
  if (index < 0 || index >= l.size()) return false;
  l.removeAt(index);
  return setList(section, key, l);
}

QString LayerDocument::scalar(const QString& section, const QString& key) const {
  auto r = read_yaml_scalar(text_.toStdString(), section.toStdString(), key.toStdString());
  return r.ok() ? QString::fromStdString(*r) : QString();
}

bool LayerDocument::setScalar(const QString& section, const QString& key, const QString& value) {
  auto r = set_yaml_scalar(text_.toStdString(), section.toStdString(), key.toStdString(), value.trimmed().toStdString());
  if (!r.ok()) {
    setError(QString::fromStdString(r.error().message));
    return false;
  }
  setError({});
  replaceText(QString::fromStdString(*r));
  return true;
}

}  // namespace paddock::gui
