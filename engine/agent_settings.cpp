#include "engine/agent_settings.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/session/config_watch.h"

namespace paddock {
namespace {

using nlohmann::json;

// "/a/b~1c" -> {"a", "b/c"} (RFC 6901).
std::vector<std::string> pointer_tokens(const std::string& pointer) {
  std::vector<std::string> out;
  std::string cur;
  for (std::size_t i = 1; i <= pointer.size(); ++i) {
    if (i == pointer.size() || pointer[i] == '/') {
      out.push_back(cur);
      cur.clear();
      continue;
    }
    if (pointer[i] == '~' && i + 1 < pointer.size() && (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
      cur += pointer[i + 1] == '0' ? '~' : '/';
      ++i;
      continue;
    }
    cur += pointer[i];
  }
  return out;
}

Result<std::string> apply_json(const AgentSetting& s, const std::optional<std::string>& current,
                               const std::optional<std::string>& imported) {
  json doc = json::object();
  if (current && current->find_first_not_of(" \t\r\n") != std::string::npos) {
    doc = json::parse(*current, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/true);
    if (doc.is_discarded() || !doc.is_object()) return bad_input(s.file + " is not a JSON object");
  }
  try {
    if (imported && !s.import_keys.empty()) {
      const json from = json::parse(*imported, nullptr, false, true);
      if (from.is_discarded() || !from.is_object()) return bad_input(s.import_from + " is not a JSON object");
      for (const auto& key : s.import_keys) {
        const json::json_pointer p(key);
        if (!from.contains(p)) continue;
        const json& theirs = from.at(p);
        if (!doc.contains(p)) {
          doc[p] = theirs;
        } else if (doc.at(p).is_object() && theirs.is_object()) {
          json& ours = doc[p];
          for (const auto& [k, v] : theirs.items())
            if (!ours.contains(k)) ours[k] = v;
        }
      }
    }
    for (const auto& [key, value] : s.set) {
      const json v = json::parse(value, nullptr, false);
      if (v.is_discarded()) return bad_input(s.file + ": the value for " + key + " is not JSON");
      doc[json::json_pointer(key)] = v;
    }
  } catch (const json::exception& e) {
    return bad_input(s.file + ": " + e.what());
  }
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

// ---- TOML by text ----------------------------------------------------------------------------

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  const auto b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

// The dotted segments of a table header or a key ("a . \"b.c\"" -> {"a", "b.c"}); nullopt for a
// shape this edit does not read.
std::optional<std::vector<std::string>> dotted(const std::string& text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i >= text.size()) return std::nullopt;
    std::string seg;
    if (text[i] == '"' || text[i] == '\'') {
      const char q = text[i++];
      while (i < text.size() && text[i] != q) {
        if (q == '"' && text[i] == '\\') return std::nullopt;  // escapes in keys: not read here
        seg += text[i++];
      }
      if (i >= text.size()) return std::nullopt;
      ++i;
    } else {
      while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_' || text[i] == '-'))
        seg += text[i++];
      if (seg.empty()) return std::nullopt;
    }
    out.push_back(seg);
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i < text.size()) {
      if (text[i] != '.') return std::nullopt;
      ++i;
    }
  }
  if (out.empty()) return std::nullopt;
  return out;
}

std::string key_text(const std::string& k) {
  bool bare = !k.empty();
  for (char c : k) bare = bare && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-');
  return bare ? k : json(k).dump();
}

struct Line {
  std::string text;
  std::vector<std::string> table;  // the table it is in (its own, for a header)
  bool header = false;
  bool array_table = false;        // in (or the header of) an array of tables
  std::optional<std::vector<std::string>> key;  // a key = value line: its (dotted) key
  std::string key_as_written;
  bool multiline = false;          // its value continues on later lines
};

std::vector<Line> read_lines(const std::string& text) {
  std::vector<Line> lines;
  std::vector<std::string> table;
  bool array = false;
  std::istringstream in(text);
  std::string raw;
  while (std::getline(in, raw)) {
    Line l;
    l.text = raw;
    const std::string t = trim(raw);
    if (t.rfind("[[", 0) == 0) {
      array = true;
      table.clear();
      l.header = true;
    } else if (!t.empty() && t[0] == '[') {
      const auto close = t.find(']');
      auto segs = close == std::string::npos ? std::nullopt : dotted(t.substr(1, close - 1));
      table = segs ? *segs : std::vector<std::string>{"\x01"};  // unreadable: matches nothing
      array = false;
      l.header = true;
    } else if (!t.empty() && t[0] != '#') {
      if (const auto eq = t.find('='); eq != std::string::npos) {
        l.key = dotted(t.substr(0, eq));
        l.key_as_written = trim(t.substr(0, eq));
        const std::string v = trim(t.substr(eq + 1));
        const auto closes = [&](char open, char close) {
          int depth = 0;
          for (char c : v) depth += c == open ? 1 : c == close ? -1 : 0;
          return depth <= 0;
        };
        if ((v.rfind("\"\"\"", 0) == 0 && v.find("\"\"\"", 3) == std::string::npos) ||
            (v.rfind("'''", 0) == 0 && v.find("'''", 3) == std::string::npos) || (!v.empty() && v[0] == '[' && !closes('[', ']')) ||
            (!v.empty() && v[0] == '{' && !closes('{', '}')))
          l.multiline = true;
      }
    }
    l.table = table;
    l.array_table = array;
    lines.push_back(std::move(l));
  }
  return lines;
}

bool matches(const std::vector<std::string>& path, const std::vector<std::string>& tokens) {
  if (path.size() != tokens.size()) return false;
  for (std::size_t i = 0; i < path.size(); ++i)
    if (tokens[i] != "*" && tokens[i] != path[i]) return false;
  return true;
}

Result<std::string> apply_toml(const AgentSetting& s, const std::optional<std::string>& current) {
  std::vector<Line> lines = read_lines(current.value_or(""));
  for (const auto& [pointer, value] : s.set) {
    const std::vector<std::string> tokens = pointer_tokens(pointer);
    if (tokens.empty()) return bad_input(s.file + ": an empty key");
    const bool wildcard = std::find(tokens.begin(), tokens.end(), "*") != tokens.end();
    std::vector<std::size_t> found;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const Line& l = lines[i];
      if (!l.key || l.array_table) continue;
      std::vector<std::string> full = l.table;
      full.insert(full.end(), l.key->begin(), l.key->end());
      if (matches(full, tokens)) found.push_back(i);
    }
    for (std::size_t i : found)
      if (lines[i].multiline) return bad_input(s.file + ": " + pointer + " spans several lines; it cannot be set here");
    for (std::size_t n = 0; n < found.size(); ++n) {
      Line& l = lines[found[n]];
      if (n == 0 || wildcard) l.text = l.key_as_written + " = " + value;
      else l.text.clear(), l.key.reset();  // a duplicate: the file was not valid TOML anyway
    }
    if (found.empty() && !wildcard) {
      const std::vector<std::string> table(tokens.begin(), tokens.end() - 1);
      Line add;
      add.text = key_text(tokens.back()) + " = " + value;
      if (table.empty()) {
        lines.insert(lines.begin(), add);
      } else {
        std::size_t at = lines.size();
        for (std::size_t i = 0; i < lines.size(); ++i)
          if (lines[i].header && !lines[i].array_table && lines[i].table == table) at = i + 1;
        if (at == lines.size()) {
          std::string header;
          for (const auto& seg : table) header += (header.empty() ? "" : ".") + key_text(seg);
          Line h;
          h.text = "[" + header + "]";
          lines.push_back(std::move(h));
          lines.push_back(add);
        } else {
          lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), add);
        }
      }
    }
  }
  std::string out;
  for (const auto& l : lines) out += l.text + "\n";
  // What Codex (or any reader) will make of it: every key must now say what it must.
  auto doc = session::parse_config_document("toml", out);
  if (!doc) return bad_input(s.file + " does not parse as TOML");
  for (const auto& [pointer, value] : s.set) {
    const json want = json::parse(value, nullptr, false);
    const std::vector<std::string> tokens = pointer_tokens(pointer);
    bool ok = true;
    const std::function<void(const json&, std::size_t)> check = [&](const json& node, std::size_t i) {
      if (i == tokens.size()) {
        ok = ok && node == want;
        return;
      }
      if (!node.is_object()) return;
      if (tokens[i] == "*") {
        for (const auto& [k, v] : node.items()) check(v, i + 1);
      } else if (auto it = node.find(tokens[i]); it != node.end()) {
        check(*it, i + 1);
      } else if (std::find(tokens.begin(), tokens.end(), "*") == tokens.end()) {
        ok = false;  // a plain key must be there
      }
    };
    check(*doc, 0);
    if (!ok) return bad_input(s.file + ": " + pointer + " is defined in a way this edit cannot change (a dotted key "
                              "or an inline table)");
  }
  return out;
}

}  // namespace

Result<std::string> apply_agent_setting(const AgentSetting& setting, const std::optional<std::string>& current,
                                        const std::optional<std::string>& imported) {
  if (setting.format == "json") return apply_json(setting, current, imported);
  if (setting.format == "toml") return apply_toml(setting, current);
  return bad_input(setting.file + ": unknown settings format " + setting.format);
}

}  // namespace paddock
