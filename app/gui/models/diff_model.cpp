#include "diff_model.h"

namespace paddock::gui {

int DiffModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

QVariant DiffModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const auto& r = rows_[static_cast<size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
    case FieldRole: return QString::fromStdString(r.field);
    case ValueRole: return QString::fromStdString(r.value);
    case AddedRole: return r.added;
    default: return {};
  }
}

QHash<int, QByteArray> DiffModel::roleNames() const {
  return {{FieldRole, "field"}, {ValueRole, "value"}, {AddedRole, "added"}};
}

void DiffModel::setDiff(std::vector<IrChange> rows, const QString& before, const QString& after,
                        const QString& baseline) {
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
  before_ = before;
  after_ = after;
  baseline_ = baseline;
  emit countChanged();
  emit changed();
  setStatus(ModelStatus::Ready);
}

}  // namespace paddock::gui
