// One message and one descriptor across a Unix socket: the descriptor arrives usable and
// close-on-exec, a message without one arrives alone, and a peer that sends more descriptors than
// one leaves none of the extra ones open in the receiver.
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QtTest>
#include <cstring>
#include <dirent.h>

#include "platform/fd_passing.h"

using paddock::platform::receive_message;
using paddock::platform::send_message;
using paddock::platform::UniqueFd;

namespace {

int open_fd_count() {
  int n = 0;
  DIR* d = ::opendir("/proc/self/fd");
  if (!d) return -1;
  while (dirent* e = ::readdir(d))
    if (e->d_name[0] != '.') ++n;
  ::closedir(d);
  return n - 1;  // the directory stream's own descriptor
}

}  // namespace

class FdPassingTest : public QObject {
  Q_OBJECT
 private slots:
  void a_descriptor_sent_with_a_message_arrives_usable_and_close_on_exec() {
    int sp[2];
    QCOMPARE(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp), 0);
    UniqueFd a(sp[0]), b(sp[1]);
    int p[2];
    QCOMPARE(::pipe(p), 0);
    UniqueFd r(p[0]), w(p[1]);
    QVERIFY(send_message(a.get(), "{\"type\":\"proxy_listen\"}", w.get()) > 0);
    w.reset();
    char buf[64];
    UniqueFd got;
    const ssize_t n = receive_message(b.get(), buf, sizeof buf, &got);
    QCOMPARE(std::string(buf, static_cast<std::size_t>(n)), std::string("{\"type\":\"proxy_listen\"}"));
    QVERIFY(got.valid());
    QVERIFY(::fcntl(got.get(), F_GETFD) & FD_CLOEXEC);
    QCOMPARE(::write(got.get(), "z", 1), ssize_t{1});
    char c = 0;
    QCOMPARE(::read(r.get(), &c, 1), ssize_t{1});
    QCOMPARE(c, 'z');

    QVERIFY(send_message(a.get(), "alone") > 0);
    const ssize_t m = receive_message(b.get(), buf, sizeof buf, &got);
    QCOMPARE(std::string(buf, static_cast<std::size_t>(m)), std::string("alone"));
    QVERIFY(!got.valid());
    a.reset();
    QCOMPARE(receive_message(b.get(), buf, sizeof buf, &got), ssize_t{0});  // the peer's end
  }

  void extra_descriptors_in_one_message_are_closed_not_leaked() {
    int sp[2];
    QCOMPARE(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp), 0);
    UniqueFd a(sp[0]), b(sp[1]);
    int fds[3];
    for (int& f : fds) f = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    char data = 'x';
    iovec iov{&data, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof fds)];
    msghdr mh{};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = control;
    mh.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof fds);
    std::memcpy(CMSG_DATA(c), fds, sizeof fds);
    QCOMPARE(::sendmsg(a.get(), &mh, 0), ssize_t{1});
    for (int f : fds) ::close(f);
    const int before = open_fd_count();
    {
      char buf[8];
      UniqueFd got;
      QCOMPARE(receive_message(b.get(), buf, sizeof buf, &got), ssize_t{1});
      QVERIFY(got.valid());
      QCOMPARE(open_fd_count(), before + 1);  // the first one only
    }
    QCOMPARE(open_fd_count(), before);
  }
};

QTEST_APPLESS_MAIN(FdPassingTest)
#include "fd_passing_test.moc"
