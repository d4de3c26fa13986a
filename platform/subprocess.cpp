#include "platform/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "platform/unique_fd.h"

extern char** environ;

namespace paddock::platform {

Result<Captured> run_capture(const std::string& program, const std::vector<std::string>& args,
                             const std::optional<std::string>& input, const std::string& missing_hint) {
  if (::access(program.c_str(), X_OK) != 0) {
    const std::string name = program.substr(program.rfind('/') + 1);
    return refused(name + " not found or not executable at " + program + (missing_hint.empty() ? "" : " " + missing_hint));
  }
  int out_pipe[2], err_pipe[2], in_pipe[2] = {-1, -1};
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return internal_error(std::string("pipe: ") + std::strerror(errno));
  UniqueFd out_r(out_pipe[0]), out_w(out_pipe[1]);
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) return internal_error(std::string("pipe: ") + std::strerror(errno));
  UniqueFd err_r(err_pipe[0]), err_w(err_pipe[1]);
  if (input && ::pipe2(in_pipe, O_CLOEXEC) != 0) return internal_error(std::string("pipe: ") + std::strerror(errno));
  UniqueFd in_r(in_pipe[0]), in_w(in_pipe[1]);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (input) posix_spawn_file_actions_adddup2(&actions, in_r.get(), STDIN_FILENO);
  else posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_w.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_w.get(), STDERR_FILENO);
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  std::string p = program;
  argv.push_back(p.data());
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, p.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return refused("cannot start " + program + ": " + std::strerror(rc));
  out_w.reset();
  err_w.reset();
  in_r.reset();
  if (input) {
    // Small inputs (a key) fit the pipe; a child that exits early just leaves the rest unread.
    struct sigaction ignore {}, old {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &ignore, &old);
    for (std::size_t done = 0; done < input->size();) {
      const ssize_t n = ::write(in_w.get(), input->data() + done, input->size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    ::sigaction(SIGPIPE, &old, nullptr);
    in_w.reset();
  }
  Captured c;
  pollfd fds[2] = {{out_r.get(), POLLIN, 0}, {err_r.get(), POLLIN, 0}};
  std::string* sinks[2] = {&c.out, &c.err};
  int open_fds = 2;
  while (open_fds > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        fds[i].fd = -1;
        --open_fds;
      } else if (sinks[i]->size() < (std::size_t{1} << 20)) {
        sinks[i]->append(buf, static_cast<std::size_t>(n));
      }
    }
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  c.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return c;
}

}  // namespace paddock::platform
