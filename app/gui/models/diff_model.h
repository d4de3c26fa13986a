// The Diff tab: grants added/removed between the baseline IR (last saved) and the live one.
#pragma once

#include <vector>

#include "ir_diff.h"
#include "status_list_model.h"

namespace paddock::gui {

class DiffModel : public StatusListModel {
  Q_OBJECT
  QML_ELEMENT
  QML_UNCREATABLE("owned by PolicyComposer")
  Q_PROPERTY(QString hashBefore READ hashBefore NOTIFY changed)
  Q_PROPERTY(QString hashAfter READ hashAfter NOTIFY changed)
  Q_PROPERTY(QString baselineName READ baselineName NOTIFY changed)

 public:
  enum Role { FieldRole = Qt::UserRole + 1, ValueRole, AddedRole };
  Q_ENUM(Role)

  using StatusListModel::StatusListModel;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  QString hashBefore() const { return before_; }
  QString hashAfter() const { return after_; }
  QString baselineName() const { return baseline_; }
  const std::vector<IrChange>& changes() const { return rows_; }

  void setDiff(std::vector<IrChange> rows, const QString& before, const QString& after, const QString& baseline);
  void setLoading() { setStatus(ModelStatus::Loading); }
  void setError(const QString& e) { setStatus(ModelStatus::Error, e); }

 signals:
  void changed();

 private:
  std::vector<IrChange> rows_;
  QString before_, after_, baseline_;
};

}  // namespace paddock::gui
