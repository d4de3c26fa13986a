// `doctor` facts for the Settings page: runs `paddock-helper probe` (platform/probe.h: the same
// helper that enforces, so the list cannot disagree with enforcement) on a worker thread and
// flattens its JSON into rows.
#pragma once

#include <vector>

#include "status_list_model.h"

namespace paddock::gui {

class DoctorModel : public StatusListModel {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(QString helperPath READ helperPath WRITE setHelperPath NOTIFY helperPathChanged)
  // What keeps the namespace tier from running here, each with its cause and fix: the lines
  // `paddock doctor` prints as "cannot run" (the Linux backend's own words). Empty when it runs.
  Q_PROPERTY(QStringList refusals READ refusals NOTIFY countChanged)

 public:
  enum Role { NameRole = Qt::UserRole + 1, ValueRole };
  Q_ENUM(Role)

  explicit DoctorModel(QObject* parent = nullptr);
  ~DoctorModel() override;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  QString helperPath() const { return helper_; }
  void setHelperPath(const QString& path);
  QStringList refusals() const { return refusals_; }

  Q_INVOKABLE void refresh();

 signals:
  void helperPathChanged();

 private:
  struct Row {
    QString name;
    QString value;
  };
  QString helper_;
  std::vector<Row> rows_;
  QStringList refusals_;
  bool probing_ = false;
};

}  // namespace paddock::gui
