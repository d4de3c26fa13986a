// The plain-words summary of the effective policy (policy_summary.h) as rows for QML: section,
// label, text, and the line's "why": in words (decided) and the engineer's detail (tier, file,
// rule).
#pragma once

#include <vector>

#include "policy_summary.h"
#include "status_list_model.h"

namespace paddock::gui {

class SummaryModel : public StatusListModel {
  Q_OBJECT
  QML_ELEMENT
  QML_UNCREATABLE("owned by PolicyComposer")
  // The Enforcement line's words and whether it warns (shown on its own under the summary).
  Q_PROPERTY(QString enforcement READ enforcement NOTIFY countChanged)
  Q_PROPERTY(bool enforcementWarns READ enforcementWarns NOTIFY countChanged)
  // The engineer's detail behind the Enforcement line (each partly enforced row and its loss).
  Q_PROPERTY(QString enforcementDetail READ enforcementDetail NOTIFY countChanged)

 public:
  enum Role { SectionRole = Qt::UserRole + 1, LabelRole, TextRole, TierRole, FileRole, RuleRole, WarnRole,
              SubjectRole, DecidedRole, DetailRole };
  Q_ENUM(Role)

  using StatusListModel::StatusListModel;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  void setLines(std::vector<SummaryLine> lines);
  void setLoading() { setStatus(ModelStatus::Loading); }
  void setError(const QString& e);
  const std::vector<SummaryLine>& lines() const { return rows_; }
  QString enforcement() const;
  bool enforcementWarns() const;
  QString enforcementDetail() const;
  // The project card's line (card_line): "writes this folder · 3 domains · secrets hidden".
  Q_INVOKABLE QString cardLine(const QString& project) const;
  // Every line as "Section · Label: text" (tests, and the text copied with Copy).
  Q_INVOKABLE QString asText() const;
  Q_INVOKABLE QString labelAt(int row) const {
    return row >= 0 && row < rowCount() ? QString::fromStdString(rows_[static_cast<size_t>(row)].label) : QString();
  }
  Q_INVOKABLE QString sectionAt(int row) const {
    return row >= 0 && row < rowCount() ? QString::fromStdString(rows_[static_cast<size_t>(row)].section) : QString();
  }

 private:
  std::vector<SummaryLine> rows_;
};

}  // namespace paddock::gui
