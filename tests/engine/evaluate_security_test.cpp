// Lockdown, dangerous repository writes, approvals and signatures: refusals exit 126 naming
// the tier and key.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <QtTest>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/approvals.h"
#include "engine/context.h"
#include "engine/engine.h"
#include "engine/lint.h"
#include "engine/signing.h"
#include "platform/engine_files.h"
#include "tests/engine/engine_test_env.h"

using namespace paddock;
using paddock::test::EngineEnv;
using paddock::test::has_deny;
using paddock::test::eval_err;

namespace {
bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// A listening unix socket at path (closed at the end of the test: the file stays).
int listen_at(const std::string& path) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(s, 1) != 0) qFatal("bind %s", path.c_str());
  return s;
}

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

const LayerInfo& layer_of(const Evaluation& e, const std::string& tier) {
  for (const auto& l : e.layers)
    if (l.tier == tier && l.exists) return l;
  qFatal("no %s layer", tier.c_str());
}
}  // namespace

class EvaluateSecurityTest : public QObject {
  Q_OBJECT
  const paddock::platform::AtomicFileWriter writer_;  // how the front ends give the engine its writes
 private slots:
  void an_immutable_system_layer_locks_the_whole_never_overridable_set() {
    EngineEnv env;
    env.system("version: 1\nsecurity: {immutable: true}\nlimits: {memory: 4GiB}\nnetwork: {mode: \"off\"}\n");
    struct Case {
      const char* user_yaml;
      const char* key;
    } cases[] = {
        {"filesystem: {allow_read: [/srv]}", "filesystem.allow_read[0]"},
        {"filesystem: {allow_write: [$PROJECT]}", "filesystem.allow_write[0]"},
        {"network: {allow_domains: [a.example.com]}", "network.allow_domains[0]"},
        {"network: {presets: [npm]}", "network.presets[0]"},
        {"environment: {pass_through: [FOO]}", "environment.pass_through[0]"},
        {"limits: {memory: 8GiB}", "limits.memory"},
        {"security: {immutable: false}", "security.immutable"},
        {"filesystem: {tmpfs_tmp: false}", "filesystem.tmpfs_tmp"},
        {"network: {mode: ask}", "network.mode"},
        {"unix_sockets: {allow: [/run/x.sock]}", "unix_sockets.allow[0]"},
        {"network: {publish: [3000]}", "network.publish[0]"},
        {"network: {host_ports: [11434]}", "network.host_ports[0]"}};
    for (const auto& c : cases) {
      env.user(std::string("version: 1\n") + c.user_yaml + "\n");
      const auto err = eval_err(env.inputs());
      QCOMPARE(err.code, ErrorCode::kPolicyBlocked);
      QVERIFY2(has(err.message, "key '" + std::string(c.key) + "'") && has(err.message, "tier user-global"), err.message.c_str());
    }
    env.user("version: 1\nlimits: {memory: 1GiB, processes: 10}\nfilesystem: {deny: [/opt]}\n");
    auto ok = evaluate(env.inputs());
    QVERIFY2(ok.ok(), ok.ok() ? "" : ok.error().message.c_str());
    QCOMPARE(*ok->ir.resources.memory_bytes, std::int64_t(1) << 30);
    QCOMPARE(*ok->ir.resources.processes, std::int64_t(10));  // a new limit only tightens
    QVERIFY(ok->layers[0].immutable);
    auto in = env.inputs();
    in.allow_writes = {env.project};
    QVERIFY(has(eval_err(in).message, "--allow-write[0]"));
    in = env.inputs();
    in.net = NetMode::kAllowlist;
    QCOMPARE(eval_err(in).code, ErrorCode::kPolicyBlocked);
    in = env.inputs();
    in.publish = {3000};
    QVERIFY(has(eval_err(in).message, "--publish[0]"));
    in = env.inputs();
    in.host_ports = {11434};
    QVERIFY(has(eval_err(in).message, "--host-port[0]"));
    in = env.inputs();
    in.limits = "mem=16GiB";
    QCOMPARE(eval_err(in).code, ErrorCode::kPolicyBlocked);
    in = env.inputs();
    in.agent = "codex";  // shipped tiers are part of the installation, but the system forces off
    auto agent = evaluate(in);
    QVERIFY(agent.ok());
    QCOMPARE(agent->ir.egress.mode, NetMode::kOff);
  }

  // Granting ~ (the permissive profile) or a write root above ~/.config never reaches Paddock's
  // own files: config (keys, user tier), state (approvals, sessions), runtime (control sockets)
  // are masked, and the root-owned system tier is kept from writes.
  void paddocks_own_directories_are_never_implied_by_a_grant() {
    EngineEnv env;
    env.user("version: 1\n");
    std::filesystem::create_directories(env.home + "/.local/state/paddock");
    std::filesystem::create_directories(env.root + "/run/paddock");
    std::filesystem::create_directories(env.system_dir);
    Inputs in = env.inputs();
    in.profile = "permissive";
    in.environment["XDG_RUNTIME_DIR"] = env.root + "/run";
    in.allow_reads = {env.root};
    in.allow_writes = {env.home + "/.config", env.system_dir};
    auto e = evaluate(in);
    QVERIFY2(e.ok(), e.ok() ? "" : e.error().message.c_str());
    for (const std::string& d : {env.home + "/.config/paddock", env.home + "/.local/state/paddock", env.root + "/run/paddock"})
      QVERIFY2(has_deny(e->ir, d), d.c_str());
    bool system_kept = false;
    for (const auto& d : e->ir.fs.deny_write) system_kept = system_kept || d.path == env.system_dir;
    QVERIFY(system_kept);
    QVERIFY(e->provenance.dump().find("builtin:paddock-own-files") != std::string::npos);
    // Without a grant reaching them, nothing is added (the view does not contain them anyway).
    Inputs narrow = env.inputs();
    auto n = evaluate(narrow);
    QVERIFY(n.ok());
    QVERIFY(!has_deny(n->ir, env.home + "/.config/paddock"));
  }

  void a_system_lockdown_whose_condition_does_not_hold_locks_nothing() {
    EngineEnv env;
    env.system("version: 1\nwhen: {os: macos}\nsecurity: {immutable: true}\n");
    env.user("version: 1\nfilesystem: {allow_read: [/srv]}\n");
    QVERIFY(evaluate(env.inputs()).ok());
    env.system("version: 1\nwhen: {os: linux}\nsecurity: {immutable: true}\n");
    QCOMPARE(eval_err(env.inputs()).code, ErrorCode::kPolicyBlocked);
  }

  void security_keys_outside_the_system_tier_are_ignored_with_a_warning() {
    EngineEnv env;
    env.user("version: 1\nsecurity: {immutable: true}\n");
    auto in = env.inputs();
    in.allow_reads = {env.root};
    auto r = evaluate(in);
    QVERIFY(r.ok());
    QVERIFY(has(r->ir.warnings.front(), "honoured from the system-global policy only"));
  }

  void a_repository_layer_granting_write_to_home_or_a_system_root_is_refused() {
    EngineEnv env;
    std::filesystem::create_directories(env.home + "/.config");
    env.write(env.home + "/.bashrc", "");
    for (const char* grant : {"~", "$HOME", "/usr/local", "/", "~/.bashrc", "~/.config", "$PROJECT/..", "/etc/*"}) {
      env.repo(std::string("version: 1\nfilesystem:\n  allow_write: [\"") + grant + "\"]\n");
      const auto err = eval_err(env.inputs());
      QCOMPARE(err.code, ErrorCode::kPolicyBlocked);
      QVERIFY2(has(err.message, "policy.yaml:3:17: key 'filesystem.allow_write[0]': tier repository may not grant write"),
               (std::string(grant) + ": " + err.message).c_str());
    }
    env.write(env.project + "/.paddock/local.yaml", "version: 1\nfilesystem: {allow_write: [\"~\"]}\n");
    env.repo("version: 1\n");
    QCOMPARE(eval_err(env.inputs()).code, ErrorCode::kPolicyBlocked);
    std::filesystem::remove(env.project + "/.paddock/local.yaml");
    // The same grant from the user's own tier is the user's decision (lint R1 flags it).
    env.user("version: 1\nfilesystem: {allow_write: [\"~\"]}\n");
    auto r = evaluate(env.inputs());
    QVERIFY(r.ok());
    QCOMPARE(r->lint.front().rule, std::string("R1"));
  }

  void a_repository_layer_may_grant_writes_inside_a_project_that_lives_under_a_system_root() {
    // /var/tmp is writable by everyone; /srv, /opt and /root only by root.
    std::vector<std::string> parents = {"/var/tmp"};
    if (::geteuid() == 0) parents.insert(parents.end(), {"/srv", "/opt", "/root"});
    for (const auto& parent : parents) {
      const std::string root = parent + "/paddock-sysroot-test-" + std::to_string(::getpid());
      struct Cleanup {
        std::string dir;
        ~Cleanup() {
          std::error_code ec;
          std::filesystem::remove_all(dir, ec);
        }
      } cleanup{root};
      EngineEnv env(root);
      std::filesystem::create_directories(env.project + "/dist");
      std::filesystem::create_symlink("/usr/local", env.project + "/usr-link");
      env.repo("version: 1\nfilesystem:\n  allow_write: [\"$PROJECT/dist\"]\n");
      auto r = evaluate(env.inputs());
      QVERIFY2(r.ok(), (parent + ": " + (r.ok() ? "" : r.error().message)).c_str());
      // The project itself is a write root (the default profile), which covers the grant: its
      // provenance records the repository's rule.
      QVERIFY2(r->provenance.dump().find("$PROJECT/dist") != std::string::npos, parent.c_str());
      // Outside the project the system root still holds, and so does a link out of it.
      for (const std::string& grant : {root + "/elsewhere", std::string("$PROJECT/usr-link"), std::string("$PROJECT/..")}) {
        std::filesystem::create_directories(root + "/elsewhere");
        env.repo("version: 1\nfilesystem:\n  allow_write: [\"" + grant + "\"]\n");
        const auto err = eval_err(env.inputs());
        QCOMPARE(err.code, ErrorCode::kPolicyBlocked);
        QVERIFY2(has(err.message, "tier repository may not grant write"), (parent + " " + grant + ": " + err.message).c_str());
      }
    }
  }

  void unapproved_repository_layers_warn_in_explain_and_block_a_run_until_approved() {
    EngineEnv env;
    env.repo("version: 1\nfilesystem: {deny: [$PROJECT/x]}\n");
    auto in = env.inputs();
    auto e = evaluate(in);
    QVERIFY(e.ok());
    bool warned = false;
    for (const auto& w : e->ir.warnings) warned = warned || has(w, "unapproved repository layer");
    QVERIFY(warned);
    for (const auto& l : e->layers)
      if (l.tier == "repository") {
        QCOMPARE(l.approval, ApprovalState::kUnapproved);
        QVERIFY(l.adds.contains("filesystem.deny"));
      }
    in.require_approvals = true;
    auto err = eval_err(in);
    QCOMPARE(err.code, ErrorCode::kPolicyBlocked);
    QVERIFY2(has(err.message, "paddock approve --project " + env.project), err.message.c_str());
    QVERIFY(record_approvals(env.home + "/.local/state/paddock", env.project, e->layers, writer_).ok());
    auto ok = evaluate(in);
    QVERIFY2(ok.ok(), ok.ok() ? "" : ok.error().message.c_str());
    // Changing one byte makes it a different layer: unapproved again.
    env.repo("version: 1\nfilesystem: {deny: [$PROJECT/y]}\n");
    QCOMPARE(eval_err(in).code, ErrorCode::kPolicyBlocked);
    // The approvals file lives under XDG_STATE_HOME when set.
    in.environment["XDG_STATE_HOME"] = env.root + "/state";
    auto e2 = evaluate(env.inputs());
    QVERIFY(record_approvals(env.root + "/state/paddock", env.project, e2->layers, writer_).ok());
    QVERIFY(evaluate(in).ok());
  }

  // Approvals are keyed by (project, file, tier) and hold the one hash approved last: the bytes a
  // layer had before do not come back approved, neither in the same file nor under a new name.
  void an_approval_is_bound_to_its_file_and_replaced_when_the_file_is_approved_again() {
    EngineEnv env;
    const std::string state = env.home + "/.local/state/paddock";
    const std::string wide = "version: 1\nnetwork: {allow_domains: [wide.example.com]}\n";
    const std::string narrow = "version: 1\nnetwork: {allow_domains: [narrow.example.com]}\n";
    const std::string fragment = env.project + "/.paddock/policy.d/10-net.yaml";
    auto in = env.inputs();
    in.require_approvals = true;
    env.write(fragment, wide);
    QVERIFY(record_approvals(state, env.project, evaluate(env.inputs())->layers, writer_).ok());
    QVERIFY(evaluate(in).ok());
    env.write(fragment, narrow);
    QCOMPARE(eval_err(in).code, ErrorCode::kPolicyBlocked);
    QVERIFY(record_approvals(state, env.project, evaluate(env.inputs())->layers, writer_).ok());
    QVERIFY(evaluate(in).ok());
    // The old, wider bytes back in the same file: no longer approved.
    env.write(fragment, wide);
    QCOMPARE(eval_err(in).code, ErrorCode::kPolicyBlocked);
    // The approved bytes under a new file name: not approved either.
    env.write(fragment, narrow);
    env.write(env.project + "/.paddock/policy.d/20-copy.yaml", narrow);
    const auto err = eval_err(in);
    QVERIFY2(has(err.message, "20-copy.yaml"), err.message.c_str());
    const std::string stored = slurp(approvals_path(state));
    QVERIFY2(has(stored, "\"version\": 2") && has(stored, fragment) && has(stored, "repository-fragment"), stored.c_str());
  }

  void a_version_1_approvals_file_is_read_and_written_back_as_version_2() {
    EngineEnv env;
    const std::string state = env.home + "/.local/state/paddock";
    env.repo("version: 1\nfilesystem: {deny: [$PROJECT/x]}\n");
    const std::string file = env.project + "/.paddock/policy.yaml";
    auto e = evaluate(env.inputs());
    const std::string hash = layer_of(*e, "repository").sha256;
    auto v1 = [&](const std::string& hashes) {
      env.write(approvals_path(state), "{\"version\":1,\"projects\":{\"" + env.project + "\":{" + hashes + "}}}\n");
    };
    const std::string entry = "{\"file\":\"" + file + "\",\"tier\":\"repository\"}";
    v1("\"" + hash + "\":" + entry);
    auto in = env.inputs();
    in.require_approvals = true;
    QVERIFY(evaluate(in).ok());
    // Two approved hashes for one file: version 1 cannot say which is current, so neither is.
    v1("\"" + hash + "\":" + entry + ",\"sha256:0000\":" + entry);
    QCOMPARE(eval_err(in).code, ErrorCode::kPolicyBlocked);
    QVERIFY(record_approvals(state, env.project, e->layers, writer_).ok());
    QVERIFY(evaluate(in).ok());
    const std::string stored = slurp(approvals_path(state));
    QVERIFY2(has(stored, "\"version\": 2") && !has(stored, "sha256:0000"), stored.c_str());
  }

  void a_corrupt_approvals_file_is_reported_and_left_untouched() {
    EngineEnv env;
    const std::string state = env.home + "/.local/state/paddock";
    env.repo("version: 1\n");
    auto e = evaluate(env.inputs());
    for (const std::string bytes : {"not json", "{\"version\":\"2\",\"projects\":{}}", "{\"version\":2,\"projects\":[]}",
                                    "{\"version\":2,\"projects\":{\"/p\":{\"/f\":7}}}", "{\"version\":3,\"projects\":{}}",
                                    "{\"version\":1,\"projects\":{\"/p\":{\"sha256:1\":{\"file\":1}}}}"}) {
      env.write(approvals_path(state), bytes);
      const auto err = eval_err(env.inputs());
      QCOMPARE(err.code, ErrorCode::kBadInput);
      QVERIFY2(has(err.message, approvals_path(state)) && has(err.message, "left as it is"), err.message.c_str());
      QVERIFY(!record_approvals(state, env.project, e->layers, writer_).ok());
      QCOMPARE(slurp(approvals_path(state)), bytes);
    }
  }

  // Every socket file under a grant is masked (the scan shares the grants' walk), unless
  // unix_sockets.allow names it; grants of the runtime directory are escape-equivalent for lint.
  void every_socket_under_a_grant_is_masked_unless_allowed() {
    EngineEnv env;
    const std::string rt = env.root + "/run-user";
    std::vector<int> fds;
    for (const char* s : {"/systemd/private", "/gnupg/S.gpg-agent", "/pipewire-0", "/tmux-1000/default", "/app/custom.sock"})
      fds.push_back(listen_at(rt + s));
    fds.push_back(listen_at(env.project + "/dev/server.sock"));
    env.user("version: 1\nunix_sockets: {allow: [\"" + rt + "/app/custom.sock\"]}\n");
    auto in = env.inputs();
    in.environment["XDG_RUNTIME_DIR"] = rt;
    in.allow_reads = {rt};
    auto e = evaluate(in);
    QVERIFY2(e.ok(), e.ok() ? "" : e.error().message.c_str());
    for (const char* s : {"/systemd/private", "/gnupg/S.gpg-agent", "/pipewire-0", "/tmux-1000/default"})
      QVERIFY2(has_deny(e->ir, rt + s), s);
    QVERIFY(has_deny(e->ir, env.project + "/dev/server.sock"));
    QVERIFY(!has_deny(e->ir, rt + "/app/custom.sock"));
    QVERIFY(e->provenance.dump().find("builtin:sockets-under-grants") != std::string::npos);
    bool esc = false;
    for (const auto& f : e->lint) esc = esc || (f.rule == "ESC" && has(f.message, "read access to " + rt));
    QVERIFY(esc);
    for (int fd : fds) ::close(fd);
  }

  void grants_into_or_over_the_hosts_socket_directories_are_escape_equivalent() {
    EngineEnv env;
    auto in = env.inputs();
    in.environment["XDG_RUNTIME_DIR"] = "/run/user/4242";
    auto ctx = make_context(in);
    QVERIFY(ctx.ok());
    for (const char* g : {"/tmp/.X11-unix", "/tmp/.ICE-unix/x", "/run", "/run/user", "/run/user/4242/pulse", "/var/run/dbus", "/"})
      QVERIFY2(!escape_directory_reason(g, *ctx).empty(), g);
    for (const char* g : {"/tmp/work", "/usr", "/home/u/proj", "/runner"})
      QVERIFY2(escape_directory_reason(g, *ctx).empty(), g);
  }

  void a_repository_layer_may_not_grant_write_to_the_shared_tmp_or_a_directory_on_path() {
    EngineEnv env;
    std::filesystem::create_directories(env.home + "/bin");
    std::filesystem::create_directories(env.project + "/tools/bin");
    auto in = env.inputs();
    in.environment["PATH"] = env.home + "/bin:" + env.project + "/tools/bin:/usr/bin:/bin";
    for (const std::string grant : {"/tmp/drop", "$TMP", "~/bin", "~/bin/tool"}) {
      env.repo("version: 1\nfilesystem:\n  allow_write: [\"" + grant + "\"]\n");
      auto r = evaluate(in);
      QVERIFY2(!r.ok(), grant.c_str());
      QCOMPARE(r.error().code, ErrorCode::kPolicyBlocked);
      QVERIFY2(has(r.error().message, "tier repository may not grant write"), r.error().message.c_str());
    }
    // A PATH directory inside the project is the project's own.
    env.repo("version: 1\nfilesystem:\n  allow_write: [\"$PROJECT/tools/bin\"]\n");
    auto r = evaluate(in);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
    // The user's own tiers decide for themselves.
    std::filesystem::remove_all(env.project + "/.paddock");
    env.user("version: 1\nfilesystem: {allow_write: [\"~/bin\"]}\n");
    QVERIFY(evaluate(in).ok());
  }

  void require_signed_enforces_a_verified_signature_on_every_later_layer() {
    EngineEnv env;
    env.system("version: 1\nsecurity: {require_signed: true}\n");
    env.repo("version: 1\n");
    auto err = eval_err(env.inputs());
    QCOMPARE(err.code, ErrorCode::kPolicyBlocked);
    QVERIFY2(has(err.message, "tier repository is not signed"), err.message.c_str());
    const std::string cfg = env.home + "/.config/paddock";
    auto k = keygen(cfg, writer_);
    QVERIFY(k.ok());
    QVERIFY(sign_file(env.project + "/.paddock/policy.yaml", cfg, writer_).ok());
    auto ok = evaluate(env.inputs());
    QVERIFY2(ok.ok(), ok.ok() ? "" : ok.error().message.c_str());
    for (const auto& l : ok->layers)
      if (l.tier == "repository") QCOMPARE(l.signature, SignatureState::kVerified);
    // A modified file fails.
    env.repo("version: 1\n#\n");
    QVERIFY(has(eval_err(env.inputs()).message, "does not verify"));
    // A malformed signature fails.
    env.repo("version: 1\n");
    env.write(env.project + "/.paddock/policy.yaml.sig", "zz\n");
    QCOMPARE(eval_err(env.inputs()).code, ErrorCode::kPolicyBlocked);
    // A signature by an untrusted key fails.
    const KeyPair other = generate_keypair();
    env.write(env.project + "/.paddock/policy.yaml.sig", *sign_bytes("version: 1\n", other.secret_hex) + "\n");
    QCOMPARE(eval_err(env.inputs()).code, ErrorCode::kPolicyBlocked);
    // Trusted keys in the system dir count too.
    env.write(env.system_dir + "/trusted_keys", "# admin\n" + other.public_hex + "\n");
    QVERIFY(evaluate(env.inputs()).ok());
  }

  void a_bad_signature_fails_even_without_require_signed() {
    EngineEnv env;
    env.repo("version: 1\n");
    env.write(env.project + "/.paddock/policy.yaml.sig", std::string(128, 'a') + "\n");
    QCOMPARE(eval_err(env.inputs()).code, ErrorCode::kPolicyBlocked);
  }

  void signatures_verify_only_the_exact_bytes() {
    const KeyPair k = generate_keypair();
    auto sig = sign_bytes("abc", k.secret_hex);
    QVERIFY(sig.ok());
    QVERIFY(verify_bytes("abc", *sig, {k.public_hex}));
    QVERIFY(!verify_bytes("abd", *sig, {k.public_hex}));
    QVERIFY(!verify_bytes("abc", *sig + "00", {k.public_hex}));
    QVERIFY(!verify_bytes("abc", *sig, {}));
    std::string flipped = *sig;
    flipped[0] = flipped[0] == 'a' ? 'b' : 'a';
    QVERIFY(!verify_bytes("abc", flipped, {k.public_hex}));
  }

  // An agent can plant a file whose name is not UTF-8 (a Latin-1 "café.pem"): the secret glob
  // still masks it, and the IR, its canonical bytes, provenance and explain --json all carry the
  // name (encoded, engine/json_text.h) instead of aborting every later session.
  void a_secret_whose_name_is_not_utf8_is_denied_and_its_ir_reads_back() {
    EngineEnv env;
    const std::string pem = env.project + "/caf\xe9.pem";
    env.write(pem, "SECRET\n");
    env.write(env.project + "/sub/\xff\xfe.key", "SECRET\n");
    Inputs in = env.inputs();
    in.with_report = true;
    auto ev = evaluate(in);
    QVERIFY2(ev.ok(), ev.ok() ? "" : ev.error().message.c_str());
    QVERIFY(has_deny(ev->ir, pem));
    QVERIFY(has_deny(ev->ir, env.project + "/sub/\xff\xfe.key"));
    QVERIFY(has(ev->ir_bytes, "bytes:" + env.project + "/caf%E9.pem"));
    auto back = ir_from_json(nlohmann::json::parse(ev->ir_bytes));
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QVERIFY(*back == ev->ir);
    QCOMPARE(ir_hash(*back), ev->ir_hash);
    const std::string report = explain_json(*ev).dump();
    QVERIFY(has(report, "\"fs.deny:bytes:" + env.project + "/caf%E9.pem\""));
    const WhyAnswer w = why(*ev, pem);
    QVERIFY(!w.allowed);
    QVERIFY(!w.tier.empty());
    QVERIFY(!to_json(w).dump().empty());
    std::filesystem::remove_all(env.project);  // QTemporaryDir cannot name these files to remove them
  }
};

QTEST_GUILESS_MAIN(EvaluateSecurityTest)
#include "evaluate_security_test.moc"
