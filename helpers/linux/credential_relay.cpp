#include "helpers/linux/credential_relay.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/session/credential_records.h"
#include "helpers/broker/credential_broker.h"
#include "platform/atomic_file.h"
#include "platform/read_file.h"

namespace paddock::helper {

CredentialRelay::CredentialRelay(EventLog& events, CredentialRelayOptions options)
    : events_(events), options_(std::move(options)) {}

CredentialRelay::~CredentialRelay() { stop(); }

Status CredentialRelay::add_endpoint(const std::string& name, platform::UniqueFd fd) {
  bool known = false;
  for (const auto& c : options_.credentials) known = known || c.name == name;
  if (!known || endpoints_.count(name)) return refused("the sandbox passed an endpoint for " + name + ", which the plan does not have");
  endpoints_[name] = std::move(fd);
  if (endpoints_.size() < options_.credentials.size()) return Status::Ok();
  return start();
}

Status CredentialRelay::start() {
  // This process holds keys from here on: no core dump of it, and no other process of this user
  // may read its memory (ptrace and /proc/<pid>/mem need it dumpable).
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  if (options_.secrets_file.empty())
    return refused("this session brokers credentials, but their values were not handed over; start it with 'paddock run'");
  auto text = platform::read_file(options_.secrets_file, {.max_bytes = 1 << 20});
  // The memory file `paddock run` left open for this: closed once read (nothing else needs it).
  if (options_.secrets_file.rfind("/proc/self/fd/", 0) == 0) {
    const std::string n = options_.secrets_file.substr(14);
    if (!n.empty() && n.size() < 8 && n.find_first_not_of("0123456789") == std::string::npos) ::close(std::stoi(n));
  }
  if (!text) return text.error();
  auto secrets = session::decode_credential_secrets(*text);
  OPENSSL_cleanse(text->data(), text->size());
  if (!secrets) return secrets.error();
  broker::CredentialBrokerOptions o;
  for (const auto& plan : options_.credentials) {
    const std::string binding = plan.upstream + ":" + std::to_string(plan.upstream_port);
    const session::CredentialSecret* secret = nullptr;
    for (const auto& s : *secrets)
      if (s.name == plan.name) secret = &s;
    if (!secret) return refused("credential " + plan.name + ": its value was not handed over");
    // The stored credential's binding, again: a key goes only to the host it was stored for.
    if (secret->upstream != binding)
      return refused("credential " + plan.name + " is stored for " + secret->upstream + ", but the plan sends it to " + binding);
    auto p = options_.placeholders.find(plan.name);
    if (p == options_.placeholders.end() || p->second != secret->placeholder)
      return refused("credential " + plan.name + ": the placeholder handed over differs from the agent's");
    broker::CredentialSpec spec;
    spec.name = plan.name;
    spec.upstream = plan.upstream;
    spec.upstream_port = plan.upstream_port;
    spec.connect_to = plan.connect_to;
    spec.header = plan.header;
    spec.scheme = plan.scheme;
    spec.basic_user = plan.basic_user;
    spec.placeholder = secret->placeholder;
    spec.value = secret->value;
    spec.max_requests = plan.max_requests;
    spec.max_bytes = plan.max_bytes;
    spec.max_request_bytes = plan.max_request_bytes;
    spec.max_response_bytes = plan.max_response_bytes;
    spec.endpoint_port = plan.port_in_sandbox;
    o.credentials.push_back(std::move(spec));
    o.listeners.push_back(std::move(endpoints_[plan.name]));
  }
  for (auto& s : *secrets) OPENSSL_cleanse(s.value.data(), s.value.size());
  o.resolver = std::make_shared<broker::SystemResolver>();
  o.extra_ca_file = options_.extra_ca_file;
  if (options_.tainted) {
    // Like the resolver seam's: every event of such a session says so.
    o.events = [this](nlohmann::json e) {
      e["taint"] = "PADDOCK_DEBUG_UPSTREAM";
      events_.emit(std::move(e));
    };
  } else {
    o.events = [this](nlohmann::json e) { events_.emit(std::move(e)); };
  }
  auto b = broker::CredentialBroker::start(std::move(o));
  if (!b) return b.error();
  broker_ = std::move(*b);
  return Status::Ok();
}

void CredentialRelay::stop() {
  if (!broker_) return;
  broker_->stop();
  usage_ = broker_->usage();
  broker_.reset();
}

std::uint64_t credential_fd_budget(std::size_t credentials) {
  if (credentials == 0) return 0;
  return broker::CredentialBrokerOptions::kMaxCredentialConnections * broker::kFdsPerCredentialConnection + credentials;
}

Status record_credential_use(const std::string& file, const std::vector<session::CredentialUsage>& usage,
                             const std::string& session_id) {
  bool any = false;
  for (const auto& u : usage) any = any || !u.last_used.empty();
  if (!any) return Status::Ok();
  const std::string lock_path = file + ".lock";
  platform::UniqueFd lock(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!lock.valid()) return refused("cannot open " + lock_path + ": " + std::strerror(errno));
  int rc;
  while ((rc = ::flock(lock.get(), LOCK_EX)) != 0 && errno == EINTR) {}
  if (rc != 0) return refused("cannot lock " + lock_path + ": " + std::strerror(errno));
  session::CredentialUseRecord record;
  auto old = platform::read_file_if_exists(file, {.no_follow = true});
  if (!old) return old.error();
  if (*old) {
    auto parsed = session::decode_credential_use(**old);
    if (!parsed) return parsed.error();  // a corrupt record is reported and left as it is
    record = std::move(*parsed);
  }
  for (const auto& u : usage)
    if (!u.last_used.empty() && (record[u.name].last_used.empty() || record[u.name].last_used < u.last_used))
      record[u.name] = {u.last_used, session_id};
  return platform::write_file_atomic(file, session::encode_credential_use(record));
}

}  // namespace paddock::helper
