#include "warnings_model.h"

#include "engine/display_text.h"

namespace paddock::gui {

int WarningsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

QVariant WarningsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const auto& r = rows_[static_cast<size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
    case MessageRole: return r.message;
    case KindRole: return r.kind;
    case RuleRole: return r.rule;
    case SourceRole: return r.source;
    default: return {};
  }
}

QHash<int, QByteArray> WarningsModel::roleNames() const {
  return {{KindRole, "kind"}, {MessageRole, "message"}, {RuleRole, "rule"}, {SourceRole, "source"}};
}

void WarningsModel::setEvaluation(const Evaluation& e) {
  std::vector<Row> rows;
  // Taint first: it changes what the sandbox is worth.
  // Paths in these lines are names someone else may have chosen: shown escaped.
  auto shown = [](const std::string& s) { return QString::fromStdString(display_text(s)); };
  for (const auto& t : e.ir.taint) rows.push_back({"taint", shown(t), {}, {}});
  for (const auto& l : e.lint)
    rows.push_back({"lint", shown(l.message), QString::fromStdString(l.rule), shown(l.tier + (l.file.empty() ? "" : " " + l.file))});
  for (const auto& w : e.ir.warnings) rows.push_back({"warning", shown(w), {}, {}});
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
  emit countChanged();
  setStatus(ModelStatus::Ready);
}

}  // namespace paddock::gui
