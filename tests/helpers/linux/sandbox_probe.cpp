// sandbox_probe: a tiny program the helper tests run INSIDE the sandbox to try things the
// boundary must stop, printing one "what:result" line each (result "ok" or the errno name).
#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <string>
#include <vector>

static void result(const std::string& what, long rc) {
  printf("%s:%s\n", what.c_str(), rc >= 0 ? "ok" : strerrorname_np(errno));
}

static int cmd_read(const char* path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    printf("read:%s\n", strerrorname_np(errno));
    return 0;
  }
  char buf[256];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  if (n < 0) {
    printf("read:%s\n", strerrorname_np(errno));
    return 0;
  }
  buf[n] = 0;
  printf("read:ok:%zd:%s\n", n, buf);
  return 0;
}

static int cmd_write(const char* path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    printf("write:%s\n", strerrorname_np(errno));
    return 0;
  }
  ssize_t n = write(fd, "written-in-sandbox\n", 19);
  close(fd);
  result("write", n == 19 ? 0 : -1);
  return 0;
}

static int cmd_connect(int port) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s < 0) return result("connect", -1), 0;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  result("connect", connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a));
  return 0;
}

// Binds PORT on 127.0.0.1 and ::1, connects to the IPv4 one and passes a byte: a dev server and
// its test client inside the sandbox.
static int cmd_serve_loopback(int port) {
  int s4 = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const int b4 = bind(s4, reinterpret_cast<sockaddr*>(&a), sizeof a);
  result("bind4", b4);
  int s6 = socket(AF_INET6, SOCK_STREAM, 0);
  sockaddr_in6 a6{};
  a6.sin6_family = AF_INET6;
  a6.sin6_port = htons(static_cast<uint16_t>(port));
  a6.sin6_addr = in6addr_loopback;
  result("bind6", bind(s6, reinterpret_cast<sockaddr*>(&a6), sizeof a6));
  if (b4 != 0 || listen(s4, 4) != 0) return 0;
  int c = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(c, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return result("selfconnect", -1), 0;
  int in = accept(s4, nullptr, nullptr);
  char x = 'p', y = 0;
  const bool ok = in >= 0 && write(c, &x, 1) == 1 && read(in, &y, 1) == 1 && y == 'p';
  result("selfconnect", ok ? 0 : -1);
  return 0;
}

// A dev server on 127.0.0.1:PORT: once it listens it creates READY (the test's cue), then echoes
// back everything one client sends until that client's EOF, and prints how many bytes it echoed.
static int cmd_echo_server(int port, const char* ready) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(s, 4) != 0) return result("listen", -1), 0;
  int fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return result("ready", -1), 0;
  close(fd);
  int c = accept(s, nullptr, nullptr);
  if (c < 0) return result("accept", -1), 0;
  static char buf[1 << 16];
  long total = 0;
  for (;;) {
    ssize_t n = read(c, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (ssize_t off = 0; off < n;) {
      ssize_t w = write(c, buf + off, static_cast<size_t>(n - off));
      if (w <= 0) return result("echo", -1), 0;
      off += w;
    }
    total += n;
  }
  shutdown(c, SHUT_WR);
  printf("echo:%ld\n", total);
  return 0;
}

static int cmd_sockets() {
  const std::pair<const char*, int> fams[] = {
      {"unix", AF_UNIX},    {"inet", AF_INET},  {"inet6", AF_INET6}, {"netlink", AF_NETLINK},
      {"packet", AF_PACKET}, {"key", AF_KEY},   {"alg", AF_ALG},     {"vsock", AF_VSOCK},
      {"bluetooth", AF_BLUETOOTH}, {"family200", 200}};
  for (const auto& [name, fam] : fams) {
    int type = (fam == AF_NETLINK || fam == AF_PACKET || fam == AF_KEY) ? SOCK_RAW
               : fam == AF_ALG                                          ? SOCK_SEQPACKET
                                                                        : SOCK_STREAM;
    int s = socket(fam, type, 0);
    result(std::string("socket_") + name, s);
    if (s >= 0) close(s);
  }
  return 0;
}

static int cmd_syscalls() {
  char buf[8];
  iovec local{buf, sizeof buf}, remote{buf, sizeof buf};
  result("ptrace", ptrace(PTRACE_TRACEME, 0, nullptr, nullptr));
  result("process_vm_readv", syscall(SYS_process_vm_readv, getppid(), &local, 1, &remote, 1, 0));
  result("process_vm_writev", syscall(SYS_process_vm_writev, getppid(), &local, 1, &remote, 1, 0));
  result("pidfd_getfd", syscall(SYS_pidfd_getfd, 0, 0, 0));
  result("mount", mount("none", "/tmp", "tmpfs", 0, nullptr));
  result("umount2", umount2("/tmp", MNT_DETACH));
  result("pivot_root", syscall(SYS_pivot_root, ".", "."));
  result("bpf", syscall(SYS_bpf, 0, nullptr, 0));
  result("perf_event_open", syscall(SYS_perf_event_open, nullptr, 0, -1, -1, 0));
  result("kexec_load", syscall(SYS_kexec_load, 0, 0, nullptr, 0));
  result("init_module", syscall(SYS_init_module, nullptr, 0, ""));
  result("finit_module", syscall(SYS_finit_module, -1, "", 0));
  result("delete_module", syscall(SYS_delete_module, "paddock_none", 0));
  result("keyctl", syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0));
  result("userfaultfd", syscall(SYS_userfaultfd, 0));
  result("io_uring_setup", syscall(SYS_io_uring_setup, 1, nullptr));
  char c = 'x';
  result("ioctl_tiocsti", ioctl(0, TIOCSTI, &c));
  result("ioctl_tiocsti_high_bits", syscall(SYS_ioctl, 0, 0x100000000ull | TIOCSTI, &c));
  char sub = 0;
  result("ioctl_tioclinux", ioctl(0, TIOCLINUX, &sub));
  result("unshare_user", unshare(CLONE_NEWUSER));
  result("setns", syscall(SYS_setns, 0, 0));
  return 0;
}

static int cmd_forks(int n) {
  std::vector<pid_t> kids;
  int ok = 0;
  for (int i = 0; i < n; ++i) {
    pid_t p = fork();
    if (p == 0) {
      pause();
      _exit(0);
    }
    if (p < 0) {
      printf("fork:%s\n", strerrorname_np(errno));
      break;
    }
    kids.push_back(p);
    ++ok;
  }
  printf("forked:%d\n", ok);
  fflush(stdout);
  for (pid_t p : kids) kill(p, SIGKILL);
  for (pid_t p : kids) waitpid(p, nullptr, 0);
  return 0;
}

static void* idle_thread(void*) {
  pause();
  return nullptr;
}

// Threads are tasks: a process limit counts them as pids.max does.
static int cmd_threads(int n) {
  int ok = 0;
  for (int i = 0; i < n; ++i) {
    pthread_t t;
    int err = pthread_create(&t, nullptr, idle_thread, nullptr);
    if (err != 0) {
      printf("thread:%s\n", strerrorname_np(err));
      break;
    }
    ++ok;
  }
  printf("threads:%d\n", ok);
  fflush(stdout);
  _exit(0);
}

// Burns ms milliseconds of this process's CPU time.
static int cmd_spin(long ms) {
  timespec t{};
  volatile unsigned long sink = 0;
  do {
    for (int i = 0; i < 100000; ++i) sink = sink + static_cast<unsigned long>(i);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  } while (t.tv_sec * 1000L + t.tv_nsec / 1000000L < ms);
  printf("spin:ok\n");
  return 0;
}

static int cmd_alloc(long mib) {
  std::size_t size = static_cast<std::size_t>(mib) << 20;
  char* p = static_cast<char*>(malloc(size));
  if (!p) {
    printf("alloc:failed\n");
    return 0;
  }
  for (std::size_t i = 0; i < size; i += 4096) p[i] = 1;
  printf("alloc:ok\n");
  return 0;
}

// Reserves address space the way V8 does (PROT_NONE, never touched), then makes one MiB of it
// usable: an address-space cap would refuse this, a memory limit must not.
static int cmd_reserve(long mib) {
  std::size_t size = static_cast<std::size_t>(mib) << 20;
  void* p = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    printf("reserve:%s\n", strerrorname_np(errno));
    return 0;
  }
  if (mprotect(p, 1 << 20, PROT_READ | PROT_WRITE) != 0) {
    printf("reserve:mprotect:%s\n", strerrorname_np(errno));
    return 0;
  }
  static_cast<char*>(p)[0] = 1;
  printf("reserve:ok\n");
  return 0;
}

// The controlling terminal, whichever of stdin/stdout/stderr it is (or none of them).
static int cmd_tty() {
  int fd = open("/dev/tty", O_RDWR | O_NOCTTY);
  result("tty", fd);
  if (fd >= 0) close(fd);
  return 0;
}

// Turns echo and canonical input off on stdin's terminal, as `stty -echo -icanon` does; with
// "hold", then waits to be killed.
static int cmd_tty_raw(bool hold) {
  termios t{};
  if (tcgetattr(0, &t) != 0) return result("tty-raw", -1), 0;
  t.c_lflag &= ~static_cast<tcflag_t>(ECHO | ICANON);
  result("tty-raw", tcsetattr(0, TCSANOW, &t));
  if (hold) pause();
  return 0;
}

// Opens n TCP connections to 127.0.0.1:port and holds them until killed.
static int cmd_flood(int port, int n) {
  int ok = 0;
  for (int i = 0; i < n; ++i) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) break;
    // A full accept queue drops the SYN and connect() waits for its retry (1 s, then 3 s);
    // a listener that no longer accepts at all must not hold the probe forever.
    timeval patience{5, 0};
    setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &patience, sizeof patience);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      close(s);
      break;
    }
    ++ok;
  }
  printf("flood:%d\n", ok);
  for (;;) pause();
}

static int cmd_unix_connect(const char* path) {
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  if (s < 0) return result("unix_connect", -1), 0;
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
  result("unix_connect", connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a));
  close(s);
  return 0;
}

// An agent's retry loop against the egress proxy: `count` CONNECT requests to hosts no policy
// lists, each answered 403 by the broker (no lookup, nothing leaves the sandbox). distinct: a
// different, long host name each time (every denial a new event); else the same one each time.
static int cmd_deny_flood(int port, long count, bool distinct) {
  const std::string tail = "." + std::string(60, 'b') + "." + std::string(60, 'c') + "." + std::string(60, 'd') + ".example";
  long refused = 0;
  for (long i = 0; i < count; ++i) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) return result("flood", -1), 0;
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      close(s);
      return result("flood", -1), 0;
    }
    const std::string host = distinct ? "f" + std::to_string(i) + "-" + std::string(40, 'a') + tail : "denied.example";
    const std::string req = "CONNECT " + host + ":443 HTTP/1.1\r\nHost: " + host + ":443\r\n\r\n";
    if (write(s, req.data(), req.size()) != static_cast<ssize_t>(req.size())) {
      close(s);
      return result("flood", -1), 0;
    }
    char buf[512];
    std::string reply;
    ssize_t n;
    while ((n = read(s, buf, sizeof buf)) > 0) reply.append(buf, static_cast<size_t>(n));
    close(s);
    if (reply.rfind("HTTP/1.1 403", 0) == 0) ++refused;
  }
  printf("flood:ok:%ld\n", refused);
  return 0;
}

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc < 2) return 2;
  std::string cmd = argv[1];
  if (cmd == "read" && argc == 3) return cmd_read(argv[2]);
  if (cmd == "write" && argc == 3) return cmd_write(argv[2]);
  if (cmd == "connect" && argc == 3) return cmd_connect(atoi(argv[2]));
  if (cmd == "serve-loopback" && argc == 3) return cmd_serve_loopback(atoi(argv[2]));
  if (cmd == "echo-server" && argc == 4) return cmd_echo_server(atoi(argv[2]), argv[3]);
  if (cmd == "sockets") return cmd_sockets();
  if (cmd == "syscalls") return cmd_syscalls();
  if (cmd == "forks" && argc == 3) return cmd_forks(atoi(argv[2]));
  if (cmd == "alloc" && argc == 3) return cmd_alloc(atol(argv[2]));
  if (cmd == "spin" && argc == 3) return cmd_spin(atol(argv[2]));
  if (cmd == "threads" && argc == 3) return cmd_threads(atoi(argv[2]));
  if (cmd == "reserve" && argc == 3) return cmd_reserve(atol(argv[2]));
  if (cmd == "exit" && argc == 3) return atoi(argv[2]);
  if (cmd == "deny-flood" && argc == 5) return cmd_deny_flood(atoi(argv[2]), atol(argv[3]), std::string(argv[4]) == "distinct");
  if (cmd == "tty" && argc == 2) return cmd_tty();
  if (cmd == "tty-raw" && argc <= 3) return cmd_tty_raw(argc == 3 && std::string(argv[2]) == "hold");
  if (cmd == "flood" && argc == 4) return cmd_flood(atoi(argv[2]), atoi(argv[3]));
  if (cmd == "unix-connect" && argc == 3) return cmd_unix_connect(argv[2]);
  if (cmd == "kill" && argc == 3) return raise(atoi(argv[2]));
  return 2;
}
