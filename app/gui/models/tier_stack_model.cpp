#include "tier_stack_model.h"

#include "engine/display_text.h"

namespace paddock::gui {

int TierStackModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(layers_.size());
}

QString TierStackModel::signatureText(SignatureState s) {
  switch (s) {
    case SignatureState::kUnsigned: return "unsigned";
    case SignatureState::kVerified: return "verified";
    case SignatureState::kFailed: return "failed";
  }
  return {};
}

QString TierStackModel::approvalText(ApprovalState a) {
  switch (a) {
    case ApprovalState::kNotNeeded: return "not needed";
    case ApprovalState::kApproved: return "approved";
    case ApprovalState::kUnapproved: return "unapproved";
  }
  return {};
}

bool TierStackModel::editable(const LayerInfo& l) {
  return l.tier == "user-global" || l.tier == "repository" || l.tier == "repository-fragment" ||
         l.tier == "local-override" || l.tier == "cli-explicit-file";
}

QVariant TierStackModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const auto& l = layers_[static_cast<size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
    case TierRole: return QString::fromStdString(l.tier);
    case FileRole: return QString::fromStdString(l.file);
    case ExistsRole: return l.exists;
    case AppliesRole: return l.applies;
    case ConditionRole: return QString::fromStdString(display_text(l.condition));
    case SignatureRole: return signatureText(l.signature);
    case ImmutableRole: return l.immutable;
    case ApprovalRole: return approvalText(l.approval);
    case AddsRole: return QString::fromStdString(l.adds.empty() ? std::string() : l.adds.dump(2));
    case Sha256Role: return QString::fromStdString(l.sha256);
    case EditableRole: return editable(l);
    case ErrorRole: return !error_file_.isEmpty() && QString::fromStdString(l.file) == error_file_ ? error_text_ : QString();
    default: return {};
  }
}

QHash<int, QByteArray> TierStackModel::roleNames() const {
  return {{TierRole, "tier"}, {FileRole, "file"}, {ExistsRole, "exists"}, {AppliesRole, "applies"},
          {ConditionRole, "condition"}, {SignatureRole, "signature"}, {ImmutableRole, "immutable"},
          {ApprovalRole, "approval"}, {AddsRole, "adds"}, {Sha256Role, "sha256"},
          {EditableRole, "editable"}, {ErrorRole, "error"}};
}

void TierStackModel::setLayerError(const QString& file, const QString& error) {
  if (file == error_file_ && error == error_text_) return;
  error_file_ = file;
  error_text_ = error;
  if (!layers_.empty()) emit dataChanged(index(0), index(rowCount() - 1), {ErrorRole});
}

void TierStackModel::setLayers(std::vector<LayerInfo> layers) {
  error_file_.clear();
  error_text_.clear();
  const bool same_shape = layers.size() == layers_.size();
  if (same_shape) {
    // Same rows, new values: keep the delegates (no reset flicker while typing).
    layers_ = std::move(layers);
    if (!layers_.empty()) emit dataChanged(index(0), index(rowCount() - 1));
  } else {
    beginResetModel();
    layers_ = std::move(layers);
    endResetModel();
    emit countChanged();
  }
  setStatus(ModelStatus::Ready);
}

}  // namespace paddock::gui
