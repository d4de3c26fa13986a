// The helper's end of the report socket (engine/session/init_message.h): what the sandbox's init,
// and the agent before its exec, tell the supervisor, and the one-byte go-ahead it answers.
// InitOutcome and absorb_init_message are the pure part: what each message means for the
// session, kept apart from the socket so that it is unit-tested
// (tests/helpers/linux/init_channel_test.cpp).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/session/init_message.h"
#include "engine/status.h"
#include "helpers/linux/mount_view.h"
#include "platform/unique_fd.h"

namespace paddock::helper {

// What the messages so far say about the session.
struct InitOutcome {
  std::string setup_error;
  std::string exec_error;
  bool attested = false;        // set by the supervisor once attestation.json is stored
  bool have_exit = false;
  bool init_timed_out = false;  // init's own wall-time keeper ended the session (see sandbox_child)
  int agent_status = 0;         // the agent's wait status (have_exit)
  long pids = 0;
  // Init's account of the agent's whole tree, which it has reaped before it reports the end.
  std::optional<long> cpu_ms, max_rss;
  bool left_cgroup = false;     // init moved itself out of the (now empty) cgroup leaf
  std::vector<Placeholder> placeholders;  // made on the host and not yet recorded
};

// What the supervisor does for a message beyond what absorb_init_message recorded.
enum class InitAction {
  kNone,
  kStop,              // the session cannot go on (setup_error says why)
  kStartRelay,        // the proxy's listening socket came with the message
  kStartForward,      // the sandbox's network namespace came with the message (published ports)
  kStartCredential,   // a credential endpoint's listening socket came with it (the message names it)
  kAddHostPort,       // a listening socket for a host port came with the message
  kStoreAttestation,  // readiness: store attestation.json, then answer the agent
};

// `message` as received: an undecodable one means the sandbox is not as Paddock built it.
InitAction absorb_init_message(InitOutcome& out, const Result<session::InitMessage>& message);

class InitChannel {
 public:
  // `readiness`: the readiness message the helper expects, byte for byte (decoded unparsed).
  InitChannel(platform::UniqueFd socket, std::string readiness);

  int fd() const { return socket_.get(); }

  struct Received {
    Result<session::InitMessage> message;
    platform::UniqueFd passed;  // the descriptor that came with it (proxy_listen, network_namespace,
                                // host_port_listen)
  };
  // The next queued message, without waiting; nullopt when there is none (or init is gone).
  std::optional<Received> next();
  // The go-ahead to the agent waiting before its exec: attestation.json is stored, or not.
  void answer(bool stored);

 private:
  platform::UniqueFd socket_;
  std::string readiness_;
  // Room for the largest message, left uninitialised: zero-filling 1 MiB cost 256 page faults
  // per session, and recvmsg only touches the pages a message fills.
  std::unique_ptr<char[]> buf_;
};

}  // namespace paddock::helper
