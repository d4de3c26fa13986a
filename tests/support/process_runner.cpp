#include "tests/support/process_runner.h"
#include "tests/support/test_paths.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

extern char** environ;

namespace paddock::test {

ProcessResult run_process(const std::vector<std::string>& argv_in, const RunOptions& options) {
  std::vector<std::string> argv = options.prefix;
  argv.insert(argv.end(), argv_in.begin(), argv_in.end());
  int out[2], err[2], in[2];
  if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) || pipe2(in, O_CLOEXEC)) return {};
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) _exit(126);
    for (const auto& name : options.env_unset) unsetenv(name.c_str());
    for (const auto& [k, v] : options.env_override) setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  close(in[0]);
  if (!options.stdin_data.empty()) {
    ssize_t ignored = write(in[1], options.stdin_data.data(), options.stdin_data.size());
    (void)ignored;
  }
  close(in[1]);
  ProcessResult r;
  struct timespec start {};
  clock_gettime(CLOCK_MONOTONIC, &start);
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open_fds = 2;
  bool killed = false;
  while (open_fds > 0) {
    struct timespec now {};
    clock_gettime(CLOCK_MONOTONIC, &now);
    long elapsed = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
    if (!killed && elapsed > options.timeout_ms) {
      kill(pid, SIGKILL);
      killed = true;
    }
    int n = poll(fds, 2, 200);
    if (n < 0 && errno != EINTR) break;
    for (auto& f : fds) {
      if (f.fd < 0 || !(f.revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[8192];
      ssize_t got = read(f.fd, buf, sizeof buf);
      if (got <= 0) {
        close(f.fd);
        f.fd = -1;
        --open_fds;
      } else {
        (f.fd == out[0] ? r.out : r.err).append(buf, static_cast<size_t>(got));
      }
    }
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::string paddock_bin() { return paddock::test::build_bin() + "/paddock"; }
std::string helper_bin() { return paddock::test::build_libexec() + "/paddock-helper"; }

std::string no_userns_bin() { return paddock::test::build_dir() + "/tests/helpers/linux/tools/no_userns"; }

std::vector<std::string> paddock_run_argv(bool landlock_tier, const std::string& command) {
  if (!landlock_tier) return {paddock_bin(), command};
  return {no_userns_bin(), paddock_bin(), command, "--tier", "landlock"};
}

pid_t spawn_process(const std::vector<std::string>& argv, const std::string& log, const RunOptions& options) {
  std::vector<std::string> full = options.prefix;
  full.insert(full.end(), argv.begin(), argv.end());
  pid_t pid = ::fork();
  if (pid == 0) {
    if (!options.cwd.empty() && ::chdir(options.cwd.c_str()) != 0) _exit(126);
    for (const auto& k : options.env_unset) ::unsetenv(k.c_str());
    for (const auto& [k, v] : options.env_override) ::setenv(k.c_str(), v.c_str(), 1);
    if (!log.empty()) {
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0) _exit(126);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    std::vector<char*> args;
    for (auto& a : full) args.push_back(a.data());
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    _exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

}  // namespace paddock::test
