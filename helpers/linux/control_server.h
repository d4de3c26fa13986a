// The session's live control socket ($XDG_RUNTIME_DIR/paddock/<id>.sock, mode 0600), served from
// the helper's poll loop (one thread). The protocol, its requests and replies, is
// engine/session/control.h.
#pragma once

#include <poll.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/session/control.h"
#include "engine/status.h"
#include "helpers/common/event_log.h"

namespace paddock::helper {

class ControlServer {
 public:
  struct Handlers {
    std::function<void()> stop;
    // An error (sent to the client as it is) when no pending ask has that id.
    std::function<Status(const std::string& id, session::AskAnswer answer)> ask_reply;
    // The asks waiting for an answer: the reply to `asks`, and what a new subscriber gets first.
    std::function<std::vector<session::PendingAsk>()> pending;
    // The usage request's answer line (session::encode_usage_reply).
    std::function<std::string()> usage;
  };

  ControlServer(EventLog& events, Handlers handlers) : events_(events), handlers_(std::move(handlers)) {}
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  Status listen(const std::string& path);  // creates the parent directory (0700) as needed
  void add_poll_fds(std::vector<pollfd>& fds) const;
  void handle(const std::vector<pollfd>& fds);  // after poll(): accept, read, dispatch
  void close_all();

 private:
  void on_line(int fd, const std::string& line);
  void drop(int fd);

  EventLog& events_;
  Handlers handlers_;
  std::string path_;
  int listen_fd_ = -1;
  std::map<int, std::string> clients_;  // fd -> partial input line
};

}  // namespace paddock::helper
