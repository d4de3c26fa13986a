// The Capabilities tab: every IR field × Linux / macOS / Windows — exact / partial / unsupported,
// what it needs and what is lost — from backends::capability_matrix(); rows the live IR requests
// are flagged, and the host OS column is named so the view can highlight it.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <QVariantMap>

#include "engine/plan.h"
#include "status_list_model.h"

namespace paddock::gui {

class CapabilityModel : public StatusListModel {
  Q_OBJECT
  QML_ELEMENT
  QML_UNCREATABLE("owned by PolicyComposer")
  Q_PROPERTY(QString hostOs READ hostOs CONSTANT)

 public:
  enum Role { FieldRole = Qt::UserRole + 1, LinuxRole, MacosRole, WindowsRole, RequestedRole };
  Q_ENUM(Role)

  using StatusListModel::StatusListModel;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  QString hostOs() const;

  struct Matrices {
    std::vector<FieldCapability> linux_caps, macos_caps, windows_caps;
  };
  void setMatrices(const Matrices& m, const std::set<std::string>& requested);
  void setRequested(const std::set<std::string>& requested);
  void setLoading() { setStatus(ModelStatus::Loading); }
  void setError(const QString& e) { setStatus(ModelStatus::Error, e); }

 private:
  struct Row {
    std::string field;
    QVariantMap cell[3];
    bool requested = false;
  };
  std::vector<Row> rows_;
};

}  // namespace paddock::gui
