// The classifier of host-executed changes (engine/review/classify.h) with the lists Paddock ships:
// every rule flags what it should, says why, and leaves ordinary project files, new git objects,
// moved refs and git's bookkeeping alone.
#include <QtTest>

#include "engine/builtin_lists.h"
#include "engine/review/classify.h"
#include "tests/support/test_paths.h"

using namespace paddock;
using namespace paddock::review;

namespace {

const std::string kProject = "/home/u/proj";
const std::string kHome = "/home/u";

BuiltinList load(const std::string& name) {
  auto l = load_builtin_list(paddock::test::source_dir() + "/resources", name);
  if (!l.ok()) qFatal("%s", l.error().message.c_str());
  return std::move(*l);
}

Change file(const std::string& rel, ChangeKind kind = ChangeKind::kAdded, unsigned mode = 0644) {
  Change c;
  c.path = rel[0] == '/' ? rel : kProject + "/" + rel;
  c.root = kProject;
  c.kind = kind;
  if (kind != ChangeKind::kAdded) c.before = {EntryType::kFile, 0644, 10, {}};
  if (kind != ChangeKind::kDeleted) c.after = {EntryType::kFile, mode, 12, {}};
  return c;
}

Change dir(const std::string& rel) {
  Change c = file(rel);
  c.after = {EntryType::kDir, 0755, 0, {}};
  return c;
}

bool has(const Change& c, const std::string& rule) {
  for (const auto& f : c.flags)
    if (f.rule == rule) return !f.why.empty();
  return false;
}

}  // namespace

class ClassifyTest : public QObject {
  Q_OBJECT
  BuiltinList tool_ = load("tool-executed");
  BuiltinList agent_ = load("agent-config");

  std::vector<Change> run(std::vector<Change> changes, const std::map<std::string, ChangeFacts>& facts = {}) {
    Classifier c({kProject, kHome, &tool_, &agent_});
    c.classify(changes, facts);
    return changes;
  }
  Change one(Change c, const std::map<std::string, ChangeFacts>& facts = {}) { return run({std::move(c)}, facts).front(); }

 private slots:
  void ordinary_project_files_are_safe_in_every_kind_of_change() {
    for (auto kind : {ChangeKind::kAdded, ChangeKind::kModified, ChangeKind::kDeleted})
      for (const char* p : {"src/main.c", "README.md", "package.json", "Makefile", "docs/a/b/c.txt"}) {
        const Change c = one(file(p, kind));
        QVERIFY2(c.flags.empty(), (std::string(p) + ": " + (c.flags.empty() ? "" : c.flags[0].rule)).c_str());
        QVERIFY(c.git == GitRole::kNone);
      }
  }

  void git_config_hooks_and_info_are_flagged_with_their_reason() {
    for (const char* p : {".git/config", ".git/hooks/pre-commit", ".git/info/attributes", ".git/modules/sub/config",
                          ".git/worktrees/w/gitdir", ".git/objects/info/alternates", ".git/description",
                          ".git/rebase-merge/git-rebase-todo"}) {
      const Change c = one(file(p, ChangeKind::kModified));
      QVERIFY2(has(c, "git-metadata"), p);
      QVERIFY(c.git == GitRole::kMetadata);
    }
    QVERIFY(one(file(".git/config", ChangeKind::kModified)).flags[0].why.find("fsmonitor") != std::string::npos);
  }

  void new_objects_moved_refs_and_bookkeeping_are_not_flagged() {
    const std::string obj = ".git/objects/ab/" + std::string(38, 'c');
    const Change o = one(file(obj));
    QVERIFY(o.flags.empty());
    QVERIFY(o.git == GitRole::kObject);
    const Change pack = one(file(".git/objects/pack/pack-" + std::string(40, 'a') + ".pack"));
    QVERIFY(pack.git == GitRole::kObject && pack.flags.empty());
    const Change ref = one(file(".git/refs/heads/main", ChangeKind::kModified));
    QVERIFY(ref.git == GitRole::kRef && ref.flags.empty());
    for (const char* p : {".git/index", ".git/logs/HEAD", ".git/logs/refs/heads/main", ".git/COMMIT_EDITMSG",
                          ".git/ORIG_HEAD", ".git/HEAD", ".git/packed-refs"}) {
      const Change c = one(file(p, ChangeKind::kModified));
      QVERIFY2(c.flags.empty(), p);
      QVERIFY2(c.git == GitRole::kBookkeeping, p);
    }
  }

  void removing_history_is_flagged() {
    QVERIFY(has(one(file(".git/refs/heads/feature", ChangeKind::kDeleted)), "removes-history"));
    QVERIFY(has(one(file(".git/objects/ab/" + std::string(38, 'c'), ChangeKind::kDeleted)), "removes-history"));
    Change gone = file(".git", ChangeKind::kDeleted);
    gone.before.type = EntryType::kDir;
    QVERIFY(has(one(gone), "removes-history"));
  }

  void an_index_that_adds_a_gitlink_is_flagged_and_one_that_does_not_is_not() {
    const Change c = file(".git/index", ChangeKind::kModified);
    std::map<std::string, ChangeFacts> facts;
    facts[c.path].added_gitlinks = {"vendor/evil"};
    const Change flagged = one(c, facts);
    QVERIFY(has(flagged, "gitlink"));
    QVERIFY(flagged.flags.front().why.find("vendor/evil") != std::string::npos);
    QVERIFY(one(c).flags.empty());
    facts[c.path] = {{}, "git index: not an index"};
    QVERIFY(has(one(c, facts), "gitlink"));
  }

  void a_new_nested_repository_flags_everything_in_it() {
    auto out = run({dir("vendor/evil"), dir("vendor/evil/.git"), file("vendor/evil/.git/config"),
                    file("vendor/evil/.git/HEAD"), file("vendor/evil/.git/objects/ab/" + std::string(38, 'c')),
                    file("vendor/evil/README")});
    for (const auto& c : out) {
      const bool in_git = c.path.find("/.git") != std::string::npos;
      QVERIFY2(has(c, "nested-repository") == in_git, c.path.c_str());
    }
    // A repository at the project's top that was not there before counts the same.
    QVERIFY(has(run({dir(".git"), file(".git/config")})[1], "nested-repository"));
  }

  void a_git_file_anywhere_is_flagged() {
    QVERIFY(has(one(file("sub/.git")), "git-file"));
    QVERIFY(has(one(file(".git", ChangeKind::kModified)), "git-file"));
  }

  void the_tool_executed_list_flags_its_files_at_any_depth_with_its_why() {
    for (const char* p : {".vscode/tasks.json", ".envrc", "packages/web/.envrc", ".husky/pre-commit", ".gitmodules",
                          "a/b/.mcp.json", ".claude/settings.json", "x.code-workspace", ".cargo/config.toml",
                          "gradle/wrapper/gradle-wrapper.properties"}) {
      const Change c = one(file(p));
      QVERIFY2(has(c, "tool-executed"), p);
      QVERIFY(!c.flags.front().source.empty());
    }
    // A name that merely contains one of them does not.
    QVERIFY(one(file("docs/envrc.md")).flags.empty());
    QVERIFY(one(file("my.vscode.txt")).flags.empty());
  }

  void the_agents_settings_are_flagged_in_their_own_write_roots() {
    Change c = file(kHome + "/.claude/settings.json", ChangeKind::kModified);
    c.root = kHome + "/.claude";
    QVERIFY(has(one(c), "agent-config"));
    Change history = file(kHome + "/.claude/projects/x.jsonl");
    history.root = kHome + "/.claude";
    QVERIFY(one(history).flags.empty());
  }

  void a_new_executable_bit_is_flagged_but_an_executable_that_stays_one_is_not() {
    QVERIFY(has(one(file("run.sh", ChangeKind::kAdded, 0755)), "new-executable"));
    Change chmod = file("build.sh", ChangeKind::kModified, 0755);
    QVERIFY(has(one(chmod), "new-executable"));
    chmod.before.mode = 0755;
    QVERIFY(one(chmod).flags.empty());
  }

  void a_symlink_is_flagged_only_when_it_points_outside_its_write_root() {
    const auto link = [](const std::string& rel, const std::string& target) {
      Change c = file(rel);
      c.after = {EntryType::kSymlink, 0777, 0, target};
      return c;
    };
    QVERIFY(one(link("a/l", "../b")).flags.empty());
    QVERIFY(one(link("l", kProject + "/x")).flags.empty());
    QVERIFY(has(one(link("l", "/etc/passwd")), "symlink-outside"));
    QVERIFY(has(one(link("a/l", "../../x")), "symlink-outside"));
    QVERIFY(has(one(link("a/l", "../../proj-other/x")), "symlink-outside"));
  }

  void devices_fifos_and_sockets_are_flagged() {
    Change c = file("fifo");
    c.after.type = EntryType::kOther;
    QVERIFY(has(one(c), "special-file"));
  }

  void git_roles_follow_the_innermost_git_directory() {
    QVERIFY(Classifier::git_role(kProject + "/sub/.git/config", ChangeKind::kModified) == GitRole::kMetadata);
    QVERIFY(Classifier::git_role(kProject + "/.github/workflows/ci.yml", ChangeKind::kAdded) == GitRole::kNone);
    QVERIFY(Classifier::git_role(kProject + "/.gitignore", ChangeKind::kAdded) == GitRole::kNone);
    QVERIFY(Classifier::git_role(kProject + "/.git/refs/tags/v1", ChangeKind::kAdded) == GitRole::kRef);
  }
};

QTEST_APPLESS_MAIN(ClassifyTest)
#include "classify_test.moc"
