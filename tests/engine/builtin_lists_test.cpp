// The built-in path lists (resources/lists) through evaluate(): every built-in profile masks a
// home holding every listed credential store, history and agent login, and a project holding a
// file for every secret pattern; names that ordinary files use stay readable; the files the
// user's tools execute are read-only, and lifting that is the user's explicit, linted choice.
// docs/credentials.md's second half is generated from the same data.
#include <QtTest>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/builtin_lists.h"
#include "engine/context.h"
#include "engine/engine.h"
#include "engine/lint.h"
#include "tests/engine/engine_test_env.h"
#include "tests/support/test_paths.h"

using namespace paddock;
using paddock::test::EngineEnv;
using paddock::test::eval_ok;

namespace {

const std::string kResources = paddock::test::source_dir() + "/resources";
const std::vector<std::string> kProfiles = {"default", "strict", "audit", "permissive"};
const std::vector<std::string> kAgents = {"", "claude-code", "codex", "gemini-cli", "aider", "opencode", "copilot", "custom"};

BuiltinList load(const std::string& name) {
  auto l = load_builtin_list(kResources, name);
  if (!l.ok()) qFatal("%s", l.error().message.c_str());
  return std::move(*l);
}


// The deny entry covering p (p itself or a directory above it), or nullptr.
const DenyEntry* covering(const std::vector<DenyEntry>& v, const std::string& p) {
  for (const auto& d : v)
    if (path_within(p, d.path)) return &d;
  return nullptr;
}

// A concrete name a glob component matches: `*` -> "x", `[eE]` -> "e", `?` -> "x".
std::string example_of(const std::string& pattern) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '*' || pattern[i] == '?') {
      out += 'x';
    } else if (pattern[i] == '[') {
      out += pattern[i + 1];
      i = pattern.find(']', i);
    } else {
      out += pattern[i];
    }
  }
  return out;
}

std::string expand_home(const std::string& p, const std::string& home) {
  if (p.rfind("~/", 0) == 0) return home + p.substr(1);
  if (p.rfind("$HOME/", 0) == 0) return home + p.substr(5);
  return "";
}

// Every home path of every deny list, created as a file holding a secret (a trailing directory
// name is created as a directory with a secret file inside).
std::vector<std::string> plant_home(const EngineEnv& env) {
  std::vector<std::string> planted;
  for (const auto& name : deny_list_names())
    for (const auto& e : load(name).entries)
      for (const auto& p : e.paths) {
        const std::string abs = expand_home(p.text, env.home);
        if (abs.empty()) continue;
        const std::string leaf = std::filesystem::path(abs).filename().string();
        const bool file_like = leaf.find('.', 1) != std::string::npos || leaf.find("history") != std::string::npos ||
                               leaf.find("credentials") != std::string::npos || leaf.find("token") != std::string::npos ||
                               leaf == ".pgpass" || leaf == ".netrc" || leaf == ".env" || leaf == ".boto" ||
                               leaf == ".vault-token" || leaf == ".dbshell" || leaf == ".viminfo" || leaf == ".lesshst";
        const std::string target = file_like ? abs : abs + "/secret";
        env.write(target, "SECRET\n");
        planted.push_back(target);
      }
  return planted;
}

// A file for every "$PROJECT/**/..." pattern of project-secrets, at the top and two levels down.
std::vector<std::string> plant_project(const EngineEnv& env) {
  std::vector<std::string> planted;
  for (const auto& e : load("project-secrets").entries)
    for (const auto& p : e.paths) {
      const std::string rel = p.text.substr(std::string("$PROJECT/**/").size());
      std::string concrete;
      std::stringstream ss(rel);
      for (std::string c; std::getline(ss, c, '/');) concrete += (concrete.empty() ? "" : "/") + example_of(c);
      for (const std::string& dir : {std::string(""), std::string("/pkg/deep")}) {
        const std::string target = env.project + dir + "/" + concrete;
        env.write(target, "SECRET\n");
        planted.push_back(target);
      }
    }
  return planted;
}

}  // namespace

class BuiltinListsTest : public QObject {
  Q_OBJECT
 private slots:
  void every_list_the_parser_names_ships_with_its_effect_and_no_list_is_unnamed() {
    std::set<std::string> named;
    for (const auto& n : deny_list_names()) {
      QCOMPARE(load(n).effect, std::string("deny"));
      named.insert(n);
    }
    for (const auto& n : deny_write_list_names()) {
      QCOMPARE(load(n).effect, std::string("deny_write"));
      named.insert(n);
    }
    for (const auto& n : watch_list_names()) {
      QCOMPARE(load(n).effect, std::string("watch"));
      named.insert(n);
    }
    QCOMPARE(load(kNetworkPresetsList).effect, std::string("allow_domains"));
    named.insert(kNetworkPresetsList);
    for (const auto& f : std::filesystem::directory_iterator(kResources + "/lists"))
      QVERIFY2(named.count(f.path().stem().string()), f.path().c_str());
    // Every entry says why; agent logins name their agent.
    for (const auto& n : named)
      for (const auto& e : load(n).entries)
        QVERIFY2(e.why.size() > 20, (n + ": " + (e.paths.empty() ? e.group : e.paths.front().text)).c_str());
    // Agent logins name their agent, one whose preset ships: a later opt-in lets that agent's own
    // session read its own login.
    for (const auto& e : load("agent-logins").entries) {
      QVERIFY2(!e.agent.empty(), e.paths.front().text.c_str());
      QVERIFY2(std::filesystem::exists(kResources + "/agents/" + e.agent + ".yaml"), e.agent.c_str());
    }
  }

  void each_supported_agents_host_executed_settings_are_watched() {
    std::set<std::string> agents;
    for (const auto& e : load("agent-config").entries) {
      QVERIFY2(std::filesystem::exists(kResources + "/agents/" + e.agent + ".yaml"), e.agent.c_str());
      // A settings file names its keys; a text file or a tree is compared whole.
      const bool whole = e.format == "text" || e.format == "tree";
      QVERIFY2(whole ? e.keys.empty() : !e.keys.empty(), e.paths.front().text.c_str());
      agents.insert(e.agent);
    }
    for (const char* a : {"claude-code", "codex", "gemini-cli", "opencode", "copilot"}) QVERIFY2(agents.count(a), a);
    // A watch list's entry must say how to read the file and what to compare.
    auto r = parse_builtin_list(R"({"version": 1, "effect": "watch", "title": "t", "description": "d",
                                    "entries": [{"paths": ["~/.x.json"], "agent": "a", "format": "yaml", "keys": ["k"], "why": "w"}]})",
                                "x", "builtin:lists/x.json");
    QVERIFY(!r.ok());
    QVERIFY2(r.error().message.find("'format' must be json, jsonc, toml, text or tree") != std::string::npos, r.error().message.c_str());
    r = parse_builtin_list(R"({"version": 1, "effect": "deny", "title": "t", "description": "d",
                               "entries": [{"paths": ["~/.x.json"], "keys": ["k"], "why": "w"}]})",
                           "x", "builtin:lists/x.json");
    QVERIFY(!r.ok());
  }

  void each_supported_agents_login_is_known_per_agent() {
    std::set<std::string> agents;
    for (const auto& e : load("agent-logins").entries) agents.insert(e.agent);
    for (const char* a : {"claude-code", "codex", "gemini-cli", "aider", "opencode", "copilot"}) QVERIFY2(agents.count(a), a);
  }

  void a_malformed_list_is_a_broken_installation_naming_the_file_and_entry() {
    auto r = parse_builtin_list(R"({"version": 1, "effect": "deny", "title": "t", "description": "d",
                                    "entries": [{"paths": ["~/.x"], "why": "w"}, {"paths": ["~/.y"], "wy": "typo"}]})",
                                "x", "builtin:lists/x.json");
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::kInternal);
    QVERIFY2(r.error().message.find("builtin:lists/x.json: entries[1]: unknown key 'wy'") == 0, r.error().message.c_str());
    r = parse_builtin_list(R"({"version": 1, "effect": "deny", "title": "t", "description": "d", "entries": [{"paths": ["/etc/x"], "why": "w"}]})",
                           "x", "f");
    QVERIFY(!r.ok());
    QVERIFY2(r.error().message.find("must be a string starting with") != std::string::npos, r.error().message.c_str());
    QVERIFY(!parse_builtin_list("{", "x", "f").ok());
    QVERIFY(!parse_builtin_list(R"({"version": "1"})", "x", "f").ok());
    // The title is what the app names the list by: a list without one does not read.
    r = parse_builtin_list(R"({"version": 1, "effect": "deny", "description": "d", "entries": [{"paths": ["~/.x"], "why": "w"}]})",
                           "x", "builtin:lists/x.json");
    QVERIFY(!r.ok());
    QVERIFY2(r.error().message.find("title") != std::string::npos, r.error().message.c_str());
  }

  void every_network_preset_the_parser_names_is_one_entry_of_the_presets_list_and_no_entry_is_unnamed() {
    std::vector<std::string> groups;
    for (const auto& e : load(kNetworkPresetsList).entries) {
      groups.push_back(e.group);
      QVERIFY2(!e.domains.empty() && e.paths.empty(), e.group.c_str());
    }
    QCOMPARE(groups, network_preset_names());
    // A preset's domain is written as the allowlist compares it: normalised, or the list is broken.
    auto r = parse_builtin_list(R"({"version": 1, "effect": "allow_domains", "title": "t", "description": "d",
                                    "entries": [{"group": "npm", "domains": ["Registry.NPMJS.org."], "why": "w"}]})",
                                kNetworkPresetsList, "builtin:lists/network-presets.json");
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::kInternal);
    QVERIFY2(r.error().message.find("must be a normalised domain name") != std::string::npos, r.error().message.c_str());
    r = parse_builtin_list(R"({"version": 1, "effect": "allow_domains", "title": "t", "description": "d",
                               "entries": [{"group": "npm", "domains": ["registry.npmjs.org"], "paths": ["~/.x"], "why": "w"}]})",
                           kNetworkPresetsList, "builtin:lists/network-presets.json");
    QVERIFY(!r.ok());
  }

  void every_list_has_a_title_in_plain_words_of_its_own() {
    std::set<std::string> titles;
    std::vector<std::string> names = deny_list_names();
    for (const auto& n : deny_write_list_names()) names.push_back(n);
    for (const auto& n : watch_list_names()) names.push_back(n);
    names.push_back(kNetworkPresetsList);
    for (const auto& name : names) {
      const auto l = load(name);
      QVERIFY2(!l.title.empty() && l.title.size() < 80 && l.title.find(name + ".json") == std::string::npos, name.c_str());
      QVERIFY2(titles.insert(l.title).second, l.title.c_str());
    }
  }

  void every_builtin_profile_masks_every_listed_file_whichever_agent_is_selected() {
    EngineEnv env;
    const auto home_files = plant_home(env);
    const auto project_files = plant_project(env);
    QVERIFY(home_files.size() > 100);
    QVERIFY(project_files.size() > 40);
    for (const auto& profile : kProfiles)
      for (const auto& agent : kAgents) {
        Inputs in = env.inputs();
        in.profile = profile;
        in.agent = agent;
        // A grant of the whole home, so that every mask matters (permissive reads ~ itself).
        in.allow_reads = {env.home};
        const auto e = eval_ok(in);
        for (const auto& f : home_files) {
          // The selected agent's stored login in its own directory is hidden by its overlay
          // instead (docs/agents.md, "Its own state"): the sandbox never sees the user's copy,
          // and a login made inside stays the agent's own.
          const auto own = std::find_if(e.ir.fs.agent_state.begin(), e.ir.fs.agent_state.end(),
                                        [&](const AgentStateRoot& r) { return path_within(f, r.path); });
          if (own != e.ir.fs.agent_state.end()) {
            QVERIFY2(std::any_of(own->hidden.begin(), own->hidden.end(), [&](const std::string& h) { return path_within(f, h); }),
                     (profile + "/" + agent + ": " + f + " is neither masked nor hidden").c_str());
            continue;
          }
          const DenyEntry* d = covering(e.ir.fs.deny, f);
          QVERIFY2(d && d->kind != PathKind::kAbsent, (profile + "/" + agent + ": " + f).c_str());
          const WhyAnswer w = why(e, f);
          QVERIFY2(!w.allowed && w.tier == "builtin-profile", (f + ": " + w.rule).c_str());
        }
        for (const auto& f : project_files)
          QVERIFY2(covering(e.ir.fs.deny, f), (profile + "/" + agent + ": " + f).c_str());
      }
  }

  void name_based_rules_leave_ordinary_project_files_readable() {
    EngineEnv env;
    const std::vector<std::string> ordinary = {"credentials.json", "src/id_generator.go", "src/id_test.py",
                                               "keys/deploy_rsa.pub", "config.json", ".npmrc.example",
                                               "docs/environment.md", "tokens.md", "src/crypto_rsa/mod.rs",
                                               "service-account.yaml", "terraform.tfvars", "package.json"};
    for (const auto& f : ordinary) env.write(env.project + "/" + f, "{}\n");
    const auto e = eval_ok(env.inputs());
    for (const auto& f : ordinary) QVERIFY2(!covering(e.ir.fs.deny, env.project + "/" + f), f.c_str());
    // A directory whose name ends like a key is not a key.
    QVERIFY(!covering(e.ir.fs.deny, env.project + "/src/crypto_rsa"));
  }

  void files_the_users_tools_execute_are_read_only_in_every_profile() {
    EngineEnv env;
    const std::vector<std::string> executed = {".vscode/tasks.json", ".idea/workspace.xml", ".claude/settings.json",
                                               ".mcp.json", ".gitmodules", ".bashrc", "pkg/.vscode/settings.json",
                                               ".husky/pre-commit", ".pre-commit-config.yaml", ".devcontainer/x.json",
                                               "app.code-workspace", ".cargo/config.toml", "dotfiles/.zshrc"};
    for (const auto& f : executed) env.write(env.project + "/" + f, "x\n");
    for (const auto& profile : kProfiles) {
      Inputs in = env.inputs();
      in.profile = profile;
      const auto e = eval_ok(in);
      for (const auto& f : executed) {
        const WhyAnswer w = why(e, env.project + "/" + f);
        QVERIFY2(w.access != "write", (profile + ": " + f + " is writable").c_str());
      }
    }
    // The top-level directories are listed also while absent, as directories (the view keeps a
    // placeholder in their place, so the agent cannot create them).
    EngineEnv empty;
    const auto e = eval_ok(empty.inputs());
    for (const char* d : {"/.vscode", "/.idea", "/.claude", "/.devcontainer"}) {
      bool listed = false;
      for (const auto& w : e.ir.fs.deny_write) listed = listed || (w.path == empty.project + d && w.kind == PathKind::kAbsentDir);
      QVERIFY2(listed, d);
    }
  }

  void unprotect_lifts_only_the_tool_executed_list_and_only_from_the_users_own_tiers() {
    EngineEnv env;
    env.write(env.project + "/.vscode/tasks.json", "{}");
    env.write(env.project + "/.idea/x.xml", "x");
    env.user("version: 1\nfilesystem:\n  unprotect: [$PROJECT/.vscode]\n  deny_write: [$PROJECT/.idea]\n");
    auto e = eval_ok(env.inputs());
    QCOMPARE(why(e, env.project + "/.vscode/tasks.json").access, std::string("write"));
    QCOMPARE(why(e, env.project + "/.idea/x.xml").access, std::string("read"));
    bool r7 = false;
    for (const auto& f : e.lint)
      r7 = r7 || (f.rule == "R7" && f.message.find(env.project + "/.vscode") != std::string::npos && f.tier == "user-global");
    QVERIFY(r7);
    // It lifts the list only: the user's own deny_write of .idea stays.
    env.user("version: 1\nfilesystem:\n  unprotect: [$PROJECT]\n  deny_write: [$PROJECT/.idea]\n");
    e = eval_ok(env.inputs());
    QCOMPARE(why(e, env.project + "/.idea/x.xml").access, std::string("read"));
    QCOMPARE(why(e, env.project + "/.vscode/tasks.json").access, std::string("write"));
    // An opt-out that lifts nothing here is still reported.
    env.user("version: 1\nfilesystem: {unprotect: [/elsewhere/.vscode]}\n");
    e = eval_ok(env.inputs());
    r7 = false;
    for (const auto& f : e.lint) r7 = r7 || (f.rule == "R7" && f.message.find("lifts nothing") != std::string::npos);
    QVERIFY(r7);
    // Repository-side layers come with the code those tools would run: refused.
    env.user("version: 1\n");
    env.repo("version: 1\nfilesystem: {unprotect: [$PROJECT/.vscode]}\n");
    auto r = evaluate(env.inputs());
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::kPolicyBlocked);
    QVERIFY2(r.error().message.find("policy.yaml:2:26: key 'filesystem.unprotect[0]': tier repository may not lift") !=
                 std::string::npos, r.error().message.c_str());
    std::filesystem::remove_all(env.project + "/.paddock");
    // Globs are not accepted: the opt-out names what it lifts.
    env.user("version: 1\nfilesystem: {unprotect: [\"$PROJECT/.v*\"]}\n");
    r = evaluate(env.inputs());
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::kBadInput);
    // The lockdown forbids it like any widening.
    env.system("version: 1\nsecurity: {immutable: true}\n");
    env.user("version: 1\nfilesystem: {unprotect: [$PROJECT/.vscode]}\n");
    r = evaluate(env.inputs());
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::kPolicyBlocked);
  }

  void docs_credentials_md_is_generated_from_the_lists() {
    // Regenerate with PADDOCK_UPDATE_DOCS=1 after changing a list, and review the diff.
    std::ostringstream md;
    // The page's second half, from the marker on; the first half (brokered credentials) is
    // written by hand and kept as it is.
    const std::string marker = "<!-- Generated from resources/lists/*.json";
    md << marker << " by tests/engine/builtin_lists_test.cpp\n"
          "     (PADDOCK_UPDATE_DOCS=1). Do not edit by hand: the test fails when this part is stale. -->\n"
          "## Protected files: the built-in lists\n\n"
          "Every built-in profile (`default`, `strict`, `audit`, `permissive`) masks the paths of the first "
          "eleven lists below, whichever agent is selected: the agent reads them as empty or absent, and "
          "cannot write them. A layer names a list with `filesystem.deny_preset` (masks) or "
          "`filesystem.deny_write_preset` (read-only). `~/` is your home directory, `$PROJECT` the project; "
          "`**` matches any number of directories, and matching is case-sensitive except where a pattern "
          "spells both cases (`[eE]`). A path that does not exist is simply not there to read. Entries marked "
          "*files only* never mask a directory that happens to have such a name.\n\n"
          "Only the system, user and `--policy` tiers may lift the read-only protection of the "
          "`tool-executed` list (`filesystem.unprotect`), and `paddock lint` reports every such opt-out (R7). "
          "Nothing lifts a mask.\n\n"
          "The `agent-config` list is neither masked nor read-only: it names the settings an agent's CLI turns "
          "into commands on your machine, which a session that may write them is watched for "
          "([trust posture](trust-posture.md)).\n";
    std::vector<std::string> names = deny_list_names();
    for (const auto& n : deny_write_list_names()) names.push_back(n);
    for (const auto& n : watch_list_names()) names.push_back(n);
    for (const auto& n : names) {
      const BuiltinList l = load(n);
      const char* effect = l.effect == "deny" ? "masked" : l.effect == "deny_write" ? "read-only" : "watched";
      md << "\n### `" << n << "` (" << effect << ")\n\n" << l.description << "\n";
      if (!l.note.empty()) md << "\n" << l.note << "\n";
      std::string group = "\x01";
      for (const auto& e : l.entries) {
        if (e.group != group) {
          group = e.group;
          if (!group.empty()) md << "\n#### " << group << "\n";
          md << "\n| paths | why |\n|---|---|\n";
        }
        std::string paths;
        for (const auto& p : e.paths) paths += (paths.empty() ? "" : "<br>") + ("`" + p.text + "`");
        std::string why = e.why;
        if (!e.agent.empty()) why = "**" + e.agent + "**: " + why;
        if (e.files_only) why += " *(files only)*";
        if (!e.keys.empty()) {
          std::string keys;
          for (const auto& k : e.keys) keys += (keys.empty() ? "" : ", ") + ("`" + k + "`");
          why += " Keys: " + keys + ".";
          if (e.state_file) why += " *(state file: watched, never read-only)*";
        }
        md << "| " << paths << " | " << why << " |\n";
      }
    }
    const std::string path = paddock::test::source_dir() + "/docs/credentials.md";
    std::ostringstream committed;
    committed << std::ifstream(path, std::ios::binary).rdbuf();
    const std::string text = committed.str();
    const std::size_t at = text.find(marker);
    QVERIFY2(at != std::string::npos, "docs/credentials.md has lost the generated part's marker");
    if (std::getenv("PADDOCK_UPDATE_DOCS")) std::ofstream(path, std::ios::binary) << text.substr(0, at) << md.str();
    std::ostringstream now;
    now << std::ifstream(path, std::ios::binary).rdbuf();
    QVERIFY2(now.str().substr(at) == md.str(), "docs/credentials.md is stale: rerun this test with PADDOCK_UPDATE_DOCS=1");
  }

  void lint_flags_credentials_in_the_projects_git_config_without_printing_them() {
    EngineEnv env;
    env.write(env.project + "/.git/config",
              "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://alice:s3cr3t-token@github.com/a/b.git\n"
              "[remote \"mirror\"]\n\turl = ssh://git@github.com/a/b.git\n\tpushurl = https://ghp_abcdefghijklmnop@github.com/a/b\n"
              "[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic eC1hY2Nlc3M=\n"
              "[url \"https://x-access-token:t0k@github.com/\"]\n\tinsteadOf = https://github.com/\n");
    auto e = eval_ok(env.inputs());
    std::vector<std::string> r6;
    for (const auto& f : e.lint)
      if (f.rule == "R6") r6.push_back(f.message);
    QCOMPARE(r6.size(), size_t(4));
    std::string all;
    for (const auto& m : r6) all += m + "\n";
    QVERIFY2(all.find(".git/config:4: remote.origin.url") != std::string::npos, all.c_str());
    QVERIFY2(all.find("git config remote.origin.url 'https://github.com/a/b.git'") != std::string::npos, all.c_str());
    QVERIFY2(all.find(".git/config:7: remote.mirror.pushurl") != std::string::npos, all.c_str());
    QVERIFY2(all.find("git config --unset-all http.https://github.com/.extraheader") != std::string::npos, all.c_str());
    QVERIFY2(all.find(".git/config:10: url") != std::string::npos, all.c_str());
    for (const char* secret : {"s3cr3t", "ghp_abc", "eC1hY2", "t0k"}) QVERIFY2(all.find(secret) == std::string::npos, secret);
    // A worktree's .git file leads to its git dir and the main repository's config.
    EngineEnv wt;
    wt.write(wt.root + "/main/.git/config", "[remote \"origin\"]\n\turl = https://bob:pw@example.org/r.git\n");
    wt.write(wt.root + "/main/.git/worktrees/w/commondir", "../..\n");
    wt.write(wt.project + "/.git", "gitdir: " + wt.root + "/main/.git/worktrees/w\n");
    auto w = eval_ok(wt.inputs());
    bool found = false;
    for (const auto& f : w.lint) found = found || (f.rule == "R6" && f.message.find("remote.origin.url") != std::string::npos);
    QVERIFY(found);
  }

  void lint_recognises_a_service_account_key_by_its_contents() {
    EngineEnv env;
    env.write(env.project + "/deploy/prod-1a2b3c.json",
              "{\n  \"type\": \"service_account\",\n  \"project_id\": \"p\",\n  \"private_key\": \"-----BEGIN\"\n}\n");
    env.write(env.project + "/deploy/other.json", "{\"type\": \"module\"}\n");
    auto e = eval_ok(env.inputs());
    int hits = 0;
    for (const auto& f : e.lint)
      if (f.rule == "R4" && f.message.find("service-account key") != std::string::npos) {
        ++hits;
        QVERIFY2(f.message.find("prod-1a2b3c.json") != std::string::npos, f.message.c_str());
      }
    QCOMPARE(hits, 1);
  }
};

QTEST_GUILESS_MAIN(BuiltinListsTest)
#include "builtin_lists_test.moc"
