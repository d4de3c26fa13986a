// One message, with at most one file descriptor beside it (SCM_RIGHTS), on a Unix socket: how
// the sandbox hands the helper its in-namespace listening socket. On SOCK_SEQPACKET each call
// is one whole message.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string_view>

#include "platform/unique_fd.h"

namespace paddock::platform {

// fd < 0: the message alone. Retries on EINTR, never raises SIGPIPE; returns sendmsg's result
// (errno set when it is -1).
ssize_t send_message(int socket, std::string_view bytes, int fd = -1);

// Receives one message into buf (at most size bytes) and the descriptor sent with it, if any,
// close-on-exec; any further descriptors in the same message are closed. flags: recvmsg's (e.g.
// MSG_DONTWAIT). Returns recvmsg's result: > 0 bytes, 0 at the peer's end, -1 with errno.
ssize_t receive_message(int socket, char* buf, std::size_t size, UniqueFd* fd, int flags = 0);

}  // namespace paddock::platform
