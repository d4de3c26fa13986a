// paddock-credential-broker: the process that holds a session's brokered credentials
// (docs/credentials.md). paddock-helper starts it once the sandbox's init has handed out the
// credential endpoints, and only for a session that has some; a process of its own so that the
// helper never has a key in its memory and never loads OpenSSL (whose start-up every session
// would otherwise pay).
//
//   stdin    the spec (engine/session/credential_records.h): the endpoints, the descriptors
//            their listening sockets and the keys arrive on, the extra CA, the helper's pid
//   stdout   reports, one JSON line each: ready or failed, then events, then the usage on SIGTERM
//
// It ends with the helper (PR_SET_PDEATHSIG), is not dumpable, and reads the keys itself from
// the memory file `paddock run` made, which it closes once read.
#include <openssl/crypto.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <mutex>
#include <string>

#include "engine/main_guard.h"
#include "engine/session/credential_records.h"
#include "helpers/broker/credential_broker.h"
#include "platform/read_file.h"

namespace {

using namespace paddock;
using session::CredentialBrokerReport;

std::mutex out_mu;

void report(const CredentialBrokerReport& r) {
  const std::string line = session::encode_credential_broker_report(r);
  std::lock_guard lock(out_mu);
  for (std::size_t done = 0; done < line.size();) {
    const ssize_t n = ::write(STDOUT_FILENO, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the helper is gone; PDEATHSIG follows
    done += static_cast<std::size_t>(n);
  }
}

int failed(const std::string& message) {
  CredentialBrokerReport r;
  r.type = CredentialBrokerReport::Type::kFailed;
  r.message = message;
  report(r);
  return 125;
}

std::string read_stdin() {
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(STDIN_FILENO, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || out.size() > (1 << 20)) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

int program_main() {
  // The helper's end is this process's: a key never outlives its session.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  auto spec = session::decode_credential_broker_spec(read_stdin());
  if (!spec.ok()) return failed(spec.error().message);
  if (static_cast<std::int64_t>(::getppid()) != spec->parent_pid) return failed("started by another process than the helper");
  auto text = platform::read_file("/proc/self/fd/" + std::to_string(spec->secrets_fd), {.max_bytes = 1 << 20});
  ::close(spec->secrets_fd);
  if (!text.ok()) return failed("cannot read the credentials handed over: " + text.error().message);
  auto secrets = session::decode_credential_secrets(*text);
  OPENSSL_cleanse(text->data(), text->size());
  if (!secrets.ok()) return failed(secrets.error().message);

  broker::CredentialBrokerOptions o;
  for (const auto& e : spec->endpoints) {
    const std::string binding = e.upstream + ":" + std::to_string(e.upstream_port);
    const session::CredentialSecret* secret = nullptr;
    for (const auto& s : *secrets)
      if (s.name == e.name) secret = &s;
    if (!secret) return failed("credential " + e.name + ": its value was not handed over");
    // The stored credential's binding, once more: a key goes only to the host it was stored for.
    if (secret->upstream != binding)
      return failed("credential " + e.name + " is stored for " + secret->upstream + ", but the plan sends it to " + binding);
    if (secret->placeholder != e.placeholder)
      return failed("credential " + e.name + ": the placeholder handed over differs from the agent's");
    auto scheme = credential_scheme_from_string(e.scheme);
    if (!scheme) return failed("credential " + e.name + ": unknown scheme " + e.scheme);
    broker::CredentialSpec c;
    c.name = e.name;
    c.upstream = e.upstream;
    c.upstream_port = e.upstream_port;
    c.connect_to = e.connect_to;
    c.header = e.header;
    c.scheme = *scheme;
    c.basic_user = e.basic_user;
    c.placeholder = e.placeholder;
    c.value = secret->value;
    c.max_requests = e.max_requests;
    c.max_bytes = e.max_bytes;
    c.max_request_bytes = e.max_request_bytes;
    c.max_response_bytes = e.max_response_bytes;
    c.endpoint_port = e.endpoint_port;
    o.credentials.push_back(std::move(c));
    o.listeners.emplace_back(e.listen_fd);
  }
  for (auto& s : *secrets) OPENSSL_cleanse(s.value.data(), s.value.size());
  o.resolver = std::make_shared<broker::SystemResolver>();
  o.extra_ca_file = spec->extra_ca;
  const bool tainted = spec->tainted;
  o.events = [tainted](nlohmann::json e) {
    // Like the resolver seam's: every event of a session pointed at this host says so.
    if (tainted) e["taint"] = "PADDOCK_DEBUG_UPSTREAM";
    CredentialBrokerReport r;
    r.type = CredentialBrokerReport::Type::kEvent;
    r.event = std::move(e);
    report(r);
  };
  // SIGTERM (the helper at the session's end) is waited for here; the broker's threads never see it.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  ::pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  auto b = broker::CredentialBroker::start(std::move(o));
  if (!b.ok()) return failed(b.error().message);
  report({CredentialBrokerReport::Type::kReady, {}, {}, {}});
  int sig = 0;
  while (::sigwait(&stop, &sig) != 0) {}
  (*b)->stop();
  CredentialBrokerReport usage;
  usage.type = CredentialBrokerReport::Type::kUsage;
  usage.usage = (*b)->usage();
  report(usage);
  return 0;
}

}  // namespace

// No exception leaves main: one line and a fail-closed exit code instead (engine/main_guard.h).
int main() {
  return paddock::guarded_main("paddock-credential-broker", [] { return program_main(); });
}
