// The sessions directory's readers: a session's frozen IR as every front end reads it.
#include <QtTest>
#include <filesystem>
#include <fstream>
#include <memory>

#include "engine/ir.h"
#include "platform/sessions.h"

namespace fs = std::filesystem;
using paddock::FrozenIr;
using paddock::platform::read_session_ir;

class SessionsTest : public QObject {
  Q_OBJECT
  std::unique_ptr<QTemporaryDir> tmp_;
  fs::path dir_;

  void put(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

 private slots:
  void init() {
    tmp_ = std::make_unique<QTemporaryDir>();
    QVERIFY(tmp_->isValid());
    dir_ = tmp_->path().toStdString();
  }

  void a_sessions_ir_reads_back_as_the_engine_froze_it() {
    FrozenIr ir;
    ir.meta.project = "/home/u/project";
    ir.egress.ask_timeout_secs = 45;
    put(dir_ / "ir.json", paddock::canonical_bytes(ir));
    auto back = read_session_ir(dir_.string());
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QCOMPARE(back->meta.project, std::string("/home/u/project"));
    QCOMPARE(back->egress.ask_timeout_secs, 45);
    QCOMPARE(paddock::ir_hash(*back), paddock::ir_hash(ir));
  }

  void an_ir_file_that_is_not_json_or_not_an_ir_is_an_error_naming_it() {
    put(dir_ / "ir.json", "{not json");
    auto r = read_session_ir(dir_.string());
    QVERIFY(!r.ok());
    QVERIFY2(r.error().message.find((dir_ / "ir.json").string() + ": not JSON") != std::string::npos,
             r.error().message.c_str());
    put(dir_ / "ir.json", "{\"meta\": 7}");
    r = read_session_ir(dir_.string());
    QVERIFY(!r.ok());
    QVERIFY2(r.error().message.rfind((dir_ / "ir.json").string() + ": ", 0) == 0, r.error().message.c_str());
  }

  void a_missing_or_symlinked_ir_file_is_an_error() {
    QVERIFY(!read_session_ir(dir_.string()).ok());
    FrozenIr ir;
    put(dir_ / "elsewhere.json", paddock::canonical_bytes(ir));
    fs::create_symlink(dir_ / "elsewhere.json", dir_ / "ir.json");
    QVERIFY(!read_session_ir(dir_.string()).ok());
  }
};

QTEST_GUILESS_MAIN(SessionsTest)
#include "sessions_test.moc"
