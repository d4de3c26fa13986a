// The helper's side of the egress relay seam (egress_relay.h): starts the broker on the listening
// socket passed out of the sandbox, routes its events into the session log, and keeps the pending
// `ask` prompts until the control socket answers them.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/ir.h"
#include "engine/session/control.h"
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

  Status start(platform::UniqueFd listen_fd, const IrEgress& egress, PeerFilter accept_peer = {});
  // From the control socket: answers the pending ask with that id and removes it; an error
  // saying whether the ask was already settled (answered, or timed out) or never existed.
  Status answer(const std::string& id, session::AskAnswer answer);
  // The asks still waiting for an answer: `paddock sessions` lists them, and a subscriber that
  // joins late (the app opened after the prompt was raised) is sent them first.
  std::vector<session::PendingAsk> pending_asks();
  void stop();

 private:
  EventLog& events_;
  std::mutex mu_;
  void settle(const std::string& id, std::string how);  // with mu_ held
  void on_event(const nlohmann::json& event);

  std::map<std::string, std::function<void(AskDecision)>> pending_;
  std::vector<session::PendingAsk> pending_asks_;  // in the order they were raised
  // How the last asks were settled (id -> "answered deny", ...), so that a second answer is told
  // the ask is gone rather than that it never existed. Bounded: the oldest are forgotten.
  std::map<std::string, std::string> settled_;
  std::deque<std::string> settled_order_;
  std::unique_ptr<EgressRelay> relay_;
};

}  // namespace paddock::helper
