// The helper's side of the credential broker (docs/credentials.md): the endpoints' listening
// sockets come out of the sandbox one by one; once all have, the helper starts
// paddock-credential-broker beside itself (helpers/broker/credential_broker_main.cpp) and hands
// it the sockets and the memory file of keys `paddock run` made, which the helper itself never
// reads: the keys are only ever in that process. Started only now, after the sandbox's init, so
// no process of the sandbox ever had them in its memory either. Its events reach the session's log
// through the helper; at the end it reports what each credential relayed, and the helper records
// each one's last use.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "backends/linux/linux_plan.h"
#include "engine/session/report.h"
#include "engine/status.h"
#include "helpers/common/event_log.h"
#include "platform/unique_fd.h"

namespace paddock::helper {

struct CredentialRelayOptions {
  std::vector<linux_backend::CredentialPlan> credentials;
  std::map<std::string, std::string> placeholders;  // by name, as the agent's variables have them
  std::string secrets_file;                         // --credentials: /proc/self/fd/N of `paddock run`'s memory file
  std::string extra_ca_file;                        // PADDOCK_DEBUG_UPSTREAM_CA (tainted), "" otherwise
  bool tainted = false;                             // a test seam points upstreams at this host
};

class CredentialRelay {
 public:
  CredentialRelay(EventLog& events, CredentialRelayOptions options);
  ~CredentialRelay();
  CredentialRelay(const CredentialRelay&) = delete;
  CredentialRelay& operator=(const CredentialRelay&) = delete;

  // One endpoint's listening socket from the sandbox; the last one starts the broker process and
  // waits for it to say it serves. An error fails the session's setup (the agent does not start).
  Status add_endpoint(const std::string& name, platform::UniqueFd fd);
  // The broker's reports, for the supervisor's poll (-1 while none runs).
  int fd() const { return reports_.get(); }
  // Reads what the broker reported: its events into the session's log.
  void on_readable();
  // Ends the broker (SIGTERM, then its last reports, bounded) and reaps it.
  void stop();
  // After stop(): what each credential relayed, by name (empty when nothing was brokered).
  std::vector<session::CredentialUsage> usage() const { return usage_; }

 private:
  Status start();
  // Handles the complete lines read so far; returns the first ready/failed seen (or nothing).
  std::optional<Status> take_lines();

  EventLog& events_;
  CredentialRelayOptions options_;
  std::map<std::string, platform::UniqueFd> endpoints_;
  pid_t pid_ = -1;
  platform::UniqueFd reports_;
  std::string partial_;
  std::vector<session::CredentialUsage> usage_;
};

// Updates `file` (credential-use.json) with the last use of each credential that relayed a
// request in `session_id`; a lock keeps two sessions ending at once from losing an update. A
// file that does not read is left alone (and the error returned).
Status record_credential_use(const std::string& file, const std::vector<session::CredentialUsage>& usage,
                             const std::string& session_id);

}  // namespace paddock::helper
