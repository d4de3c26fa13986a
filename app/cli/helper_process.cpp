#include "app/cli/helper_process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace paddock::cli {

Result<HelperOutput> run_helper_capture(const std::filesystem::path& helper,
                                        const std::vector<std::string>& args) {
  if (access(helper.c_str(), X_OK) != 0)
    return refused("paddock-helper not found or not executable at " + helper.string() +
                   " (reinstall Paddock, or build the paddock-helper target)");
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) return internal_error(std::string("pipe: ") + std::strerror(errno));
  pid_t pid = fork();
  if (pid < 0) return internal_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    dup2(pipefd[1], STDOUT_FILENO);
    std::vector<char*> argv;
    std::string h = helper.string();
    argv.push_back(h.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(h.c_str(), argv.data());
    _exit(127);
  }
  close(pipefd[1]);
  HelperOutput out;
  char buf[4096];
  for (;;) {
    ssize_t n = read(pipefd[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.out.append(buf, static_cast<std::size_t>(n));
  }
  close(pipefd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return out;
}

}  // namespace paddock::cli
