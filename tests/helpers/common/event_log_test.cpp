// The helpers' event stream (helpers/common/event_log.h) on a real file and a socket pair: each
// line is stamped, decodes as an event, reaches subscribers, and a broker event that is not a
// known event is logged as a notice instead of being dropped.
#include <QtTest>
// Qt defines `emit` as a keyword macro; here it is EventLog's method.
#undef emit

#include <sys/socket.h>
#include <unistd.h>

#include <QTemporaryDir>

#include <sstream>

#include "engine/session/event.h"
#include "helpers/common/event_log.h"
#include "tests/support/test_util.h"

using namespace paddock;
using namespace paddock::helper;

namespace {

std::vector<session::Event> read_events(const std::string& path) {
  std::vector<session::Event> out;
  std::istringstream in(test::slurp(path));
  std::string line;
  while (std::getline(in, line)) {
    auto e = session::decode_event(line);
    if (!e.ok()) QTest::qFail(("undecodable line: " + line).c_str(), __FILE__, __LINE__);
    else out.push_back(std::move(*e));
  }
  return out;
}

}  // namespace

class EventLogTest : public QObject {
  Q_OBJECT
 private slots:
  void every_line_is_a_stamped_event_and_reaches_subscribers() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("events.jsonl").toStdString();
    int sp[2];
    QVERIFY(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == 0);
    {
      EventLog log(path);
      log.add_subscriber(sp[0]);
      log.emit(session::notice_event("info", "hello"));
      log.flush();
      log.drop_subscriber(sp[0]);
    }
    const auto events = read_events(path);
    QCOMPARE(events.size(), std::size_t(1));
    QCOMPARE(events[0].type, session::EventType::kNotice);
    QCOMPARE(events[0].fields.value("message", ""), std::string("hello"));
    QVERIFY(!events[0].ts.empty());
    char buf[4096];
    const ssize_t n = ::recv(sp[1], buf, sizeof buf, MSG_DONTWAIT);
    QVERIFY(n > 0);
    QVERIFY(std::string(buf, static_cast<std::size_t>(n)).find("hello") != std::string::npos);
    ::close(sp[0]);
    ::close(sp[1]);
  }

  void an_unknown_broker_event_is_logged_as_a_notice_that_says_so() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("events.jsonl").toStdString();
    {
      EventLog log(path);
      log.emit(nlohmann::json{{"event", "no_such_event"}, {"x", 1}});
      log.flush();
    }
    const auto events = read_events(path);
    QCOMPARE(events.size(), std::size_t(1));
    QCOMPARE(events[0].type, session::EventType::kNotice);
    QCOMPARE(events[0].fields.value("kind", ""), std::string("bad_event"));
  }

  void the_timestamp_is_utc_with_milliseconds() {
    const std::string ts = utc_timestamp();
    QCOMPARE(ts.size(), std::string("2026-01-02T03:04:05.678Z").size());
    QCOMPARE(ts.back(), 'Z');
    QCOMPARE(ts[10], 'T');
    QCOMPARE(ts[19], '.');
  }
};

QTEST_APPLESS_MAIN(EventLogTest)
#include "event_log_test.moc"
