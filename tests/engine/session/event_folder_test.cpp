// What reaches events.jsonl: identical events within the window fold into one counted line, the
// file never passes its cap (one notice says it was reached, later events are counted as
// dropped), and session_ended is always written. Times are given, so nothing here waits.
#include <QtTest>

#include "engine/session/event_folder.h"

using namespace paddock::session;
using nlohmann::json;

namespace {

Event deny(const std::string& host, const std::string& ts) {
  Event e = make_event(NetRequest{host, 443, "connect", "deny", "egress.domains: " + host + " not listed", "not listed", ""});
  e.ts = ts;
  return e;
}

std::vector<Event> decoded(const std::vector<EventLine>& lines, bool file_only = true) {
  std::vector<Event> out;
  for (const auto& l : lines)
    if (l.to_file || !file_only) {
      auto e = decode_event(l.text);
      if (e.ok()) out.push_back(*e);
    }
  return out;
}

void append(std::vector<EventLine>& all, std::vector<EventLine> more) {
  for (auto& l : more) all.push_back(std::move(l));
}

}  // namespace

class EventFolderTest : public QObject {
  Q_OBJECT
 private slots:
  void repeats_within_the_window_become_one_counted_line() {
    EventFolder f;
    auto first = f.add(deny("a.example", "t0"), 0);
    QCOMPARE(first.size(), std::size_t{1});  // the first is written at once
    for (int i = 1; i <= 500; ++i) QVERIFY(f.add(deny("a.example", "t" + std::to_string(i)), i * 10).empty());
    QVERIFY(f.flush_due(kFoldWindowMs - 1).empty());
    auto folded = decoded(f.flush_due(kFoldWindowMs));
    QCOMPARE(folded.size(), std::size_t{1});
    QCOMPARE(folded[0].count, std::int64_t{500});
    QCOMPARE(folded[0].ts, std::string("t1"));
    QCOMPARE(folded[0].last_ts, std::string("t500"));
    QCOMPARE(folded[0].fields, deny("a.example", "").fields);
    // The window is closed: the next one is written at once again.
    QCOMPARE(f.add(deny("a.example", "later"), kFoldWindowMs + 1).size(), std::size_t{1});
    QVERIFY(!f.pending() || f.flush_all().empty());
  }

  void events_that_differ_in_a_field_are_not_folded_but_each_kind_folds_on_its_own() {
    EventFolder f;
    std::vector<EventLine> all;
    for (int i = 0; i < 100; ++i) {  // a retry loop alternating two denials
      append(all, f.add(deny("a.example", "a" + std::to_string(i)), i));
      append(all, f.add(deny("b.example", "b" + std::to_string(i)), i));
    }
    append(all, f.flush_all());
    auto lines = decoded(all);
    QCOMPARE(lines.size(), std::size_t{4});
    std::int64_t total = 0;
    for (const auto& e : lines) total += e.count;
    QCOMPARE(total, std::int64_t{200});  // every event is accounted for
  }

  void a_session_s_singletons_are_never_folded() {
    EventFolder f;
    Report r;
    r.session_id = "s";
    Event ended = session_ended_event(r);
    ended.ts = "t";
    QCOMPARE(f.add(ended, 0).size(), std::size_t{1});
    QCOMPARE(f.add(ended, 1).size(), std::size_t{1});
    QVERIFY(!f.pending());
  }

  void with_too_many_kinds_at_once_the_oldest_is_written_out_first() {
    EventFolder::Limits limits;
    limits.max_kinds = 2;
    EventFolder f(limits);
    std::vector<EventLine> all;
    append(all, f.add(deny("a", "1"), 0));
    append(all, f.add(deny("b", "2"), 1));
    append(all, f.add(deny("a", "3"), 2));  // folded into a
    append(all, f.add(deny("c", "4"), 3));  // evicts a, which writes its count
    auto lines = decoded(all);
    QCOMPARE(lines.size(), std::size_t{4});
    QCOMPARE(lines[2].fields["host"].get<std::string>(), std::string("a"));
    QCOMPARE(lines[2].count, std::int64_t{1});
    QCOMPARE(lines[3].fields["host"].get<std::string>(), std::string("c"));
  }

  void the_file_stays_under_its_cap_says_so_once_and_still_gets_session_ended() {
    EventFolder::Limits limits;
    limits.cap_bytes = 16 << 10;
    limits.reserve_bytes = 2 << 10;
    EventFolder f(limits);
    std::vector<EventLine> all;
    const int n = 2000;
    for (int i = 0; i < n; ++i) append(all, f.add(deny("host" + std::to_string(i) + ".example", "t"), i));
    QVERIFY(f.capped());
    Report r;
    r.session_id = "s";
    r.events_dropped = f.dropped();
    Event ended = session_ended_event(r);
    ended.ts = "t";
    append(all, f.add(ended, n));
    std::int64_t bytes = 0;
    int notices = 0, written = 0, subscribers_only = 0;
    for (const auto& l : all) {
      if (!l.to_file) {
        ++subscribers_only;
        continue;
      }
      bytes += static_cast<std::int64_t>(l.text.size()) + 1;
      auto e = decode_event(l.text);
      QVERIFY(e.ok());
      if (e->type == EventType::kNotice) {
        ++notices;
        QCOMPARE(e->fields["kind"].get<std::string>(), std::string("event_log_capped"));
      } else if (e->type == EventType::kNetRequest) {
        ++written;
      }
    }
    QVERIFY2(bytes <= limits.cap_bytes, std::to_string(bytes).c_str());
    QCOMPARE(bytes, f.written());
    QCOMPARE(notices, 1);
    QCOMPARE(written + f.dropped(), std::int64_t{n});
    QCOMPARE(subscribers_only, static_cast<int>(f.dropped()));  // live subscribers still see them
    auto last = decode_event(all.back().text);
    QVERIFY(last->type == EventType::kSessionEnded && all.back().to_file);
  }

  void a_log_appended_to_counts_what_it_already_holds() {
    EventFolder::Limits limits;
    limits.cap_bytes = 8 << 10;
    limits.reserve_bytes = 1 << 10;
    EventFolder f(limits);
    f.add_existing(7 << 10);
    auto lines = f.add(deny("a", "t"), 0);
    QVERIFY(f.capped());
    QCOMPARE(f.dropped(), std::int64_t{1});
    QCOMPARE(lines.size(), std::size_t{2});  // the notice, and the event for subscribers only
    QVERIFY(lines[0].to_file && !lines[1].to_file);
  }
};

QTEST_APPLESS_MAIN(EventFolderTest)
#include "event_folder_test.moc"
