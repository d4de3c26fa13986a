// A filtered view of a session's log (SessionMonitor): the Network tab shows the broker's rows
// only (net_request, dns_resolved, net_egress, ask), by decision, matching a search text.
#pragma once

#include <QSortFilterProxyModel>
#include <QtQml/qqmlregistration.h>

namespace paddock::gui {

class EventFilterModel : public QSortFilterProxyModel {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(QAbstractItemModel* source READ sourceModel WRITE setSource NOTIFY changed)
  Q_PROPERTY(bool networkOnly READ networkOnly WRITE setNetworkOnly NOTIFY changed)
  // all | allow | deny
  Q_PROPERTY(QString decision READ decision WRITE setDecision NOTIFY changed)
  Q_PROPERTY(QString search READ search WRITE setSearch NOTIFY changed)
  Q_PROPERTY(int count READ count NOTIFY countChanged)

 public:
  explicit EventFilterModel(QObject* parent = nullptr);

  void setSource(QAbstractItemModel* m);
  bool networkOnly() const { return network_only_; }
  void setNetworkOnly(bool on);
  QString decision() const { return decision_; }
  void setDecision(const QString& d);
  QString search() const { return search_; }
  void setSearch(const QString& s);
  int count() const { return rowCount(); }

 signals:
  void changed();
  void countChanged();

 protected:
  bool filterAcceptsRow(int row, const QModelIndex& parent) const override;

 private:
  void refilter();
  bool network_only_ = false;
  QString decision_ = "all";
  QString search_;
};

}  // namespace paddock::gui
