#include "projects_model.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QUrl>

#include "app_paths.h"
#include "engine/context.h"
#include "engine/layer.h"
#include "engine/tiers.h"

namespace paddock::gui {

int ProjectsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(paths_.size());
}

QVariant ProjectsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const QString& p = paths_[index.row()];
  switch (role) {
    case Qt::DisplayRole:
    case PathRole: return p;
    case NameRole: return QFileInfo(p).fileName();
    case ExistsRole: return QFileInfo(p).isDir();
    case HasLayerRole: return QFileInfo::exists(QString::fromStdString(tier_file(kTierRepo, p.toStdString(), {})));
    default: return {};
  }
}

QHash<int, QByteArray> ProjectsModel::roleNames() const {
  return {{PathRole, "path"}, {NameRole, "name"}, {ExistsRole, "exists"}, {HasLayerRole, "hasLayer"}};
}

void ProjectsModel::setPaths(const QStringList& paths) {
  beginResetModel();
  paths_ = paths;
  endResetModel();
  emit countChanged();
}

QString ProjectsModel::canonicalProject(const QString& path_or_url, QString* error) {
  QString path = path_or_url;
  if (path.startsWith("file:")) path = QUrl(path).toLocalFile();
  const QFileInfo info(path);
  if (path.isEmpty() || !info.exists()) {
    *error = tr("%1 does not exist").arg(path);
    return {};
  }
  if (!info.isDir()) {
    *error = tr("%1 is not a folder; drop or pick the project's folder").arg(path);
    return {};
  }
  // A folder this user cannot list or enter cannot be a project: said now, in the words the
  // engine refuses it with, not later as a failure of some walk inside it.
  const QString canonical = info.canonicalFilePath();
  if (const std::error_code why = directory_read_error(QFile::encodeName(canonical).toStdString())) {
    *error = QString::fromStdString(
        unreadable_project_message(QFile::encodeName(canonical).toStdString(), why, AppPaths::environment()));
    error->front() = error->front().toUpper();
    return {};
  }
  return canonical;
}

int ProjectsModel::add(const QString& canonical) {
  if (int i = static_cast<int>(paths_.indexOf(canonical)); i >= 0) return i;
  const int row = static_cast<int>(paths_.size());
  beginInsertRows({}, row, row);
  paths_ << canonical;
  endInsertRows();
  emit countChanged();
  return row;
}

bool ProjectsModel::remove(int row) {
  if (row < 0 || row >= paths_.size()) return false;
  beginRemoveRows({}, row, row);
  paths_.removeAt(row);
  endRemoveRows();
  emit countChanged();
  return true;
}

}  // namespace paddock::gui
