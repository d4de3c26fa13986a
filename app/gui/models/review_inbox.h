// The sessions that hold changes for review (docs/review.md), for the Sessions entry's count,
// each session row's "N to review", and the notification "N changes to review" when a
// review-mode session ends. Counts are made on a worker thread from the same change set as
// `paddock review`; a session is counted again when it ends and when its Review tab acts on it.
#pragma once

#include <map>
#include <set>

#include <QObject>
#include <QString>
#include <QtQml/qqmlregistration.h>

#include "sessions_follower.h"

namespace paddock::gui {

class ReviewInbox : public SessionsFollower {
  Q_OBJECT
  QML_ELEMENT
  // Sessions that ended and still hold changes, and how many changes they hold in all.
  Q_PROPERTY(int sessionCount READ sessionCount NOTIFY changed)
  Q_PROPERTY(int count READ count NOTIFY changed)

 public:
  explicit ReviewInbox(QObject* parent = nullptr);

  int sessionCount() const;
  int count() const;

  // Changes the session holds for review (0 for a session without review or without changes).
  Q_INVOKABLE int pendingOf(const QString& dir) const;
  Q_INVOKABLE int flaggedOf(const QString& dir) const;
  // Counts the session again (its Review tab applied or discarded something).
  Q_INVOKABLE void recount(const QString& dir);

 signals:
  void changed();
  // A review-mode session this inbox saw running has ended holding `count` changes.
  void reviewReady(const QString& id, const QString& dir, int count, int flagged);

 private:
  struct Count {
    int pending = 0, flagged = 0;
    bool running = false;
  };
  void scan() override;
  void count_dir(const QString& dir, bool running, bool announce);

  std::map<QString, Count> counts_;   // review-mode sessions, by directory
  std::set<QString> seen_running_;    // sessions this inbox saw running
  struct Again {
    bool pending = false, announce = false;
  };
  std::map<QString, Again> counting_;  // counts under way, and whether another is due after them
  std::set<QString> plain_;  // ended sessions that ran without review: never looked at again
};

}  // namespace paddock::gui
