// The Warnings tab: IR warnings (dropped patterns, unapproved layers, ...), lint findings and
// taint, each with where it came from.
#pragma once

#include <vector>

#include "engine/engine.h"
#include "status_list_model.h"

namespace paddock::gui {

class WarningsModel : public StatusListModel {
  Q_OBJECT
  QML_ELEMENT
  QML_UNCREATABLE("owned by PolicyComposer")

 public:
  enum Role { KindRole = Qt::UserRole + 1, MessageRole, RuleRole, SourceRole };
  Q_ENUM(Role)

  using StatusListModel::StatusListModel;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  void setEvaluation(const Evaluation& e);
  void setLoading() { setStatus(ModelStatus::Loading); }
  void setError(const QString& e) { setStatus(ModelStatus::Error, e); }

 private:
  struct Row {
    QString kind;  // taint | lint | warning
    QString message;
    QString rule;
    QString source;
  };
  std::vector<Row> rows_;
};

}  // namespace paddock::gui
