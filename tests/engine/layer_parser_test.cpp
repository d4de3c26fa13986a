#include <QtTest>

#include "engine/layer.h"
#include "engine/limits.h"

using namespace paddock;

namespace {
std::string err(const std::string& yaml, const char* tier = kTierRepo) {
  auto r = parse_layer(yaml, tier, "/p/.paddock/policy.yaml");
  return r.ok() ? std::string("OK") : r.error().message;
}
bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }
}  // namespace

class LayerParserTest : public QObject {
  Q_OBJECT
 private slots:
  void every_key_of_the_schema_parses() {
    const char* yaml = R"(version: 1
metadata: {name: n, description: d}
when: {branch: main, file_exists: Cargo.toml, project_contains: "*.tf", os: linux, agent_is: claude-code}
security: {immutable: true, require_signed: false}
filesystem:
  allow_write: [$PROJECT/build]
  allow_read: [/usr]
  deny: [~/.ssh]
  deny_write: [$PROJECT/.git]
  deny_preset: [ssh, aws, gcp, azure, kube, docker, gnupg]
  tmpfs_tmp: true
network:
  mode: off
  allow_domains: [api.anthropic.com, "*.githubusercontent.com"]
  strict_ports: {github.com: [443, 22]}
  allow_cidr: [10.0.0.0/8]
  quotas: {api.openai.com: 2GiB}
  presets: [npm, pypi, cargo, git, go, maven, huggingface]
  publish: [3000, 1455]
  host_ports: [11434]
unix_sockets: {allow: [/run/x.sock]}
environment: {pass_through: [PATH, "LC_*"], deny: ["AWS_*"]}
secrets: {brokered_env: [GITHUB_TOKEN]}
limits: {cpu_seconds: 3600, memory: 8GiB, processes: 512, open_files: 4096, file_size: 1GiB, wall_time: 4h}
)";
    auto r = parse_layer(yaml, kTierSystem, "/etc/paddock/policy.yaml");
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
    QCOMPARE(r->allow_write.size(), size_t(1));
    QCOMPARE(r->deny_preset.size(), size_t(7));
    QCOMPARE(r->strict_ports.front().second, (std::vector<int>{443, 22}));
    QCOMPARE(*r->limits[static_cast<int>(LimitKey::kMemory)].value, std::int64_t(8) << 30);
    QCOMPARE(*r->limits[static_cast<int>(LimitKey::kWallTime)].value, std::int64_t(4 * 3600));
    QCOMPARE(*r->net_mode, NetMode::kOff);
    QCOMPARE(r->publish.size(), size_t(2));
    QCOMPARE(r->publish[1].first, 1455);
    QCOMPARE(r->publish[1].second.key, std::string("network.publish[1]"));
    QCOMPARE(r->publish[1].second.line, 19);
    QCOMPARE(r->publish[1].second.col, 19);
    QCOMPARE(r->host_ports.size(), size_t(1));
    QCOMPARE(r->host_ports[0].first, 11434);
    QCOMPARE(r->host_ports[0].second.key, std::string("network.host_ports[0]"));
    QCOMPARE(r->allow_read.front().at.line, 7);
    QCOMPARE(r->allow_read.front().at.col, 16);
  }

  void an_unknown_key_names_file_line_column_and_the_allowed_keys() {
    const std::string e = err("version: 1\nfilesystem:\n  allow_wrte: [/x]\n");
    QVERIFY2(has(e, "/p/.paddock/policy.yaml:3:3: key 'filesystem.allow_wrte': unknown key"), e.c_str());
    QVERIFY2(has(e, "allow_write"), e.c_str());
    QVERIFY(e.find('\n') == std::string::npos);
  }

  void an_unknown_top_level_key_is_an_error() {
    QVERIFY(has(err("version: 1\nnetwork_mode: off\n"), ":2:1: key 'network_mode': unknown key"));
  }

  void a_wrong_type_says_what_is_expected() {
    const std::string e = err("version: 1\nfilesystem:\n  allow_read: /usr\n");
    QVERIFY2(has(e, ":3:15: key 'filesystem.allow_read': expected a list of strings"), e.c_str());
    QVERIFY(has(err("version: 1\nfilesystem: {tmpfs_tmp: yes}\n"), "expected true or false"));
  }

  void a_bad_enum_value_lists_the_allowed_values() {
    const std::string e = err("version: 1\nfilesystem: {deny_preset: [ssh, cloud]}\n");
    QVERIFY2(has(e, "'cloud' is not one of ssh, aws, gcp, azure, kube, docker, gnupg"), e.c_str());
    QVERIFY(has(err("version: 1\nnetwork: {mode: open}\n"), "expected one of off, allowlist, strict, ask"));
    QVERIFY(has(err("version: 1\nwhen: {os: beos}\n"), "expected one of linux, macos, windows"));
    QVERIFY(has(err("version: 1\nnetwork: {presets: [rubygems]}\n"), "'rubygems' is not one of"));
    // The built-in lists by name: masks through deny_preset, read-only ones through deny_write_preset.
    QCOMPARE(err("version: 1\nfilesystem: {deny_preset: [credentials, histories, agent-logins, project-secrets]}\n"),
             std::string("OK"));
    const std::string w = err("version: 1\nfilesystem: {deny_write_preset: [credentials]}\n");
    QVERIFY2(has(w, ":2:34: key 'filesystem.deny_write_preset[0]': 'credentials' is not one of tool-executed"), w.c_str());
    QVERIFY(has(err("version: 1\nfilesystem: {unprotect: $PROJECT/.vscode}\n"), "expected a list of strings"));
  }

  void a_published_port_is_an_integer_1_to_65535_and_a_bad_one_names_file_line_column() {
    const std::string list = err("version: 1\nnetwork:\n  publish: 3000\n");
    QVERIFY2(has(list, "/p/.paddock/policy.yaml:3:12: key 'network.publish': expected a list of ports 1..65535"), list.c_str());
    const std::string zero = err("version: 1\nnetwork:\n  publish: [3000, 0]\n");
    QVERIFY2(has(zero, ":3:19: key 'network.publish[1]': out of range 1..65535"), zero.c_str());
    QVERIFY(has(err("version: 1\nnetwork: {publish: [65536]}\n"), "key 'network.publish[0]': out of range 1..65535"));
    for (const char* bad : {"-1", "3000.5", "0x50", "http", "[3000]", "{a: 1}", "''"})
      QVERIFY2(has(err(std::string("version: 1\nnetwork: {publish: [") + bad + "]}\n"),
                   "key 'network.publish[0]': expected an integer 1..65535"),
               bad);
    QCOMPARE(err("version: 1\nnetwork: {publish: [1, 65535]}\n"), std::string("OK"));
  }

  void version_must_be_exactly_one() {
    QVERIFY(has(err("filesystem: {}\n"), "key 'version': missing"));
    QVERIFY(has(err("version: 2\n"), "unsupported schema version (allowed: 1)"));
    QVERIFY(has(err(""), "key 'version'"));
  }

  void a_duplicate_key_is_an_error() {
    QVERIFY(has(err("version: 1\nlimits: {processes: 1, processes: 2}\n"), "duplicate key"));
  }

  void yaml_syntax_errors_carry_line_and_column() {
    const std::string e = err("version: 1\nfilesystem: [\n");
    QVERIFY2(has(e, "/p/.paddock/policy.yaml:") && has(e, "YAML syntax error"), e.c_str());
  }

  void a_bad_limit_suffix_is_an_error_at_the_value() {
    const std::string e = err("version: 1\nlimits:\n  memory: 8GB\n");
    QVERIFY2(has(e, ":3:11: key 'limits.memory'") && has(e, "unknown suffix 'GB'"), e.c_str());
  }

  void the_agent_section_is_only_allowed_in_agent_presets() {
    QVERIFY(has(err("version: 1\nagent: {data_dir: ~/.x}\n"), "key 'agent': unknown key"));
    QCOMPARE(err("version: 1\nagent: {data_dir: ~/.x}\n", kTierAgent), std::string("OK"));
  }

  // A layer is UTF-8 text; a name in another encoding (or with a NUL, which the kernel would
  // cut short) is a bad-input error at its place, never an abort later in JSON.
  void a_value_that_is_not_utf8_is_an_error_at_file_line_column() {
    auto r = parse_layer("version: 1\nfilesystem:\n  deny: [ok, \"caf\xe9.pem\"]\n", kTierRepo, "/p/.paddock/policy.yaml");
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::kBadInput);
    QVERIFY2(has(r.error().message, "/p/.paddock/policy.yaml:3:14: key 'filesystem.deny[1]': is not valid UTF-8"),
             r.error().message.c_str());
    QVERIFY2(has(err("version: 1\nmetadata: {name: \"a\\0b\"}\n"), "key 'metadata.name': contains a NUL"),
             err("version: 1\nmetadata: {name: \"a\\0b\"}\n").c_str());
    QVERIFY(has(err("version: 1\nnetwork:\n  quotas: {\"x\xff.com\": 1GiB}\n"), "is not valid UTF-8"));
    QCOMPARE(err("version: 1\nmetadata: {name: \"caf\xc3\xa9\"}\n"), std::string("OK"));
  }

  // Found by the layer fuzzer: yaml-cpp names the bad escape character itself, a newline here.
  // An error is one line whatever it quotes, terminal escapes included.
  void an_error_is_one_line_whatever_text_it_quotes() {
    const std::string nul("ve1\nfilesystem\"\0\n", 17);
    for (const std::string& yaml : {nul, std::string("version: 1\nfilesystem:\n  deny_preset: [\"a\\nb\\e[2J\"]\n")}) {
      const std::string e = err(yaml);
      QVERIFY2(e != "OK" && e.find('\n') == std::string::npos && e.find('\x1b') == std::string::npos, e.c_str());
    }
  }

  // The place is data as well as words: the GUI marks it from the origin, not from the text.
  void an_error_keeps_its_origin_as_data_and_its_message_as_users_read_it() {
    auto r = parse_layer("version: 1\nfilesystem:\n  allow_raed: []\n", kTierRepo, "/p/.paddock/policy.yaml");
    QVERIFY(!r.ok());
    QVERIFY(r.error().origin.has_value());
    QCOMPARE(*r.error().origin, (ErrorOrigin{"/p/.paddock/policy.yaml", 3, 3, "filesystem.allow_raed"}));
    QVERIFY2(r.error().message.rfind("/p/.paddock/policy.yaml:3:3: key 'filesystem.allow_raed': unknown key", 0) == 0,
             r.error().message.c_str());
    auto syntax = parse_layer("version: 1\nfilesystem: [\n", kTierRepo, "/p/x.yaml");
    QVERIFY(!syntax.ok() && syntax.error().origin);
    QCOMPARE(syntax.error().origin->file, std::string("/p/x.yaml"));
    QVERIFY(syntax.error().origin->line > 0);
    QVERIFY(syntax.error().message.rfind("/p/x.yaml:" + std::to_string(syntax.error().origin->line) + ":", 0) == 0);
  }
};

QTEST_APPLESS_MAIN(LayerParserTest)
#include "layer_parser_test.moc"
