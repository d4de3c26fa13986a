// The helper's side of the credential broker (helpers/broker/credential_broker.h,
// docs/credentials.md): the endpoints' listening sockets come out of the sandbox one by one; once
// all have, the values `paddock run` handed over are read (never before the sandbox's init runs,
// so no process of the sandbox ever had them in its memory), the broker starts on the host and its
// events go into the session's log. At the end: the usage for the report, and each credential's
// last use for the credential list.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/linux/linux_plan.h"
#include "engine/session/report.h"
#include "engine/status.h"
#include "helpers/common/event_log.h"
#include "platform/unique_fd.h"

namespace paddock::broker {
class CredentialBroker;
}

namespace paddock::helper {

struct CredentialRelayOptions {
  std::vector<linux_backend::CredentialPlan> credentials;
  std::map<std::string, std::string> placeholders;  // by name, as the agent's variables have them
  std::string secrets_file;                         // --credentials: read once all endpoints are here
  std::string extra_ca_file;                        // PADDOCK_DEBUG_UPSTREAM_CA (tainted), "" otherwise
  bool tainted = false;                             // a test seam points upstreams at this host
};

class CredentialRelay {
 public:
  CredentialRelay(EventLog& events, CredentialRelayOptions options);
  ~CredentialRelay();
  CredentialRelay(const CredentialRelay&) = delete;
  CredentialRelay& operator=(const CredentialRelay&) = delete;

  // One endpoint's listening socket from the sandbox; the last one starts the broker. An error
  // fails the session's setup (the agent does not start).
  Status add_endpoint(const std::string& name, platform::UniqueFd fd);
  void stop();
  // After stop(): what each credential relayed, by name (empty when nothing was brokered).
  std::vector<session::CredentialUsage> usage() const { return usage_; }

 private:
  Status start();

  EventLog& events_;
  CredentialRelayOptions options_;
  std::map<std::string, platform::UniqueFd> endpoints_;
  std::unique_ptr<broker::CredentialBroker> broker_;
  std::vector<session::CredentialUsage> usage_;
};

// Descriptors the credential broker may hold at most (each connection: the agent's socket and
// the upstream's), kept out of the egress broker's share of the helper's limit.
std::uint64_t credential_fd_budget(std::size_t credentials);

// Updates `file` (credential-use.json) with the last use of each credential that relayed a
// request in `session_id`; a lock keeps two sessions ending at once from losing an update. A
// file that does not read is left alone (and the error returned).
Status record_credential_use(const std::string& file, const std::vector<session::CredentialUsage>& usage,
                             const std::string& session_id);

}  // namespace paddock::helper
