// The one-line summary on every project card on Home ("writes this folder · 3 domains · secrets
// hidden", card_line): each (project, agent) is evaluated by the engine — the same evaluate() and
// summarize_policy() as the selected project's summary — on a worker thread, one at a time, and
// the line is kept until refresh(). Asking for a line never evaluates on the caller's thread, so
// a long list of projects never stalls the UI.
#pragma once

#include <deque>
#include <map>
#include <utility>

#include <QObject>
#include <QString>
#include <QtQml/qqmlregistration.h>

#include "engine/engine.h"

namespace paddock::gui {

class ProjectSummaries : public QObject {
  Q_OBJECT
  QML_ELEMENT
  // Changes whenever a line arrives: bindings that call lineFor() depend on it.
  Q_PROPERTY(int revision READ revision NOTIFY changed)

 public:
  explicit ProjectSummaries(QObject* parent = nullptr);

  // The card's line ("" until its first evaluation has finished); asks for an evaluation when
  // there is no line yet or it is stale.
  Q_INVOKABLE QString lineFor(const QString& project, const QString& agentPreset);
  // Every line is stale (a policy file may have changed): each is evaluated again when asked
  // for, and shown as it was until then.
  Q_INVOKABLE void refresh();
  int revision() const { return revision_; }
  // Evaluations finished so far (tests).
  int evaluations() const { return evaluations_; }

 signals:
  void changed();

 private:
  using Key = std::pair<QString, QString>;  // project, agent preset
  struct Entry {
    QString line;
    bool fresh = false;
    bool queued = false;
  };
  void next();

  std::map<Key, Entry> cache_;
  std::deque<Key> queue_;
  bool running_ = false;
  int revision_ = 0;
  int evaluations_ = 0;
  std::map<std::string, std::string> environment_;
  QString resources_;
  bool stale_running_ = false;  // refresh() came while an evaluation ran: its result is stale
};

}  // namespace paddock::gui
