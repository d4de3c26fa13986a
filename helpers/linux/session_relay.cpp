#include "helpers/linux/session_relay.h"

#include <algorithm>

#include "engine/session/event.h"
#include "helpers/linux/egress_relay.h"

namespace paddock::helper {

using nlohmann::json;

namespace {
constexpr std::size_t kSettledKept = 4096;
}  // namespace

Status SessionRelay::start(platform::UniqueFd listen_fd, const IrEgress& egress, PeerFilter accept_peer) {
  EventSink sink = [this](json e) {
    on_event(e);
    events_.emit(std::move(e));
  };
  AskHandler ask = [this](const std::string& id, const std::string& host, int port,
                          std::function<void(AskDecision)> reply) {
    session::PendingAsk a{id, host, port, utc_timestamp()};
    {
      std::lock_guard<std::mutex> lock(mu_);
      pending_[id] = std::move(reply);
      pending_asks_.push_back(a);
    }
    events_.emit(session::ask_event(a));
  };
  auto relay = EgressRelay::start(std::move(listen_fd), egress, std::move(sink), std::move(ask), std::move(accept_peer));
  if (!relay) return relay.error();
  relay_ = std::move(relay.value());
  return Status::Ok();
}

SessionRelay::~SessionRelay() { stop(); }

void SessionRelay::settle(const std::string& id, std::string how) {
  pending_.erase(id);
  pending_asks_.erase(std::remove_if(pending_asks_.begin(), pending_asks_.end(),
                                     [&](const session::PendingAsk& a) { return a.id == id; }),
                      pending_asks_.end());
  if (settled_.emplace(id, std::move(how)).second) settled_order_.push_back(id);
  while (settled_order_.size() > kSettledKept) {
    settled_.erase(settled_order_.front());
    settled_order_.pop_front();
  }
}

// The broker's net_request that settles an ask it raised without an answer (the timeout, or the
// relay's own refusal) names it: it is no longer pending.
void SessionRelay::on_event(const json& e) {
  if (e.value("event", "") != session::event_name(session::EventType::kNetRequest)) return;
  auto it = e.find("ask_id");
  if (it == e.end() || !it->is_string()) return;
  std::lock_guard<std::mutex> lock(mu_);
  const std::string id = it->get<std::string>();
  if (pending_.count(id)) settle(id, "was denied without an answer (" + e.value("rule", std::string("refused")) + ")");
}

Status SessionRelay::answer(const std::string& id, session::AskAnswer answer) {
  std::function<void(AskDecision)> reply;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pending_.find(id);
    if (it == pending_.end()) {
      auto done = settled_.find(id);
      if (done != settled_.end()) return bad_input("ask " + id + " " + done->second + "; it is no longer pending");
      return bad_input("no ask " + id + " in this session (see 'paddock sessions')");
    }
    reply = std::move(it->second);
    settle(id, std::string("was already answered: ") + session::ask_answer_name(answer));
  }
  reply(answer == session::AskAnswer::kAllowOnce      ? AskDecision::kAllowOnce
        : answer == session::AskAnswer::kAllowSession ? AskDecision::kAllowSession
                                                      : AskDecision::kDeny);
  return Status::Ok();
}

std::vector<session::PendingAsk> SessionRelay::pending_asks() {
  std::lock_guard<std::mutex> lock(mu_);
  return pending_asks_;
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
    pending_asks_.clear();
  }
  for (auto& [id, reply] : left) reply(AskDecision::kDeny);
}

}  // namespace paddock::helper
