#include "capability_model.h"

#include <map>

#include "backends/backend.h"

namespace paddock::gui {
namespace {

QVariantMap cell(const FieldCapability& c) {
  return {{"support", to_string(c.support)}, {"needs", to_string(c.needs)},
          {"loss", QString::fromStdString(c.loss)}, {"mechanism", QString::fromStdString(c.mechanism)}};
}

// "egress.mode=allowlist" is requested when the IR requests "egress.mode=allowlist" or its base.
bool is_requested(const std::string& field, const std::set<std::string>& requested) {
  return requested.count(field) > 0;
}

}  // namespace

int CapabilityModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

QString CapabilityModel::hostOs() const { return backends::to_string(backends::host_backend()); }

QStringList CapabilityModel::backends() const {
  QStringList out;
  for (backends::BackendId b : backends::all_backends()) out << backends::to_string(b);
  return out;
}

QVariant CapabilityModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const auto& r = rows_[static_cast<size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
    case FieldRole: return QString::fromStdString(r.field);
    case CellsRole: return r.cells;
    case RequestedRole: return r.requested;
    default: return {};
  }
}

QHash<int, QByteArray> CapabilityModel::roleNames() const {
  return {{FieldRole, "field"}, {CellsRole, "cells"}, {RequestedRole, "requested"}};
}

void CapabilityModel::setMatrices(const Matrices& m, const std::set<std::string>& requested) {
  std::vector<Row> rows;
  std::map<std::string, std::size_t> at;
  const QVariantMap missing{{"support", "unsupported"}, {"needs", "none"},
                            {"loss", tr("not in this backend's matrix")}, {"mechanism", ""}};
  const qsizetype columns = backends().size();
  for (std::size_t col = 0; col < m.size() && col < static_cast<std::size_t>(columns); ++col)
    for (const auto& c : m[col]) {
      auto it = at.find(c.field);
      if (it == at.end()) {
        it = at.emplace(c.field, rows.size()).first;
        Row r;
        r.field = c.field;
        for (qsizetype i = 0; i < columns; ++i) r.cells.append(missing);
        rows.push_back(r);
      }
      rows[it->second].cells[static_cast<qsizetype>(col)] = cell(c);
    }
  for (auto& r : rows) r.requested = is_requested(r.field, requested);
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
  emit countChanged();
  setStatus(ModelStatus::Ready);
}

void CapabilityModel::setRequested(const std::set<std::string>& requested) {
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    const bool r = is_requested(rows_[i].field, requested);
    if (r == rows_[i].requested) continue;
    rows_[i].requested = r;
    emit dataChanged(index(static_cast<int>(i)), index(static_cast<int>(i)), {RequestedRole});
  }
}

}  // namespace paddock::gui
