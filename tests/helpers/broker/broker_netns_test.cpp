// The relay's shape without the helper: a child in a new user + network namespace (loopback
// only) creates the proxy's listening socket inside it and passes it out with SCM_RIGHTS, exactly
// as paddock-helper does; the broker serves it from the host side. curl and paddock-connect in the
// namespace then reach a server on the HOST's 127.0.0.1 only through the broker (the scripted
// resolver maps www.example.com there), and not directly.
#include <QtTest>

#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "platform/fd_passing.h"
#include "tests/helpers/broker/broker_fixture.h"
#include "tests/support/test_paths.h"

using namespace paddock;
using namespace paddock::broker;
using namespace paddock::broker::test;

namespace {

struct SandboxRun {
  int exit_code = -1;
  std::string out;
  std::string error;
};

// The helper's own descriptor passing (platform/fd_passing.h), one byte of message beside it.
bool send_fd(int sock, int fd) { return platform::send_message(sock, "F", fd) == 1; }

int receive_fd(int sock) {
  char byte;
  platform::UniqueFd fd;
  if (platform::receive_message(sock, &byte, 1, &fd) != 1) return -1;
  return fd.release();
}

// Child: new user+net namespace, lo up, listen on 127.0.0.1:3128, pass the socket out, wait for
// the go byte, then run `script` with /bin/sh (stdout+stderr to the pipe).
[[noreturn]] void child(int sock, int out, const std::string& script) {
  if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) _exit(90);
  int ctl = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ifreq ifr{};
  std::strcpy(ifr.ifr_name, "lo");
  if (ioctl(ctl, SIOCGIFFLAGS, &ifr) != 0) _exit(91);
  ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP);
  if (ioctl(ctl, SIOCSIFFLAGS, &ifr) != 0) _exit(92);
  int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sin.sin_port = htons(3128);
  if (bind(l, reinterpret_cast<sockaddr*>(&sin), sizeof sin) != 0 || listen(l, 128) != 0) _exit(93);
  if (!send_fd(sock, l)) _exit(94);
  close(l);  // the namespace keeps the socket alive through the broker's copy
  char go;
  if (read(sock, &go, 1) != 1) _exit(95);
  dup2(out, 1);
  dup2(out, 2);
  execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
  _exit(127);
}

SandboxRun run_in_netns(BrokerHarness& h, IrEgress egress, const std::string& script) {
  SandboxRun r;
  int sp[2], pipefd[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) != 0 || pipe2(pipefd, O_CLOEXEC) != 0) {
    r.error = "socketpair/pipe";
    return r;
  }
  pid_t pid = fork();
  if (pid == 0) {
    close(sp[0]);
    close(pipefd[0]);
    child(sp[1], pipefd[1], script);
  }
  close(sp[1]);
  close(pipefd[1]);
  platform::UniqueFd control(sp[0]), out(pipefd[0]);
  platform::UniqueFd listen_fd(receive_fd(control.get()));
  if (!listen_fd.valid()) {
    r.error = "no socket from the namespace (unprivileged user namespaces disabled?)";
  } else {
    BrokerOptions o;
    o.egress = std::move(egress);
    o.resolver = h.resolver;
    o.events = h.events.sink();
    o.vetting.unsafe_allow_loopback = true;  // test seam: www.example.com -> the host's 127.0.0.1
    auto b = Broker::create(std::move(o));
    if (!b.ok() || !(*b)->serve(std::move(listen_fd)).ok()) {
      r.error = "broker did not start";
    } else {
      h.broker = std::move(b.value());
      if (write(control.get(), "g", 1) != 1) r.error = "go";
    }
  }
  control.reset();  // without a go byte the child exits
  char buf[4096];
  for (ssize_t n; (n = read(out.get(), buf, sizeof buf)) > 0;) r.out.append(buf, static_cast<size_t>(n));
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

}  // namespace

class BrokerNetnsTest : public QObject {
  Q_OBJECT
 private slots:
  void curl_in_an_empty_network_namespace_gets_out_only_through_the_passed_socket() {
    const QString curl = QStandardPaths::findExecutable("curl");
    QVERIFY2(!curl.isEmpty(), "curl is not installed; run scripts/bootstrap");
    QTemporaryDir dir;
    QFile page(dir.filePath("index.html"));
    QVERIFY(page.open(QIODevice::WriteOnly));
    page.write("hello from the host's loopback\n");
    page.close();
    int web_port = 0;
    { platform::UniqueFd probe = loopback_listener(&web_port); }
    QProcess web;
    web.start("python3", {"-m", "http.server", QString::number(web_port), "--bind", "127.0.0.1", "-d", dir.path()});
    QVERIFY2(web.waitForStarted(5000), "python3 (the loopback web server) did not start; run scripts/bootstrap");
    for (int i = 0; i < 50; ++i) {  // wait until it listens
      Client c;
      if (c.connect(web_port)) break;
      QThread::msleep(100);
    }
    BrokerHarness h;
    h.resolver->script("www.example.com", {{"127.0.0.1"}});
    IrEgress e;
    e.mode = NetMode::kAllowlist;
    e.domains = {"www.example.com"};
    const std::string url = "http://www.example.com:" + std::to_string(web_port) + "/index.html";
    const std::string c = curl.toStdString() + " -sS --max-time 10 --noproxy '' ";
    const std::string script =
        c + "-p -x http://127.0.0.1:3128 " + url + "; echo \"connect_rc=$?\"; " +
        c + "-x socks5h://127.0.0.1:3128 " + url + "; echo \"socks_rc=$?\"; " +
        c + "-p -x http://127.0.0.1:3128 http://other.example.org:" + std::to_string(web_port) +
        "/ -o /dev/null -w 'other=%{http_code}\\n'; " +
        c + "http://127.0.0.1:" + std::to_string(web_port) + "/index.html; echo \"direct_rc=$?\"";
    SandboxRun r = run_in_netns(h, e, script);
    QVERIFY2(r.error.empty(), r.error.c_str());
    QVERIFY2(r.out.find("hello from the host's loopback\nconnect_rc=0") != std::string::npos, r.out.c_str());
    QVERIFY2(r.out.find("hello from the host's loopback\nsocks_rc=0") != std::string::npos, r.out.c_str());
    // curl reports the proxy's 403 to CONNECT as a failure, with the code it got.
    QVERIFY2(r.out.find("403") != std::string::npos, r.out.c_str());
    // The host's loopback is not the namespace's loopback: the direct attempt fails.
    QVERIFY2(r.out.find("direct_rc=7") != std::string::npos, r.out.c_str());
    auto requests = h.events.of("net_request");
    QCOMPARE(requests.size(), size_t{3});
    QCOMPARE(QString::fromStdString(requests[2]["rule"]), QString("egress.domains: other.example.org not listed"));
    h.broker->stop();
    web.terminate();
    web.waitForFinished(5000);
  }

  void paddock_connect_in_the_namespace_reaches_the_host_side_echo_server() {
    EchoServer echo;
    BrokerHarness h;
    h.resolver->script("git.example.com", {{"127.0.0.1"}});
    IrEgress e;
    e.mode = NetMode::kStrict;
    e.domains = {"git.example.com"};
    e.strict_ports["git.example.com"] = {echo.port()};
    const std::string connect = paddock::test::build_libexec() + "/paddock-connect";
    SandboxRun r = run_in_netns(h, e,
                                "printf 'SSH-2.0-x' | HTTPS_PROXY=http://127.0.0.1:3128 " + connect +
                                    " git.example.com " + std::to_string(echo.port()) + "; echo \" rc=$?\"");
    QVERIFY2(r.error.empty(), r.error.c_str());
    QCOMPARE(QString::fromStdString(r.out), QString("SSH-2.0-x rc=0\n"));
    QCOMPARE(echo.accepted(), 1);
    h.broker->stop();
  }
};

QTEST_GUILESS_MAIN(BrokerNetnsTest)
#include "broker_netns_test.moc"
