// Project folders the user added (by button or drag and drop), in the order added.
#pragma once

#include <QStringList>

#include "status_list_model.h"

namespace paddock::gui {

class ProjectsModel : public StatusListModel {
  Q_OBJECT
  QML_ELEMENT
  QML_UNCREATABLE("owned by Workspace")

 public:
  enum Role { PathRole = Qt::UserRole + 1, NameRole, ExistsRole, HasLayerRole };
  Q_ENUM(Role)

  using StatusListModel::StatusListModel;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  const QStringList& paths() const { return paths_; }
  void setPaths(const QStringList& paths);
  // Canonical directory, or "" with `error` set (not a directory, unreadable).
  static QString canonicalProject(const QString& path_or_url, QString* error);
  int add(const QString& canonical);  // returns the row
  bool remove(int row);
  Q_INVOKABLE QString pathAt(int row) const { return row >= 0 && row < paths_.size() ? paths_.at(row) : QString(); }
  Q_INVOKABLE int indexOf(const QString& path) const { return static_cast<int>(paths_.indexOf(path)); }
  void markReady(const QString& error = {}) {
    setStatus(error.isEmpty() ? ModelStatus::Ready : ModelStatus::Error, error);
  }

 private:
  QStringList paths_;
};

}  // namespace paddock::gui
