// The tier stack for (project, agent) as cards, weakest tier first (docs/policy-layers.md): source
// file, applies or not and the condition that decided, signature, immutable lock, approval, and
// the error of the layer that does not evaluate (shown on its card, the others stay).
#pragma once

#include <vector>

#include "engine/engine.h"
#include "status_list_model.h"

namespace paddock::gui {

class TierStackModel : public StatusListModel {
  Q_OBJECT
  QML_ELEMENT
  QML_UNCREATABLE("owned by PolicyComposer")

 public:
  enum Role { TierRole = Qt::UserRole + 1, FileRole, ExistsRole, AppliesRole, ConditionRole,
              SignatureRole, ImmutableRole, ApprovalRole, AddsRole, Sha256Role, EditableRole, ErrorRole };
  Q_ENUM(Role)

  using StatusListModel::StatusListModel;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  // New values for the cards; every card's error is cleared.
  void setLayers(std::vector<LayerInfo> layers);
  // The card of `file` shows `error` (any other card's error is cleared); "" clears them all.
  void setLayerError(const QString& file, const QString& error);
  void setLoading() { setStatus(ModelStatus::Loading); }
  void setError(const QString& e) { setStatus(ModelStatus::Error, e); }
  const std::vector<LayerInfo>& layers() const { return layers_; }

  static QString signatureText(SignatureState s);
  static QString approvalText(ApprovalState a);
  // Layers the user edits from the GUI (files they own), not built-ins or CLI flags.
  static bool editable(const LayerInfo& l);

 private:
  std::vector<LayerInfo> layers_;
  QString error_file_, error_text_;
};

}  // namespace paddock::gui
