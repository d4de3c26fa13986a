#include "helpers/linux/session_relay.h"

#include "engine/session/event.h"
#include "helpers/linux/egress_relay.h"

namespace paddock::helper {

using nlohmann::json;

Status SessionRelay::start(platform::UniqueFd listen_fd, const IrEgress& egress) {
  EventSink sink = [this](json e) { events_.emit(std::move(e)); };
  AskHandler ask = [this](const std::string& id, const std::string& host, int port,
                          std::function<void(AskDecision)> reply) {
    json event = session::event_json(session::EventType::kAsk,
                                     {{"id", id}, {"host", host}, {"port", port}, {"ts", utc_timestamp()}});
    {
      std::lock_guard<std::mutex> lock(mu_);
      pending_[id] = std::move(reply);
      pending_events_[id] = event;
    }
    events_.emit(event);
  };
  auto relay = EgressRelay::start(std::move(listen_fd), egress, std::move(sink), std::move(ask));
  if (!relay) return relay.error();
  relay_ = std::move(relay.value());
  return Status::Ok();
}

SessionRelay::~SessionRelay() { stop(); }

bool SessionRelay::answer(const std::string& id, const std::string& decision) {
  std::function<void(AskDecision)> reply;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pending_.find(id);
    if (it == pending_.end()) return false;
    reply = std::move(it->second);
    pending_.erase(it);
    pending_events_.erase(id);
  }
  reply(decision == "allow_once"      ? AskDecision::kAllowOnce
        : decision == "allow_session" ? AskDecision::kAllowSession
                                      : AskDecision::kDeny);
  return true;
}

std::vector<json> SessionRelay::pending_asks() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<json> out;
  for (const auto& [id, e] : pending_events_) out.push_back(e);
  return out;
}

void SessionRelay::stop() {
  if (relay_) {
    relay_->stop();
    relay_.reset();
  }
  // Anything still waiting is denied: the session is over.
  std::map<std::string, std::function<void(AskDecision)>> left;
  {
    std::lock_guard<std::mutex> lock(mu_);
    left.swap(pending_);
    pending_events_.clear();
  }
  for (auto& [id, reply] : left) reply(AskDecision::kDeny);
}

}  // namespace paddock::helper
