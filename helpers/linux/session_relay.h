// The helper's side of the egress relay seam (egress_relay.h): starts the broker on the listening
// socket passed out of the sandbox, routes its events into the session log, and keeps the pending
// `ask` prompts until the control socket answers them.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/ir.h"
#include "engine/status.h"
#include "helpers/common/event_log.h"
#include "platform/unique_fd.h"
#include "helpers/linux/egress_relay.h"

namespace paddock::helper {

class SessionRelay {
 public:
  explicit SessionRelay(EventLog& events) : events_(events) {}
  ~SessionRelay();
  SessionRelay(const SessionRelay&) = delete;
  SessionRelay& operator=(const SessionRelay&) = delete;

  Status start(platform::UniqueFd listen_fd, const IrEgress& egress);
  // From the control socket: true when a pending ask had that id (it is answered and removed).
  bool answer(const std::string& id, const std::string& decision);
  // The `ask` events still waiting for an answer: a subscriber that joins late (the app opened
  // after the prompt was raised) is sent these first, so no prompt is invisible.
  std::vector<nlohmann::json> pending_asks();
  void stop();

 private:
  EventLog& events_;
  std::mutex mu_;
  std::map<std::string, std::function<void(AskDecision)>> pending_;
  std::map<std::string, nlohmann::json> pending_events_;
  std::unique_ptr<EgressRelay> relay_;
};

}  // namespace paddock::helper
