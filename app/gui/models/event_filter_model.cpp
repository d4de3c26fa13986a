#include "event_filter_model.h"

#include "session_monitor.h"

namespace paddock::gui {

EventFilterModel::EventFilterModel(QObject* parent) : QSortFilterProxyModel(parent) {
  connect(this, &QAbstractItemModel::rowsInserted, this, &EventFilterModel::countChanged);
  connect(this, &QAbstractItemModel::rowsRemoved, this, &EventFilterModel::countChanged);
  connect(this, &QAbstractItemModel::modelReset, this, &EventFilterModel::countChanged);
}

void EventFilterModel::setSource(QAbstractItemModel* m) {
  if (m == sourceModel()) return;
  setSourceModel(m);
  emit changed();
  emit countChanged();
}

void EventFilterModel::refilter() {
  invalidateFilter();
  emit changed();
  emit countChanged();
}

void EventFilterModel::setNetworkOnly(bool on) {
  if (on == network_only_) return;
  network_only_ = on;
  refilter();
}

void EventFilterModel::setDecision(const QString& d) {
  if (d == decision_) return;
  decision_ = d;
  refilter();
}

void EventFilterModel::setSearch(const QString& s) {
  if (s == search_) return;
  search_ = s;
  refilter();
}

bool EventFilterModel::filterAcceptsRow(int row, const QModelIndex& parent) const {
  const QAbstractItemModel* m = sourceModel();
  if (!m) return false;
  const QModelIndex i = m->index(row, 0, parent);
  const QString kind = i.data(SessionMonitor::KindRole).toString();
  if (network_only_ && kind != "net_request" && kind != "dns_resolved" && kind != "net_egress" && kind != "ask" &&
      kind != "credential_request")
    return false;
  if (decision_ != "all") {
    const QString d = i.data(SessionMonitor::DecisionRole).toString();
    if ((kind != "net_request" && kind != "credential_request") || d != decision_) return false;
  }
  if (!search_.isEmpty()) {
    for (int role : {SessionMonitor::HostRole, SessionMonitor::RuleRole, SessionMonitor::TextRole,
                     SessionMonitor::IpRole, SessionMonitor::KindRole})
      if (i.data(role).toString().contains(search_, Qt::CaseInsensitive)) return true;
    return false;
  }
  return true;
}

}  // namespace paddock::gui
