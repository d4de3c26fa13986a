// The parser derived from the policy language's declaration (engine/layer_schema.h) reads every
// layer as the hand-written parser it replaces did (tests/engine/legacy_layer_parser.cpp): the
// same Layer for every shipped layer, every fuzz seed and thousands of random layers (fixed
// seeds), and for a layer with one mistake the same error, file:line:column and key.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "engine/layer.h"
#include "tests/support/test_paths.h"

namespace paddock::legacy {
Result<Layer> parse_layer(const std::string& text, const std::string& tier, const std::string& file);
}

using namespace paddock;

namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// Empty when both parsers agree; otherwise what differs.
std::string difference(const std::string& yaml, const char* tier) {
  const std::string file = "/p/.paddock/policy.yaml";
  auto now = parse_layer(yaml, tier, file);
  auto before = legacy::parse_layer(yaml, tier, file);
  if (now.ok() != before.ok())
    return std::string("one parser accepts, the other refuses: ") + (now.ok() ? before.error().message : now.error().message);
  if (!now.ok()) {
    if (now.error().message != before.error().message)
      return "messages differ:\n  now:    " + now.error().message + "\n  before: " + before.error().message;
    if (now.error().code != before.error().code) return "codes differ: " + now.error().message;
    if (before.error().origin && now.error().origin != before.error().origin) return "origins differ: " + now.error().message;
    return {};
  }
  Layer l = *now;
  l.require_signed_at = {};  // the one member the hand-written parser did not record
  if (!(l == *before)) return "the layers differ";
  return {};
}

struct Key {
  const char* name;
  std::vector<const char*> good, bad;
};
struct Section {
  const char* name;
  std::vector<Key> keys;
};

const std::vector<Section>& sections() {
  static const std::vector<Section> s = {
      {"metadata", {{"name", {"n", "\"a name\""}, {"[a]", "{x: 1}"}}, {"description", {"d"}, {"[d]"}}}},
      {"when",
       {{"branch", {"main"}, {"\"\"", "[a]"}},
        {"file_exists", {"Cargo.toml"}, {"\"\""}},
        {"project_contains", {"\"*.tf\""}, {"{a: b}"}},
        {"os", {"linux", "macos", "windows"}, {"beos"}},
        {"agent_is", {"claude-code", "codex"}, {"vim"}}}},
      {"security", {{"immutable", {"true", "false"}, {"yes", "1", "[true]"}}, {"require_signed", {"true", "false"}, {"no"}}}},
      {"filesystem",
       {{"allow_write", {"[$PROJECT/build]", "[/tmp/x, ~/y]", "[]"}, {"/x", "[\"\"]", "[[a]]"}},
        {"allow_read", {"[/usr]"}, {"{a: b}"}},
        {"deny", {"[~/.ssh, \"$PROJECT/**/*.pem\"]"}, {"~/.ssh"}},
        {"deny_write", {"[$PROJECT/.git]"}, {"3"}},
        {"deny_preset", {"[ssh, aws]", "[project-secrets, histories]"}, {"[cloud]", "ssh"}},
        {"deny_write_preset", {"[tool-executed]"}, {"[ssh]"}},
        {"unprotect", {"[$PROJECT/.vscode]"}, {"$PROJECT/.vscode"}},
        {"tmpfs_tmp", {"true", "false"}, {"yes"}},
        {"protect_agent_config", {"true", "false"}, {"[1]"}}}},
      {"network",
       {{"mode", {"off", "allowlist", "strict", "ask"}, {"open", "true", "[off]"}},
        {"allow_domains", {"[a.example.com, \"*.b.com\"]"}, {"a.com"}},
        {"strict_ports", {"{github.com: [443, 22]}"}, {"{a.com: []}", "{a.com: [0]}", "[443]", "{a.com: [x]}", "{a.com: 443}"}},
        {"allow_cidr", {"[10.0.0.0/8]"}, {"10.0.0.0/8"}},
        {"quotas", {"{api.openai.com: 2GiB, b.com: 10}"}, {"{a.com: 2GB}", "{a.com: [1]}", "[1]"}},
        {"presets", {"[npm, pypi]", "[huggingface]"}, {"[rubygems]"}},
        {"loopback_bind", {"true", "false"}, {"off"}},
        {"publish", {"[3000, 1455]"}, {"[0]", "3000", "[65536]", "[x]", "[-1]"}}}},
      {"unix_sockets", {{"allow", {"[/run/x.sock]"}, {"/run/x.sock"}}}},
      {"environment",
       {{"pass_through", {"[PATH, \"LC_*\"]"}, {"PATH"}},
        {"deny", {"[\"AWS_*\"]"}, {"[{a: b}]"}},
        {"agent_credentials", {"true", "false"}, {"maybe"}}}},
      {"secrets", {{"brokered_env", {"[GITHUB_TOKEN]"}, {"GITHUB_TOKEN"}}}},
      {"limits",
       {{"cpu_seconds", {"3600", "1h"}, {"1x", "[1]"}},
        {"memory", {"8GiB", "512", "2M"}, {"8GB", "0"}},
        {"processes", {"512"}, {"-1"}},
        {"open_files", {"4096", "1k"}, {"{a: 1}"}},
        {"file_size", {"1GiB"}, {"99999999999999999999"}},
        {"wall_time", {"4h", "90"}, {"4 hours"}}}},
  };
  return s;
}

const Section& agent_section() {
  static const Section s = {"agent",
                            {{"data_dir", {"~/.x"}, {"[~/.x]"}},
                             {"default_net", {"allowlist", "off"}, {"open"}},
                             {"credential_env", {"[X_API_KEY]"}, {"X_API_KEY"}},
                             {"state_dirs", {"[~/.x/state, ~/.cache/x]"}, {"[\"~/.x/*\"]"}},
                             {"env", {"{A_DIR: $AGENT, B: \"~/b\"}"}, {"{HOME: x}", "{A: [1]}", "{\"A-B\": x}", "[A]"}}}};
  return s;
}

// A random layer with at most one mistake (so that both parsers must report that one).
std::string random_layer(std::mt19937& rng, bool agent_tier, bool with_mistake) {
  auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  std::vector<const Section*> chosen;
  for (const auto& s : sections())
    if (pick(3) == 0) chosen.push_back(&s);
  if (agent_tier) chosen.push_back(&agent_section());
  std::shuffle(chosen.begin(), chosen.end(), rng);
  // The one mistake: a bad value, an unknown key, an unknown section, or a section that is not
  // a mapping.
  const std::size_t kinds = 4;
  std::size_t mistake = with_mistake ? pick(kinds) : kinds;
  if (chosen.empty() && mistake != 2) mistake = kinds;
  const std::size_t where = chosen.empty() ? 0 : pick(chosen.size());
  std::string y = "version: 1\n";
  if (mistake == 2) y += "network_mode: off\n";
  for (std::size_t si = 0; si < chosen.size(); ++si) {
    const Section& s = *chosen[si];
    if (mistake == 3 && si == where) {
      y += std::string(s.name) + ": [a]\n";
      continue;
    }
    std::vector<const Key*> keys;
    for (const auto& k : s.keys)
      if (pick(2) == 0 || (agent_tier && std::string(k.name) == "data_dir")) keys.push_back(&k);
    std::shuffle(keys.begin(), keys.end(), rng);
    const std::size_t bad_at = keys.empty() ? 0 : pick(keys.size());
    const bool flow = pick(3) == 0;
    y += std::string(s.name) + ":" + (flow ? " {" : "\n");
    for (std::size_t ki = 0; ki < keys.size(); ++ki) {
      const Key& k = *keys[ki];
      const bool bad = mistake == 0 && si == where && ki == bad_at && !k.bad.empty();
      const auto& pool = bad ? k.bad : k.good;
      const std::string value = pool[pick(pool.size())];
      if (flow) y += std::string(ki ? ", " : "") + k.name + ": " + value;
      else y += std::string("  ") + k.name + ": " + value + "\n";
    }
    if (mistake == 1 && si == where) y += flow ? std::string(keys.empty() ? "" : ", ") + "allow_wrte: []" : "  allow_wrte: []\n";
    if (flow) y += "}\n";
    else if (keys.empty() && !(mistake == 1 && si == where)) y += "  {}\n";
  }
  return y;
}

}  // namespace

class LayerSchemaEquivalenceTest : public QObject {
  Q_OBJECT
 private slots:
  void every_shipped_layer_and_fuzz_seed_parses_as_before() {
    namespace fs = std::filesystem;
    const fs::path src = paddock::test::source_dir();
    int files = 0;
    for (const char* dir : {"resources/profiles", "resources/presets", "resources/agents", "tests/fuzz/corpus/layer_evaluate"})
      for (const auto& e : fs::directory_iterator(src / dir)) {
        const std::string text = read(e.path());
        for (const char* tier : {kTierSystem, kTierRepo, kTierAgent, kTierProfile}) {
          const std::string d = difference(text, tier);
          QVERIFY2(d.empty(), (e.path().string() + " as " + tier + ": " + d).c_str());
        }
        ++files;
      }
    QVERIFY(files > 15);
  }

  void random_layers_parse_as_before_and_fail_with_the_same_message() {
    int refused = 0;
    for (unsigned seed = 1; seed <= 4000; ++seed) {
      std::mt19937 rng(seed);
      const bool agent = seed % 4 == 0;
      const std::string yaml = random_layer(rng, agent, seed % 2 == 0);
      const char* tier = agent ? kTierAgent : seed % 3 == 0 ? kTierSystem : kTierRepo;
      const std::string d = difference(yaml, tier);
      QVERIFY2(d.empty(), ("seed " + std::to_string(seed) + ":\n" + yaml + "\n" + d).c_str());
      refused += !parse_layer(yaml, tier, "/p").ok();
    }
    QVERIFY2(refused > 1000, std::to_string(refused).c_str());  // the mistakes are really there
  }
};

QTEST_APPLESS_MAIN(LayerSchemaEquivalenceTest)
#include "layer_schema_equivalence_test.moc"
