// The session's live control socket ($XDG_RUNTIME_DIR/paddock/<id>.sock, mode 0600): JSON lines.
//   {"cmd":"stop"}                                       -> {"ok":true}; the session is stopped
//   {"cmd":"subscribe"}                                  -> {"ok":true}; pending asks, then every event
//   {"cmd":"ask_reply","id":ID,"decision":"allow_once|allow_session|deny"} -> {"ok":true|false}
//   {"cmd":"usage"}                                      -> the tree's usage now and its limits
//                                                           (engine/session/usage_message.h)
// Anything else gets {"ok":false,"error":...}. Served from the helper's poll loop (one thread).
#pragma once

#include <poll.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/status.h"
#include "helpers/common/event_log.h"

namespace paddock::helper {

class ControlServer {
 public:
  struct Handlers {
    std::function<void()> stop;
    // Returns false when no pending ask has that id.
    std::function<bool(const std::string& id, const std::string& decision)> ask_reply;
    // Events a new subscriber gets first (pending asks); may be empty.
    std::function<std::vector<nlohmann::json>()> replay;
    // The usage answer's line (session::encode_usage_reply).
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
