// The Capabilities tab: every IR field × every backend (backends::all_backends(): Linux, macOS,
// Windows, OCI, Kubernetes) — exact / partial / unsupported, what it needs and what is lost — from
// backends::capability_matrix(); rows the live IR requests are flagged, and the host OS column is
// named so the view can highlight it.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <QStringList>
#include <QVariantList>
#include <QVariantMap>

#include "engine/plan.h"
#include "status_list_model.h"

namespace paddock::gui {

class CapabilityModel : public StatusListModel {
  Q_OBJECT
  QML_ELEMENT
  QML_UNCREATABLE("owned by PolicyComposer")
  Q_PROPERTY(QString hostOs READ hostOs CONSTANT)
  // The columns, in backends::all_backends() order; each row's "cells" has one entry per column.
  Q_PROPERTY(QStringList backends READ backends CONSTANT)

 public:
  enum Role { FieldRole = Qt::UserRole + 1, CellsRole, RequestedRole };
  Q_ENUM(Role)

  using StatusListModel::StatusListModel;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  QString hostOs() const;
  QStringList backends() const;

  // One matrix per backend, in backends::all_backends() order.
  using Matrices = std::vector<std::vector<FieldCapability>>;
  void setMatrices(const Matrices& m, const std::set<std::string>& requested);
  void setRequested(const std::set<std::string>& requested);
  void setLoading() { setStatus(ModelStatus::Loading); }
  void setError(const QString& e) { setStatus(ModelStatus::Error, e); }

 private:
  struct Row {
    std::string field;
    QVariantList cells;
    bool requested = false;
  };
  std::vector<Row> rows_;
};

}  // namespace paddock::gui
