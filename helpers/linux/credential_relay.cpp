#include "helpers/linux/credential_relay.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "engine/session/credential_records.h"
#include "platform/atomic_file.h"
#include "platform/read_file.h"

extern char** environ;

namespace paddock::helper {
namespace {

using session::CredentialBrokerReport;
using Clock = std::chrono::steady_clock;

// The descriptors the broker process gets: its listening sockets from 3 on, the keys' memory
// file after them.
constexpr int kFirstChildFd = 3;

// paddock-credential-broker beside this helper (libexec/paddock).
std::string broker_path() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (self.parent_path() / "paddock-credential-broker").string();
}

// The descriptor of `paddock run`'s memory file, from its /proc/self/fd/N path.
int secrets_fd(const std::string& path) {
  const std::string prefix = "/proc/self/fd/";
  if (path.rfind(prefix, 0) != 0) return -1;
  const std::string n = path.substr(prefix.size());
  if (n.empty() || n.size() > 7 || n.find_first_not_of("0123456789") != std::string::npos) return -1;
  const int fd = std::stoi(n);
  return ::fcntl(fd, F_GETFD) < 0 ? -1 : fd;
}

}  // namespace

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
  const int keys = secrets_fd(options_.secrets_file);
  if (keys < 0)
    return refused("this session brokers credentials, but their values were not handed over; start it with 'paddock run'");
  session::CredentialBrokerSpec spec;
  spec.secrets_fd = kFirstChildFd + static_cast<int>(options_.credentials.size());
  spec.extra_ca = options_.extra_ca_file;
  spec.tainted = options_.tainted;
  spec.parent_pid = ::getpid();
  // Every descriptor the child gets, first moved above the targets so that no dup2 overwrites a
  // source another one still needs.
  std::vector<platform::UniqueFd> moved;
  for (std::size_t i = 0; i < options_.credentials.size(); ++i) {
    const auto& plan = options_.credentials[i];
    session::CredentialEndpoint e;
    e.name = plan.name;
    e.upstream = plan.upstream;
    e.upstream_port = plan.upstream_port;
    e.connect_to = plan.connect_to;
    e.header = plan.header;
    e.scheme = to_string(plan.scheme);
    e.basic_user = plan.basic_user;
    e.placeholder = options_.placeholders.at(plan.name);
    e.endpoint_port = plan.port_in_sandbox;
    e.listen_fd = kFirstChildFd + static_cast<int>(i);
    e.max_requests = plan.max_requests;
    e.max_bytes = plan.max_bytes;
    e.max_request_bytes = plan.max_request_bytes;
    e.max_response_bytes = plan.max_response_bytes;
    spec.endpoints.push_back(std::move(e));
    moved.emplace_back(::fcntl(endpoints_.at(plan.name).get(), F_DUPFD_CLOEXEC, 64));
  }
  moved.emplace_back(::fcntl(keys, F_DUPFD_CLOEXEC, 64));
  for (const auto& m : moved)
    if (!m.valid()) return refused(std::string("cannot pass the credential endpoints on: ") + std::strerror(errno));
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0)
    return refused(std::string("pipe for the credential broker: ") + std::strerror(errno));
  platform::UniqueFd in_r(in[0]), in_w(in[1]), out_r(out[0]), out_w(out[1]);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_r.get(), STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out_w.get(), STDOUT_FILENO);
  for (std::size_t i = 0; i < moved.size(); ++i)
    posix_spawn_file_actions_adddup2(&actions, moved[i].get(), kFirstChildFd + static_cast<int>(i));
  std::string program = broker_path();
  char* argv[] = {program.data(), nullptr};
  const int rc = ::posix_spawn(&pid_, program.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return refused("cannot start " + program + ": " + std::strerror(rc));
  // The keys' memory file and the endpoints are the broker's now: none of them stays here.
  ::close(keys);
  endpoints_.clear();
  moved.clear();
  in_r.reset();
  out_w.reset();
  const std::string text = session::encode_credential_broker_spec(spec);
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(in_w.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  in_w.reset();
  reports_ = std::move(out_r);
  // Fail closed: the agent starts only once the broker serves (or its reason is known).
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  while (Clock::now() < deadline) {
    pollfd p{reports_.get(), POLLIN, 0};
    const int left = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
    const int n = ::poll(&p, 1, std::max(1, left));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    char buf[4096];
    const ssize_t got = ::read(reports_.get(), buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return refused(program + " ended before it served the credentials");
    partial_.append(buf, static_cast<std::size_t>(got));
    if (auto settled = take_lines()) return *settled;
  }
  return refused(program + " did not serve the credentials within 20 s");
}

std::optional<Status> CredentialRelay::take_lines() {
  std::optional<Status> settled;
  for (std::size_t nl; (nl = partial_.find('\n')) != std::string::npos;) {
    const std::string line = partial_.substr(0, nl);
    partial_.erase(0, nl + 1);
    auto r = session::decode_credential_broker_report(line);
    if (!r.ok()) {
      events_.emit(session::notice_event("warning", "the credential broker wrote a line that does not read: " + r.error().message));
      continue;
    }
    switch (r->type) {
      case CredentialBrokerReport::Type::kReady:
        if (!settled) settled = Status::Ok();
        break;
      case CredentialBrokerReport::Type::kFailed:
        if (!settled) settled = refused("credential broker: " + r->message);
        break;
      case CredentialBrokerReport::Type::kEvent:
        events_.emit(std::move(r->event));
        break;
      case CredentialBrokerReport::Type::kUsage:
        usage_ = std::move(r->usage);
        break;
    }
  }
  return settled;
}

void CredentialRelay::on_readable() {
  if (!reports_.valid()) return;
  char buf[65536];
  const ssize_t got = ::read(reports_.get(), buf, sizeof buf);
  if (got > 0) {
    partial_.append(buf, static_cast<std::size_t>(got));
    take_lines();
  } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
    reports_.reset();  // the broker is gone: stop() reaps it
  }
}

void CredentialRelay::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  // Its last reports (the connections' events, then the usage), bounded.
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  while (reports_.valid() && Clock::now() < deadline) {
    pollfd p{reports_.get(), POLLIN, 0};
    const int left = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
    if (::poll(&p, 1, std::max(1, left)) <= 0) break;
    on_readable();
  }
  reports_.reset();
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == 0) {
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {}
  }
  pid_ = -1;
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
