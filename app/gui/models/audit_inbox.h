// The direct-mode audit's findings still waiting for the user (docs/audit.md), for the Sessions
// entry's badge, each project card's line on Home, each session's Audit tab, and the notification
// when a direct-mode session ends leaving something for a tool on this machine to run. A session
// that ended without its helper is audited here the first time the app sees it, as `paddock
// sessions` does. Loading and auditing run on a worker thread; a session is looked at again when
// it ends, until its audit is written, and when its Audit tab decided something.
#pragma once

#include <map>
#include <set>

#include <QObject>
#include <QString>
#include <QtQml/qqmlregistration.h>

#include "sessions_follower.h"

namespace paddock::gui {

class AuditInbox : public SessionsFollower {
  Q_OBJECT
  QML_ELEMENT
  // Findings waiting for a decision, in all, and the sessions they belong to.
  Q_PROPERTY(int count READ count NOTIFY changed)
  Q_PROPERTY(int sessionCount READ sessionCount NOTIFY changed)
  // Bumped at every change: a binding that calls pendingOf/projectLine depends on it.
  Q_PROPERTY(int revision READ revision NOTIFY changed)

 public:
  explicit AuditInbox(QObject* parent = nullptr);

  int count() const;
  int sessionCount() const;
  int revision() const { return revision_; }

  // Findings of the session still waiting for a decision (0 for one without findings).
  Q_INVOKABLE int pendingOf(const QString& dir) const;
  // The project's undecided findings in plain words ("" when there are none), and the newest
  // session holding some (where the card's line leads).
  Q_INVOKABLE QString projectLine(const QString& project) const;
  Q_INVOKABLE QString projectSession(const QString& project) const;
  // Looks at the session again (its Audit tab decided something).
  Q_INVOKABLE void recount(const QString& dir);

 signals:
  void changed();
  // A direct-mode session ended (or was found ended without its helper and audited now) leaving
  // `pending` findings for a tool on this machine to run.
  void findingsReady(const QString& id, const QString& dir, int pending);

 private:
  struct Count {
    int pending = 0;
    QString project;
    QString started;
  };
  void scan() override;
  void count_dir(const QString& dir, bool announce);

  std::map<QString, Count> counts_;  // ended sessions that wrote a root directly, by directory
  std::set<QString> seen_running_;
  std::set<QString> counting_;  // looks under way
  std::set<QString> again_;     // a look due once the one under way ends
  std::set<QString> plain_;     // ended sessions with nothing to audit: never looked at again
  std::map<QString, int> retries_;  // looks that found the audit not written yet, by directory
  int revision_ = 0;
};

}  // namespace paddock::gui
