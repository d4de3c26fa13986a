// The sessions list's request and denial counts: read from events.jsonl on a worker (the list is
// there before its counts: nothing is decoded while the UI waits), complete for a large log,
// then only what was appended; new denials of a running session are reported once each.
#include <QDir>
#include <QLocalServer>
#include <QSignalSpy>
#include <QtTest>

#include "app_paths.h"
#include "gui_test_env.h"
#include "sessions_model.h"

using paddock::gui::AppPaths;
using paddock::gui::SessionsModel;

namespace {

QByteArray requestLine(int i, bool deny) {
  return "{\"ts\":\"2026-12-01T00:00:00.000Z\",\"event\":\"net_request\",\"host\":\"h" + QByteArray::number(i % 97) +
         ".example\",\"port\":443,\"protocol\":\"connect\",\"decision\":\"" + (deny ? "deny" : "allow") +
         "\",\"rule\":\"r\",\"reason\":\"\"}\n";
}

void append(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::Append));
  f.write(bytes);
}

// A session's directory under the sessions dir whose log holds only its session_started line.
QString started_session(const QString& name) {
  const QString dir = AppPaths::sessionsDir() + "/" + name;
  QDir().mkpath(dir);
  append(dir + "/events.jsonl",
         "{\"ts\":\"2026-12-01T00:00:02.000Z\",\"event\":\"session_started\",\"session_id\":\"s\",\"command\":[\"x\"],"
         "\"ir_hash\":\"sha256:0\",\"plan_hash\":\"sha256:0\",\"backend\":\"linux\",\"tainted\":false,"
         "\"helper_pid\":1}\n");
  return dir;
}

}  // namespace

class SessionsModelTest : public QObject {
  Q_OBJECT
  paddock::gui::test::GuiTestEnv env_;

  int requests(const SessionsModel& m, int row) const { return m.data(m.index(row), SessionsModel::RequestsRole).toInt(); }
  int denied(const SessionsModel& m, int row) const { return m.data(m.index(row), SessionsModel::DeniedRole).toInt(); }

 private slots:
  void a_large_log_is_counted_off_the_ui_thread_then_only_what_is_appended() {
    const QString dir = AppPaths::sessionsDir() + "/20261201T000000Z-count";
    QDir().mkpath(dir);
    QByteArray log;
    constexpr int kLines = 200000;  // ~30 MiB, more than one slice of the counter
    for (int i = 0; i < kLines; ++i) log += requestLine(i, i % 5 == 0);
    append(dir + "/events.jsonl", log);

    SessionsModel m;
    QCOMPARE(m.rowCount(), 1);
    QCOMPARE(requests(m, 0), 0);  // the row is listed before its log is read
    QSignalSpy changed(&m, &SessionsModel::dataChanged);
    QTRY_COMPARE_WITH_TIMEOUT(requests(m, 0), kLines, 60000);
    QCOMPARE(denied(m, 0), kLines / 5);
    QVERIFY(!changed.isEmpty());

    // A half-written line waits for its end.
    const QByteArray more = requestLine(1, true);
    append(dir + "/events.jsonl", requestLine(0, false) + more.left(20));
    m.reload();
    QTRY_COMPARE(requests(m, 0), kLines + 1);
    append(dir + "/events.jsonl", more.mid(20));
    m.reload();
    QTRY_COMPARE(requests(m, 0), kLines + 2);
    QCOMPARE(denied(m, 0), kLines / 5 + 1);
  }

  void new_denials_of_a_running_session_are_reported_once() {
    const QString dir = AppPaths::sessionsDir() + "/20261201T000001Z-live";
    QDir().mkpath(dir);
    QLocalServer helper;  // a control socket that accepts: the session runs
    const QString socket = AppPaths::controlSocketPath(dir);
    QDir().mkpath(QFileInfo(socket).path());
    QVERIFY(helper.listen(socket));
    append(dir + "/events.jsonl", requestLine(0, true));

    SessionsModel m;
    const int row = m.rowOfDir(dir);
    QVERIFY(row >= 0);
    QCOMPARE(m.data(m.index(row), SessionsModel::StateRole).toString(), QString("running"));
    QTRY_COMPARE(denied(m, row), 1);
    QSignalSpy seen(&m, &SessionsModel::denialsSeen);
    append(dir + "/events.jsonl", requestLine(1, true) + requestLine(2, false) + requestLine(3, true));
    m.recheckRunning();
    QTRY_COMPARE(seen.count(), 1);
    QCOMPARE(seen.at(0).at(1).toInt(), 2);
    QCOMPARE(denied(m, m.rowOfDir(dir)), 3);
    m.recheckRunning();  // nothing new: nothing reported
    QCoreApplication::processEvents();
    QCOMPARE(seen.count(), 1);
  }

  // The helper closes its control socket a moment before it writes its report: in between the
  // session is "ending", never "crashed", and a normal end is never announced as a failure. A
  // helper that is gone for good is called crashed once the grace is over.
  void a_session_between_its_socket_closing_and_its_report_is_ending_not_crashed() {
    const QString ok_dir = started_session("20261201T000002Z-ends");
    const QString gone_dir = started_session("20261201T000003Z-gone");
    auto helper_ok = std::make_unique<QLocalServer>();
    auto helper_gone = std::make_unique<QLocalServer>();
    QDir().mkpath(QFileInfo(AppPaths::controlSocketPath(ok_dir)).path());
    QVERIFY(helper_ok->listen(AppPaths::controlSocketPath(ok_dir)));
    QVERIFY(helper_gone->listen(AppPaths::controlSocketPath(gone_dir)));

    SessionsModel m;
    QSignalSpy failed(&m, &SessionsModel::sessionFailed);
    const auto state = [&](const QString& dir) {
      return m.data(m.index(m.rowOfDir(dir)), SessionsModel::StateRole).toString();
    };
    QCOMPARE(state(ok_dir), QString("running"));
    QCOMPARE(state(gone_dir), QString("running"));

    helper_ok.reset();  // both sockets close
    helper_gone.reset();
    m.reload();
    QCOMPARE(state(ok_dir), QString("ending"));
    QCOMPARE(m.data(m.index(m.rowOfDir(ok_dir)), SessionsModel::StateWordsRole).toString(), QString("ending…"));
    QCOMPARE(m.data(m.index(m.rowOfDir(ok_dir)), SessionsModel::AttentionRole).toBool(), false);
    // One writes its report: it ended, as it said.
    QFile report(ok_dir + "/report.json");
    QVERIFY(report.open(QIODevice::WriteOnly));
    report.write(R"({"session_id":"20261201T000002Z-ends","status":"exited","exit_code":0})");
    report.close();
    QTRY_COMPARE_WITH_TIMEOUT(state(ok_dir), QString("exited"), 5000);
    // The other never does: crashed, once, after the grace.
    QTRY_COMPARE_WITH_TIMEOUT(state(gone_dir), QString("abandoned"), 10000);
    QCOMPARE(failed.count(), 1);
    QCOMPARE(failed.at(0).at(0).toString(), QString("20261201T000003Z-gone"));
  }

  // A session the app first sees with neither a control socket nor a report, its log written a
  // moment ago, is in its first (or, if short, its last) milliseconds: "starting", watched, and
  // "ended" once its report comes, never "crashed" and never announced as a failure. One whose
  // log has been quiet for longer than the grace crashed before the app saw it.
  void a_session_first_seen_without_socket_or_report_is_starting_while_its_log_is_fresh() {
    const QString fresh_dir = started_session("20261201T000004Z-fresh");
    const QString quiet_dir = started_session("20261201T000005Z-quiet");
    QFile quiet(quiet_dir + "/events.jsonl");
    QVERIFY(quiet.open(QIODevice::ReadWrite));
    QVERIFY(quiet.setFileTime(QDateTime::currentDateTime().addSecs(-60), QFileDevice::FileModificationTime));
    quiet.close();

    SessionsModel m;
    QSignalSpy failed(&m, &SessionsModel::sessionFailed);
    const auto state = [&](const QString& dir) {
      return m.data(m.index(m.rowOfDir(dir)), SessionsModel::StateRole).toString();
    };
    QCOMPARE(state(fresh_dir), QString("starting"));
    QCOMPARE(m.data(m.index(m.rowOfDir(fresh_dir)), SessionsModel::StateWordsRole).toString(), QString("starting…"));
    QCOMPARE(m.data(m.index(m.rowOfDir(fresh_dir)), SessionsModel::AttentionRole).toBool(), false);
    QCOMPARE(state(quiet_dir), QString("abandoned"));
    QFile report(fresh_dir + "/report.json");
    QVERIFY(report.open(QIODevice::WriteOnly));
    report.write(R"({"session_id":"20261201T000004Z-fresh","status":"exited","exit_code":0})");
    report.close();
    QTRY_COMPARE_WITH_TIMEOUT(state(fresh_dir), QString("exited"), 5000);
    // Every row settles once the grace is over (the earlier cases' crashed sessions, fresh too
    // when this model first saw them, as crashed), and none is announced as a failure.
    const auto settling = [&] {
      for (int i = 0; i < m.rowCount(); ++i)
        if (const QString st = m.data(m.index(i), SessionsModel::StateRole).toString(); st == "starting" || st == "ending")
          return true;
      return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(!settling(), 10000);
    QCOMPARE(state(quiet_dir), QString("abandoned"));
    QCOMPARE(failed.count(), 0);
  }
};

QTEST_MAIN(SessionsModelTest)
#include "sessions_model_test.moc"
