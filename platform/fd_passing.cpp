#include "platform/fd_passing.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace paddock::platform {
namespace {

// Room for a few descriptors: a peer that sends more must not leave any open in this process.
constexpr std::size_t kMaxFds = 8;

}  // namespace

ssize_t send_message(int socket, std::string_view bytes, int fd) {
  iovec iov{const_cast<char*>(bytes.data()), bytes.size()};
  msghdr mh{};
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  if (fd >= 0) {
    std::memset(control, 0, sizeof control);
    mh.msg_control = control;
    mh.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
  }
  ssize_t n;
  while ((n = ::sendmsg(socket, &mh, MSG_NOSIGNAL)) < 0 && errno == EINTR) {}
  return n;
}

ssize_t receive_message(int socket, char* buf, std::size_t size, UniqueFd* fd, int flags) {
  if (fd) fd->reset();
  for (;;) {
    iovec iov{buf, size};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)];
    msghdr mh{};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = control;
    mh.msg_controllen = sizeof control;
    const ssize_t n = ::recvmsg(socket, &mh, flags | MSG_CMSG_CLOEXEC);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return n;
    for (cmsghdr* c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (std::size_t i = 0; i < count; ++i) {
        int passed = -1;
        std::memcpy(&passed, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        if (fd && !fd->valid()) fd->reset(passed);
        else ::close(passed);
      }
    }
    return n;
  }
}

}  // namespace paddock::platform
