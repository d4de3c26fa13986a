// libFuzzer target for policy layers, the repository's untrusted input: YAML bytes -> parse ->
// merge with the shipped tiers -> freeze -> canonical bytes. Whatever the bytes, evaluation
// ends in a frozen IR or one error line, never a crash; a frozen IR reads back from its own
// canonical bytes to the same IR, and evaluating twice gives the same hash.
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "engine/capability.h"
#include "engine/engine.h"
#include "engine/ir.h"
#include "engine/layer.h"

using namespace paddock;

namespace {

void require(bool ok) {
  if (!ok) std::abort();  // libFuzzer reports the input that broke a contract
}

struct World {
  std::string root, home, project;
};

// A small project with the kinds of names layers meet: secrets, a name that is not UTF-8, a
// .git directory, nested files.
const World& world() {
  static const World w = [] {
    char tmpl[] = "/tmp/paddock-layer-fuzz.XXXXXX";
    const char* dir = ::mkdtemp(tmpl);
    require(dir != nullptr);
    World out{dir, std::string(dir) + "/home", std::string(dir) + "/project"};
    for (const std::string& d : {out.home, out.home + "/.ssh", out.home + "/.config", out.project,
                                 out.project + "/src", out.project + "/.git", out.project + "/.git/hooks",
                                 out.project + "/.paddock", out.root + "/etc"})
      ::mkdir(d.c_str(), 0755);
    for (const std::string& f : {out.home + "/.ssh/id_rsa", out.project + "/.env", out.project + "/src/main.rs",
                                 out.project + "/Cargo.toml", out.project + "/caf\xe9.pem", out.project + "/.git/config",
                                 out.project + "/.git/HEAD"})
      std::ofstream(f) << "x\n";
    return out;
  }();
  return w;
}

// Deep globs walk the disk (up to the walk budget) and would spend the run's time in readdir:
// only those below the project or the home are evaluated.
bool walks_only_the_world(std::string_view text) {
  for (std::size_t at = text.find("**"); at != std::string_view::npos; at = text.find("**", at + 2)) {
    const std::string_view before = text.substr(0, at);
    const bool ok = before.ends_with("$PROJECT/") || before.ends_with("~/") || before.ends_with("$HOME/") ||
                    before.ends_with("$PROJECT/*") || before.ends_with("~/*");
    if (!ok) return false;
  }
  return true;
}

bool starts_with_any(std::string_view text, std::initializer_list<std::string_view> prefixes) {
  for (auto p : prefixes)
    if (text.substr(0, p.size()) == p && (text.size() == p.size() || text[p.size()] == '/')) return true;
  return false;
}

// Every literal grant is searched for unix sockets and every glob walked to its end, so a layer
// that names the machine's big trees (/, /root, /var, /tmp) would spend the run in readdir as
// well: only paths in the world, or grants in the trees that are never searched, are evaluated.
bool names_only_the_world(const std::string& text) {
  auto layer = parse_layer(text, kTierRepo, "/fuzz/policy.yaml");
  if (!layer.ok()) return true;  // refused by the parser: cheap, and what is fuzzed
  const auto in_world = [](std::string_view p) {
    return p.find("..") == std::string_view::npos && starts_with_any(p, {"$PROJECT", "$HOME", "~"});
  };
  for (const auto* list : {&layer->allow_write, &layer->allow_read, &layer->deny, &layer->deny_write,
                           &layer->unix_sockets_allow, &layer->unprotect})
    for (const auto& item : *list) {
      const std::string_view p = item.text;
      if (in_world(p)) continue;
      const bool literal = p.find_first_of("*?[") == std::string_view::npos;
      const bool grant = list == &layer->allow_write || list == &layer->allow_read;
      if (literal && p.find("..") == std::string_view::npos &&
          (!grant || starts_with_any(p, {"/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc", "/proc", "/sys", "/dev"})))
        continue;
      return false;
    }
  return true;
}

Inputs inputs(const std::string& layer) {
  const World& w = world();
  Inputs in;
  in.project = w.project;
  in.resources_dir = PADDOCK_FUZZ_RESOURCES;
  in.environment = {{"HOME", w.home}, {"PATH", "/usr/bin:/bin"}, {"LANG", "C.UTF-8"},
                    {"PADDOCK_SYSTEM_DIR", w.root + "/etc"}};
  in.overlay[w.project + "/.paddock/policy.yaml"] = layer;
  return in;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string layer(reinterpret_cast<const char*>(data), size);
  if (!walks_only_the_world(layer) || !names_only_the_world(layer)) return 0;

  auto ev = evaluate(inputs(layer));
  if (!ev.ok()) {
    const Error& e = ev.error();
    require(!e.message.empty() && e.message.find('\n') == std::string::npos);
    require(e.code == ErrorCode::kBadInput || e.code == ErrorCode::kRefused || e.code == ErrorCode::kPolicyBlocked);
    if (e.origin) require(e.origin->line >= 0 && e.origin->column >= 0 && e.message.find(e.origin->where()) == 0);
    return 0;
  }
  const FrozenIr& ir = ev->ir;
  require(canonical_bytes(ir) == ev->ir_bytes);
  require(canonical_bytes(to_json(ir)) == ev->ir_bytes);
  FrozenIr again = ir;
  normalize(again);
  require(again == ir);
  auto back = ir_from_json(nlohmann::json::parse(ev->ir_bytes));
  require(back.ok() && *back == ir && canonical_bytes(*back) == ev->ir_bytes);
  (void)requested_fields(ir);
  require(!explain_json(*ev).dump().empty());

  auto twice = evaluate(inputs(layer));
  require(twice.ok() && twice->ir_hash == ev->ir_hash);
  return 0;
}
