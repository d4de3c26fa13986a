// `paddock sessions`, `verify`, and `stop` over session directories that hold anything at all: a
// type-confused report.json (which once made `paddock sessions` abort), one that is not JSON, is
// nested absurdly deep or is huge, a FIFO or a symlink in its place, a first event line that
// does not read. Every such session is listed as unreadable with the file named, the others are
// listed as they are, and no command crashes or hangs.
#include <sys/stat.h>

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "tests/support/process_runner.h"

using nlohmann::json;
using paddock::test::run_process;
using paddock::test::RunOptions;

namespace fs = std::filesystem;

namespace {

const std::string kStarted =
    R"({"event":"session_started","ts":"2026-11-29T23:05:01.000Z","command":["sh","-c","true"],"ir_hash":"sha256:11",)"
    R"("session_id":"s","plan_hash":"sha256:22","backend":"linux","tainted":false,"helper_pid":1})"
    "\n";
const std::string kReport = R"({"session_id":"s","status":"exited","exit_code":3})";

struct World {
  QTemporaryDir tmp;
  std::string root = fs::canonical(tmp.path().toStdString()).string();
  std::string sessions = root + "/state/paddock/sessions";

  void file(const std::string& id, const std::string& name, const std::string& bytes) const {
    fs::create_directories(sessions + "/" + id);
    std::ofstream(sessions + "/" + id + "/" + name, std::ios::binary) << bytes;
  }
  paddock::test::ProcessResult run(std::vector<std::string> args) const {
    args.insert(args.begin(), paddock::test::paddock_bin());
    RunOptions o;
    o.cwd = root;
    o.env_override = {{"HOME", root + "/home"}, {"XDG_STATE_HOME", root + "/state"},
                      {"XDG_RUNTIME_DIR", root + "/run"}};
    o.timeout_ms = 30000;  // a reader that blocked on a FIFO would be killed, and fail below
    return run_process(args, o);
  }
};

}  // namespace

class SessionsCliTest : public QObject {
  Q_OBJECT
 private slots:
  void every_malformed_session_is_listed_as_unreadable_naming_its_file() {
    World w;
    fs::create_directories(w.root + "/run/paddock");
    w.file("s-ok", "events.jsonl", kStarted);
    w.file("s-ok", "report.json", kReport);
    w.file("s-confused", "events.jsonl", kStarted);
    w.file("s-confused", "report.json", R"({"session_id":"s","status":7,"exit_code":"0","usage":[]})");
    w.file("s-notjson", "report.json", "{\"status\":");
    w.file("s-array", "report.json", "[\"exited\", 0]");
    w.file("s-deep", "report.json", std::string(200000, '[') + std::string(200000, ']'));
    w.file("s-huge", "report.json",
           "{\"session_id\":\"s\",\"status\":\"exited\",\"exit_code\":0,\"error\":\"" + std::string(3 << 20, 'x') + "\"}");
    w.file("s-badstart", "events.jsonl", "{\"event\":\"session_started\",\"ts\":\"t\",\"command\":[1]}\n");
    w.file("s-badstart", "report.json", kReport);
    w.file("s-utf8", "report.json", "{\"session_id\":\"\xff\",\"status\":\"exited\",\"exit_code\":0}");
    fs::create_directories(w.sessions + "/s-fifo");
    QCOMPARE(::mkfifo((w.sessions + "/s-fifo/report.json").c_str(), 0600), 0);
    w.file("s-link", "events.jsonl", kStarted);
    fs::create_symlink("/etc/hostname", w.sessions + "/s-link/report.json");
    w.file("s-gone", "events.jsonl", kStarted);  // no report, nobody on the control socket
    w.file("s-stale-socket", "events.jsonl", kStarted);
    std::ofstream(w.root + "/run/paddock/s-stale-socket.sock") << "not a socket";
    w.file("not.a.session", "report.json", kReport);  // not an id: not listed

    auto text = w.run({"sessions"});
    QVERIFY2(text.exit_code == 0, (text.out + text.err).c_str());
    QVERIFY2(text.err.empty(), text.err.c_str());
    auto json_out = w.run({"sessions", "--json"});
    QVERIFY2(json_out.exit_code == 0, (json_out.out + json_out.err).c_str());
    const json all = json::parse(json_out.out);
    std::map<std::string, json> by_id;
    for (const auto& s : all) by_id[s["id"].get<std::string>()] = s;
    QCOMPARE(by_id.size(), std::size_t{12});
    QVERIFY(!by_id.count("not.a.session"));

    QCOMPARE(by_id["s-ok"]["status"].get<std::string>(), std::string("exited"));
    QCOMPARE(by_id["s-ok"]["exit_code"].get<int>(), 3);
    QCOMPARE(by_id["s-ok"]["command"], json({"sh", "-c", "true"}));
    QCOMPARE(by_id["s-gone"]["status"].get<std::string>(), std::string("abandoned"));
    QCOMPARE(by_id["s-stale-socket"]["status"].get<std::string>(), std::string("abandoned"));
    const std::pair<const char*, const char*> unreadable[] = {
        {"s-confused", "report.json"}, {"s-notjson", "report.json"}, {"s-array", "report.json"},
        {"s-deep", "report.json"},     {"s-huge", "report.json"},    {"s-badstart", "events.jsonl"},
        {"s-utf8", "report.json"},     {"s-fifo", "report.json"},    {"s-link", "report.json"}};
    for (const auto& [id, file] : unreadable) {
      const json& s = by_id[id];
      QVERIFY2(s["status"] == "unreadable", s.dump().c_str());
      QVERIFY2(s["problem"].get<std::string>().find(file) != std::string::npos, s.dump().c_str());
      QVERIFY2(s["exit_code"].is_null(), s.dump().c_str());
      // The text listing says the same, on the session's own line.
      const auto line = text.out.find(std::string(id) + "  unreadable  -  ");
      QVERIFY2(line != std::string::npos, (std::string(id) + "\n" + text.out).c_str());
    }
  }

  void verify_and_stop_answer_in_one_line_whatever_the_files_hold() {
    World w;
    const std::string id = "s-broken";
    w.file(id, "report.json", R"({"status":[]})");
    for (const auto& [ir, att, plan] :
         std::vector<std::tuple<std::string, std::string, std::string>>{
             {"{", "{", "{"},
             {"[]", "[]", "[]"},
             {R"({"meta":7})", R"({"ir_hash":7,"plan_hash":[]})", R"({"steps":"x"})"},
             {std::string(100000, '['), std::string(100000, '{'), "\xff\xfe"}}) {
      w.file(id, "ir.json", ir);
      w.file(id, "attestation.json", att);
      w.file(id, "plan.json", plan);
      auto v = w.run({"verify", "--session", id});
      QVERIFY2(v.exit_code == 103 || v.exit_code == 2, (std::to_string(v.exit_code) + v.out + v.err).c_str());
      QCOMPARE(std::count(v.err.begin(), v.err.end(), '\n'), 1L);
    }
    auto stop = w.run({"stop", id});
    QVERIFY2(stop.exit_code == 2 && stop.err.find("not running") != std::string::npos, stop.err.c_str());
  }
};

QTEST_APPLESS_MAIN(SessionsCliTest)
#include "sessions_cli_test.moc"
