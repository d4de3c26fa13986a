// Explain against enforcement, over generated policies: for each of a fixed, seeded set of
// layered policies (allow_read, allow_write, deny and deny_write over nested, equal and absent
// paths, in the user layer and a --policy file), one real `paddock run` tries to read, write and
// create at every probed path, and `explain --why` on the IR that very session enforced
// (its ir.json) must say exactly that: read and write where it says "write", read only where it
// says "read", nothing where it says "none". Root and uid 65534, in both Linux tiers: the
// landlock tier differs in its one documented loss and no more (nothing can be created directly
// in a directory that holds a denied or read-only path, docs/capabilities.md).
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "tests/app/cli/cli_home.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_util.h"

using namespace paddock;
using namespace paddock::test;
namespace fs = std::filesystem;

namespace {

constexpr int kPolicies = 16;

struct Entry {
  std::string key, path;
  bool cli_file = false;  // in the --policy file, else in the user layer
};

std::string yaml_of(const std::vector<Entry>& entries, bool cli_file) {
  std::map<std::string, std::vector<std::string>> by_key;
  for (const auto& e : entries)
    if (e.cli_file == cli_file) by_key[e.key].push_back(e.path);
  std::string y = "version: 1\nfilesystem:\n";
  if (by_key.empty()) return "version: 1\n";
  for (const auto& [k, v] : by_key) {
    y += "  " + k + ":\n";
    for (const auto& p : v) y += "    - \"" + p + "\"\n";
  }
  return y;
}

}  // namespace

class RunDifferentialTest : public QObject {
  Q_OBJECT

  CliHome h_;

  // Policy texts ("~/a", "$PROJECT/s") -> absolute paths.
  std::string abs(const std::string& p) const {
    if (p.rfind("~/", 0) == 0) return h_.home + p.substr(1);
    if (p.rfind("$PROJECT", 0) == 0) return h_.project + p.substr(8);
    return p;
  }

  std::set<std::string> sessions() const {
    std::set<std::string> out;
    std::error_code ec;
    for (const auto& d : fs::directory_iterator(h_.root + "/state/paddock/sessions", ec)) out.insert(d.path().string());
    return out;
  }

  // The IR of the one session that is not in `before`.
  std::string new_session_ir(const std::set<std::string>& before) const {
    std::string found;
    for (const auto& s : sessions())
      if (!before.count(s)) found = found.empty() ? s : "(more than one)";
    return found.empty() || found[0] == '(' ? "" : slurp(found + "/ir.json");
  }

 private slots:
  void cleanup() {
    std::error_code ec;
    if (!h_.root.empty()) fs::remove_all(h_.root, ec);
    h_.root.clear();
  }

  void explain_and_the_sandbox_agree_on_every_generated_policy_data() { add_uid_and_tier_rows(); }
  void explain_and_the_sandbox_agree_on_every_generated_policy() {
    QFETCH(uint, uid);
    QFETCH(QString, tier);
    const bool landlock = tier == "landlock";
    // Outside /tmp: a write there outside every grant would land in the sandbox's own /tmp.
    QVERIFY(h_.create(uid, "diff", {"PADDOCK_SYSTEM_DIR", "PADDOCK_FORCE_TIER"}, "home", "proj", "/var/tmp"));
    const std::vector<std::string> files = {"~/a/f.txt", "~/a/b/g.txt", "~/c/h.txt", "$PROJECT/s/t.txt", "$PROJECT/u.txt"};
    const std::vector<std::string> dirs = {"~/a", "~/a/b", "~/c", "$PROJECT/s", "$PROJECT"};
    const std::vector<std::string> absent = {"~/a/new.txt", "$PROJECT/absent.txt"};
    std::vector<std::string> candidates = {"~/a", "~/a/b", "~/a/b/g.txt", "~/a/f.txt", "~/c", "~/c/h.txt",
                                           "$PROJECT/s", "$PROJECT/s/t.txt", "$PROJECT/u.txt"};
    candidates.insert(candidates.end(), absent.begin(), absent.end());
    const std::vector<std::string> keys = {"allow_read", "allow_write", "deny", "deny_write"};
    for (const auto& f : files) put(abs(f), "DATA:" + f + "\n");
    h_.chown_all();

    std::mt19937 rng(20261201);
    int compared = 0;
    for (int k = 0; k < kPolicies; ++k) {
      std::vector<Entry> entries;
      const int n = 1 + static_cast<int>(rng() % 5);
      for (int i = 0; i < n; ++i)
        entries.push_back({keys[rng() % keys.size()], candidates[rng() % candidates.size()], rng() % 3 == 0});
      const std::string user = yaml_of(entries, false), file = yaml_of(entries, true);
      put(h_.root + "/config/paddock/policy.yaml", user);
      put(h_.root + "/extra.yaml", file);
      chown_tree(h_.root + "/config", uid);
      chown_tree(h_.root + "/extra.yaml", uid);
      const std::string shown = "policy " + std::to_string(k) + ":\nuser layer:\n" + user + "--policy file:\n" + file;

      std::string script;
      for (const auto& f : files)
        script += "if [ \"$(cat '" + abs(f) + "' 2>/dev/null)\" = 'DATA:" + f + "' ]; then echo 'R " + f +
                  " 1'; else echo 'R " + f + " 0'; fi; ( : >> '" + abs(f) + "' ) 2>/dev/null && echo 'W " + f +
                  " 1' || echo 'W " + f + " 0'; ";
      for (const auto& d : dirs)
        script += "( : > '" + abs(d) + "/.probe-new' ) 2>/dev/null && { echo 'C " + d + " 1'; rm -f '" + abs(d) +
                  "/.probe-new'; } || echo 'C " + d + " 0'; ";
      for (const auto& a : absent)
        script += "( : > '" + abs(a) + "' ) 2>/dev/null && { echo 'C " + a + " 1'; rm -f '" + abs(a) + "'; } || echo 'C " +
                  a + " 0'; ";
      const auto before = sessions();
      std::vector<std::string> argv = tier_run_argv(tier.toStdString());
      for (std::string a : std::vector<std::string>{"--policy", h_.root + "/extra.yaml", "--", "sh", "-c", script + "echo end"})
        argv.push_back(std::move(a));
      auto r = run_process(argv, h_.opts);
      QVERIFY2(r.exit_code == 0 && r.out.find("end") != std::string::npos, (shown + dump(r).toStdString()).c_str());

      // Explain, on the IR this session ran under.
      const auto j = nlohmann::json::parse(new_session_ir(before), nullptr, false);
      auto ir = ir_from_json(j);
      QVERIFY2(!j.is_discarded() && ir.ok(), shown.c_str());
      Evaluation ev;
      ev.ir = *ir;
      ev.provenance = nlohmann::json::object();
      auto expect = [&](const std::string& path) { return why(ev, path).access; };
      // The landlock tier's loss: a directory that holds a path the agent may not write (denied,
      // protected, or a read grant nested in the write grant) is carved to a listing only.
      auto carved = [&](const std::string& dir) {
        std::vector<std::string> targets;
        for (const auto& d : ir->fs.deny) targets.push_back(d.path);
        for (const auto& d : ir->fs.deny_write) targets.push_back(d.path);
        for (const auto& root : ir->fs.read_roots)
          if (std::find(ir->fs.write_roots.begin(), ir->fs.write_roots.end(), root) == ir->fs.write_roots.end())
            targets.push_back(root);
        return landlock && std::any_of(targets.begin(), targets.end(), [&](const std::string& t) {
                 return t.size() > dir.size() + 1 && t.compare(0, dir.size(), dir) == 0 && t[dir.size()] == '/';
               });
      };
      auto observed = [&](const std::string& tag, const std::string& p) {
        const std::string line = tag + " " + p + " ";
        const auto at = r.out.find(line);
        return at == std::string::npos ? std::string("?") : r.out.substr(at + line.size(), 1);
      };
      auto check = [&](const std::string& what, const std::string& p, bool want, const std::string& got,
                       const std::string& verdict) {
        ++compared;
        QVERIFY2(got == (want ? "1" : "0"), (shown + "\n" + what + " " + p + ": explain says access " + verdict +
                                             ", the sandbox gave " + (got == "1" ? "it" : "no " + what) + "\n" +
                                             dump(r).toStdString())
                                                .c_str());
      };
      for (const auto& f : files) {
        const std::string a = expect(abs(f));
        check("read", f, a != "none", observed("R", f), a);
        check("write", f, a == "write", observed("W", f), a);
      }
      for (const auto& d : dirs) {
        const std::string a = expect(abs(d) + "/.probe-new");
        check("create", d, a == "write" && !carved(abs(d)), observed("C", d), a);
      }
      for (const auto& p : absent) {
        const std::string a = expect(abs(p));
        check("create", p, a == "write" && !carved(fs::path(abs(p)).parent_path().string()), observed("C", p), a);
        QVERIFY2(!fs::exists(fs::symlink_status(abs(p))), (shown + "\n" + p + " is left on the host").c_str());
      }
    }
    QVERIFY(compared == kPolicies * 17);
  }
};

QTEST_GUILESS_MAIN(RunDifferentialTest)
#include "run_differential_test.moc"
