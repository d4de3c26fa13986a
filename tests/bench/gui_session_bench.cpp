// The session views under load (no timing asserts; budgets and ratios are printed):
//  - 10,000 events/s appended to events.jsonl for 3 s while the monitor and a filtered Network
//    view follow it: the longest UI-thread stall (a 1 ms timer's largest gap) against a 16 ms
//    frame, and against the same loop with no monitor (the baseline, same run);
//  - a million events: RSS before and after, with the windowed log (rows kept vs. read), and the
//    sessions list counting its requests (on a worker): the longest UI-thread stall meanwhile;
//  - idle: CPU used by the event loop over 3 s with a project's sessions list, the monitor of a
//    session that has ended, and nothing happening (goal 0%).
#include <sys/resource.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QGuiApplication>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <cstdio>

#include "app_paths.h"
#include "event_filter_model.h"
#include "session_monitor.h"
#include "sessions_model.h"

using namespace paddock::gui;

namespace {

long rss_kib() {
  QFile f("/proc/self/status");
  if (!f.open(QIODevice::ReadOnly)) return -1;
  for (const QByteArray& line : f.readAll().split('\n'))
    if (line.startsWith("VmRSS:")) return line.mid(6).trimmed().split(' ').first().toLong();
  return -1;
}

double cpu_ms() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

QByteArray event_line(int i) {
  return QByteArray("{\"ts\":\"2026-12-01T00:00:00.000Z\",\"event\":\"net_request\",\"host\":\"h") +
         QByteArray::number(i % 97) +
         ".example\",\"port\":443,\"protocol\":\"connect\",\"decision\":\"" + (i % 5 ? "allow" : "deny") +
         "\",\"rule\":\"agent-preset network.allow_domains[0]\",\"reason\":\"\"}\n";
}

// Appends `rate` events per second to `file` for `secs` seconds from a timer on this thread
// (as the helper's writes arrive between frames), and returns the longest gap of a 1 ms timer.
qint64 stall_ms(const QString& file, int rate, int secs) {
  QFile out(file);
  out.open(QIODevice::Append);
  QElapsedTimer clock;
  clock.start();
  qint64 last = 0, worst = 0;
  int written = 0;
  QTimer tick, writer;
  tick.setInterval(1);
  QObject::connect(&tick, &QTimer::timeout, [&] {
    const qint64 now = clock.elapsed();
    worst = std::max(worst, now - last);
    last = now;
  });
  writer.setInterval(10);
  QObject::connect(&writer, &QTimer::timeout, [&] {
    const int due = static_cast<int>(clock.elapsed() * rate / 1000);
    QByteArray chunk;
    while (written < due) chunk += event_line(written++);
    out.write(chunk);
    out.flush();
  });
  tick.start();
  writer.start();
  while (clock.elapsed() < secs * 1000) QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  QTemporaryDir tmp;
  qputenv("XDG_STATE_HOME", (tmp.path() + "/state").toUtf8());
  qputenv("XDG_RUNTIME_DIR", (tmp.path() + "/runtime").toUtf8());
  QGuiApplication app(argc, argv);
  const QString sessions = tmp.path() + "/state/paddock/sessions";

  // Baseline: the same loop and writer, nobody reading.
  const QString base_dir = sessions + "/20261201-000000-base";
  QDir().mkpath(base_dir);
  const qint64 base = stall_ms(base_dir + "/events.jsonl", 10000, 3);

  const QString dir = sessions + "/20261201-000000-load";
  QDir().mkpath(dir);
  QFile(dir + "/events.jsonl").open(QIODevice::WriteOnly);
  SessionMonitor monitor;
  monitor.setSessionDir(dir);
  EventFilterModel network;
  network.setSource(&monitor);
  network.setNetworkOnly(true);
  network.setDecision("deny");
  const qint64 loaded = stall_ms(dir + "/events.jsonl", 10000, 3);
  QCoreApplication::processEvents();
  std::printf("10,000 events/s for 3 s: longest UI stall %lld ms with the log and a filtered view "
              "(budget 16 ms; %lld ms with nobody reading: %.2fx); rows %d, denied shown %d\n",
              static_cast<long long>(loaded), static_cast<long long>(base),
              base > 0 ? double(loaded) / double(base) : 0.0, monitor.rowCount(), network.rowCount());

  // A million events.
  const QString big = sessions + "/20261201-000000-mill";
  QDir().mkpath(big);
  {
    QFile out(big + "/events.jsonl");
    out.open(QIODevice::WriteOnly);
    QByteArray chunk;
    for (int i = 0; i < 1000000; ++i) {
      chunk += event_line(i);
      if (chunk.size() > (1 << 20)) {
        out.write(chunk);
        chunk.clear();
      }
    }
    out.write(chunk);
  }
  const long rss_before = rss_kib();
  QElapsedTimer t;
  t.start();
  // The UI thread's longest stall from opening the log until its tail is shown (a worker finds
  // where the tail starts; the tail is read one slice per turn of the event loop).
  qint64 open_last = 0, open_worst = 0;
  QTimer open_tick;
  open_tick.setInterval(1);
  QObject::connect(&open_tick, &QTimer::timeout, [&] {
    open_worst = std::max(open_worst, t.elapsed() - open_last);
    open_last = t.elapsed();
  });
  open_tick.start();
  SessionMonitor million;
  million.setSessionDir(big);
  while (million.rowCount() < SessionMonitor::kDefaultMaxRows && t.elapsed() < 60000)
    QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
  open_tick.stop();
  open_worst = std::max(open_worst, t.elapsed() - open_last);
  const qint64 read_ms = t.elapsed();
  std::printf("1,000,000 events: RSS %ld -> %ld KiB (+%ld KiB), rows kept %d (window %d), older in the file %lld; "
              "read in %lld ms; longest UI stall meanwhile %lld ms (budget 16 ms)\n",
              rss_before, rss_kib(), rss_kib() - rss_before, million.rowCount(), SessionMonitor::kDefaultMaxRows,
              static_cast<long long>(million.droppedRows()), static_cast<long long>(read_ms),
              static_cast<long long>(open_worst));

  // Idle: an ended session's monitor and the sessions list, nothing changing.
  QFile report(big + "/report.json");
  report.open(QIODevice::WriteOnly);
  report.write(R"({"session_id":"20261201-000000-mill","status":"exited","exit_code":0,"duration_ms":1,)"
               R"("attested":false,"limits_hit":[],"usage":{"cpu_ms":0,"max_rss":0,"pids":0},"ended":"2026-12-01T00:00:01Z",)"
               R"("events_dropped":0})");
  report.close();
  // The sessions list counts the million requests and denials: the UI thread's longest stall from
  // the list's creation until the counts are in.
  QElapsedTimer counting;
  counting.start();
  qint64 last_tick = 0, worst_tick = 0;
  QTimer tick;
  tick.setInterval(1);
  QObject::connect(&tick, &QTimer::timeout, [&] {
    const qint64 now = counting.elapsed();
    worst_tick = std::max(worst_tick, now - last_tick);
    last_tick = now;
  });
  tick.start();
  SessionsModel list;
  const int big_row = list.rowOfDir(big);
  while (list.data(list.index(big_row), SessionsModel::RequestsRole).toInt() < 1000000 && counting.elapsed() < 120000)
    QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
  tick.stop();
  worst_tick = std::max(worst_tick, counting.elapsed() - last_tick);
  std::printf("sessions list over the 1,000,000-event log: %d requests, %d denied, counted in %lld ms; longest UI "
              "stall meanwhile %lld ms (budget 16 ms)\n",
              list.data(list.index(big_row), SessionsModel::RequestsRole).toInt(),
              list.data(list.index(big_row), SessionsModel::DeniedRole).toInt(),
              static_cast<long long>(counting.elapsed()), static_cast<long long>(worst_tick));
  million.reload();
  QElapsedTimer settle;
  settle.start();
  while (settle.elapsed() < 3000) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
  const double c0 = cpu_ms();
  // The real event loop (it sleeps until something happens), for 3 s.
  QEventLoop loop;
  QTimer::singleShot(3000, &loop, &QEventLoop::quit);
  loop.exec();
  const double used = cpu_ms() - c0;
  std::printf("idle 3 s with the sessions list (%d sessions) and an ended session open: CPU %.1f ms (%.2f%%; goal 0%%)\n",
              list.count(), used, used / 30.0);
  return 0;
}
