#include "yaml_text_edit.h"

#include <algorithm>
#include <optional>
#include <sstream>

#include <yaml-cpp/yaml.h>

namespace paddock::gui {
namespace {

struct Line {
  std::string text;
  int indent = 0;           // leading spaces
  bool blank_or_comment = false;
};

std::vector<Line> split_lines(const std::string& text) {
  std::vector<Line> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    Line l;
    l.text = text.substr(start, end - start);
    l.indent = static_cast<int>(l.text.find_first_not_of(' '));
    if (l.indent < 0) l.indent = static_cast<int>(l.text.size());
    const auto first = l.text.find_first_not_of(" \t\r");
    l.blank_or_comment = first == std::string::npos || l.text[first] == '#';
    out.push_back(std::move(l));
    start = end + 1;
  }
  return out;
}

std::string join_lines(const std::vector<Line>& lines, bool trailing_newline) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out += lines[i].text;
    if (i + 1 < lines.size() || trailing_newline) out += '\n';
  }
  return out;
}

Line make_line(int indent, const std::string& body) {
  Line l;
  l.text = std::string(static_cast<std::size_t>(indent), ' ') + body;
  l.indent = indent;
  return l;
}

// "key: rest" at this line's indent -> rest (after the colon, trimmed); nullopt if another key.
std::optional<std::string> key_rest(const Line& l, const std::string& key) {
  if (l.blank_or_comment) return std::nullopt;
  const std::string body = l.text.substr(static_cast<std::size_t>(l.indent));
  for (const std::string& k : {key, "\"" + key + "\"", "'" + key + "'"}) {
    if (body.rfind(k + ":", 0) != 0) continue;
    std::string rest = body.substr(k.size() + 1);
    if (!rest.empty() && rest[0] != ' ' && rest[0] != '\t') continue;
    const auto first = rest.find_first_not_of(" \t");
    return first == std::string::npos ? std::string() : rest.substr(first);
  }
  return std::nullopt;
}

// Splits "value  # comment" outside quotes; returns {value(trimmed), comment(with leading space)}.
std::pair<std::string, std::string> split_comment(const std::string& s) {
  char quote = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quote) {
      if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"') ++i;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t')) {
      std::string v = s.substr(0, i);
      while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.pop_back();
      std::size_t cs = i;
      while (cs > 0 && (s[cs - 1] == ' ' || s[cs - 1] == '\t')) --cs;
      return {v, s.substr(cs)};
    }
  }
  std::string v = s;
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t' || v.back() == '\r')) v.pop_back();
  return {v, ""};
}

// The scalar a YAML item text stands for (quotes removed), via the real parser.
std::string scalar_value(const std::string& item) {
  try {
    YAML::Node n = YAML::Load(item);
    if (n.IsScalar()) return n.as<std::string>();
  } catch (const YAML::Exception&) {
  }
  return item;
}

struct Block {
  std::size_t begin = 0;  // first line after the header
  std::size_t end = 0;    // one past the last line that belongs to it (trailing blanks excluded)
};

// Lines after `header` that are indented deeper than `indent` (blank/comment lines in between
// belong to it only if a deeper line follows).
Block block_after(const std::vector<Line>& lines, std::size_t header, int indent, bool allow_same_indent_dash) {
  Block b{header + 1, header + 1};
  for (std::size_t i = header + 1; i < lines.size(); ++i) {
    const Line& l = lines[i];
    if (l.blank_or_comment) continue;
    const bool dash = allow_same_indent_dash && l.indent == indent &&
                      l.text.compare(static_cast<std::size_t>(l.indent), 1, "-") == 0;
    if (l.indent <= indent && !dash) break;
    b.end = i + 1;
  }
  return b;
}

Error flow_refusal(const std::string& where) {
  return bad_input(where + " is written in a form the editor cannot change line by line (flow "
                   "mapping or multi-line item); edit it in the YAML view");
}

struct Located {
  std::optional<std::size_t> section;  // header line of `section:`
  Block section_block;
  int child_indent = 2;
  std::optional<std::size_t> key;      // header line of `key:` inside it
};

Result<Located> locate(const std::vector<Line>& lines, const std::string& section, const std::string& key) {
  Located loc;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].indent != 0) continue;
    auto rest = key_rest(lines[i], section);
    if (!rest) continue;
    if (!split_comment(*rest).first.empty()) return flow_refusal("'" + section + ":'");
    loc.section = i;
    loc.section_block = block_after(lines, i, 0, false);
    break;
  }
  if (!loc.section) return loc;
  bool first = true;
  for (std::size_t i = loc.section_block.begin; i < loc.section_block.end; ++i) {
    const Line& l = lines[i];
    if (l.blank_or_comment) continue;
    if (first) {
      loc.child_indent = l.indent;
      first = false;
    }
    if (l.indent != loc.child_indent) continue;
    if (key_rest(l, key)) {
      loc.key = i;
      break;
    }
  }
  return loc;
}

Result<YAML::Node> load(const std::string& text) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return bad_input(std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
}

}  // namespace

std::string yaml_quote(const std::string& value) {
  const bool plain_ok =
      !value.empty() && value.find_first_of("\"'\\\n\t{}[],&*!|>%@`#") == std::string::npos &&
      value.find(": ") == std::string::npos && value.front() != ' ' && value.back() != ' ' &&
      value.front() != '-' && value.front() != '?' && value.back() != ':' &&
      scalar_value(value) == value;
  if (plain_ok) {
    // Words YAML would read as something other than a string.
    static const char* kSpecial[] = {"true", "false", "yes", "no", "on", "off", "null", "~", "True", "False", "Null"};
    if (std::none_of(std::begin(kSpecial), std::end(kSpecial), [&](const char* s) { return value == s; }))
      return value;
  }
  std::string out = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') { out += "\\n"; continue; }
    if (c == '\t') { out += "\\t"; continue; }
    out += c;
  }
  return out + "\"";
}

Result<std::vector<std::string>> read_yaml_sequence(const std::string& text, const std::string& section,
                                                   const std::string& key) {
  auto root = load(text);
  if (!root.ok()) return root.error();
  std::vector<std::string> out;
  try {
    const YAML::Node n = (*root)[section][key];
    if (!n) return out;
    if (!n.IsSequence()) return bad_input(section + "." + key + " is not a list");
    for (const auto& item : n) {
      if (!item.IsScalar()) return bad_input(section + "." + key + " has an item that is not a string");
      out.push_back(item.as<std::string>());
    }
  } catch (const YAML::Exception& e) {
    return bad_input(section + "." + key + ": " + e.msg);
  }
  return out;
}

Result<std::string> read_yaml_scalar(const std::string& text, const std::string& section, const std::string& key) {
  auto root = load(text);
  if (!root.ok()) return root.error();
  try {
    const YAML::Node n = (*root)[section][key];
    if (!n) return std::string();
    if (!n.IsScalar()) return bad_input(section + "." + key + " is not a single value");
    return n.as<std::string>();
  } catch (const YAML::Exception& e) {
    return bad_input(section + "." + key + ": " + e.msg);
  }
}

Result<std::string> set_yaml_sequence(const std::string& text, const std::string& section,
                                      const std::string& key, const std::vector<std::string>& values) {
  // The source must parse before we touch it: a line edit of a broken document is a guess.
  if (auto current = read_yaml_sequence(text, section, key); !current.ok()) return current.error();
  const bool trailing_newline = text.empty() || text.back() == '\n';
  std::vector<Line> lines = split_lines(text);
  auto loc = locate(lines, section, key);
  if (!loc.ok()) return loc.error();

  if (!loc->section) {
    if (values.empty()) return text;
    lines.push_back(make_line(0, section + ":"));
    lines.push_back(make_line(2, key + ":"));
    for (const auto& v : values) lines.push_back(make_line(4, "- " + yaml_quote(v)));
    return join_lines(lines, true);
  }
  const int ci = loc->child_indent;
  if (!loc->key) {
    if (values.empty()) return text;
    std::vector<Line> add{make_line(ci, key + ":")};
    for (const auto& v : values) add.push_back(make_line(ci + 2, "- " + yaml_quote(v)));
    const std::size_t at = std::max(loc->section_block.end, *loc->section + 1);
    lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), add.begin(), add.end());
    return join_lines(lines, trailing_newline);
  }

  const std::size_t k = *loc->key;
  const auto [rest, comment] = split_comment(*key_rest(lines[k], key));
  if (!rest.empty()) {
    // Flow sequence on the key's line: rewrite just that value, keep the comment.
    if (rest.front() != '[' || rest.back() != ']') return flow_refusal("'" + section + "." + key + ":'");
    std::string flow = "[";
    for (std::size_t i = 0; i < values.size(); ++i) flow += (i ? ", " : "") + yaml_quote(values[i]);
    flow += "]";
    lines[k].text = std::string(static_cast<std::size_t>(ci), ' ') + key + ": " + flow + comment;
    return join_lines(lines, trailing_newline);
  }

  // Block sequence: one item per line.
  Block items = block_after(lines, k, ci, true);
  std::vector<std::size_t> item_lines;
  int item_indent = ci + 2;
  for (std::size_t i = items.begin; i < items.end; ++i) {
    const Line& l = lines[i];
    if (l.blank_or_comment) continue;
    if (l.text.compare(static_cast<std::size_t>(l.indent), 2, "- ") != 0 || (!item_lines.empty() && l.indent != item_indent))
      return flow_refusal("'" + section + "." + key + ":'");
    item_indent = l.indent;
    item_lines.push_back(i);
  }
  // Keep the lines of items that stay (in their order), drop the others, append the new ones.
  std::vector<std::string> remaining = values;
  std::vector<std::size_t> drop;
  for (std::size_t i : item_lines) {
    const auto [item, c] = split_comment(lines[i].text.substr(static_cast<std::size_t>(lines[i].indent) + 2));
    auto it = std::find(remaining.begin(), remaining.end(), scalar_value(item));
    if (it == remaining.end()) drop.push_back(i);
    else remaining.erase(it);
  }
  std::size_t insert_at = item_lines.empty() ? k + 1 : item_lines.back() + 1;
  std::vector<Line> add;
  for (const auto& v : remaining) add.push_back(make_line(item_indent, "- " + yaml_quote(v)));
  lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(insert_at), add.begin(), add.end());
  for (auto it = drop.rbegin(); it != drop.rend(); ++it) lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(*it));
  if (values.empty()) lines[k].text = std::string(static_cast<std::size_t>(ci), ' ') + key + ": []" + comment;
  return join_lines(lines, trailing_newline);
}

Result<std::string> set_yaml_scalar(const std::string& text, const std::string& section, const std::string& key,
                                    const std::string& value) {
  if (auto current = read_yaml_scalar(text, section, key); !current.ok()) return current.error();
  const bool trailing_newline = text.empty() || text.back() == '\n';
  std::vector<Line> lines = split_lines(text);
  auto loc = locate(lines, section, key);
  if (!loc.ok()) return loc.error();
  if (!loc->section) {
    if (value.empty()) return text;
    lines.push_back(make_line(0, section + ":"));
    lines.push_back(make_line(2, key + ": " + yaml_quote(value)));
    return join_lines(lines, true);
  }
  const int ci = loc->child_indent;
  if (!loc->key) {
    if (value.empty()) return text;
    const std::size_t at = std::max(loc->section_block.end, *loc->section + 1);
    lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), make_line(ci, key + ": " + yaml_quote(value)));
    return join_lines(lines, trailing_newline);
  }
  const std::size_t k = *loc->key;
  const auto [rest, comment] = split_comment(*key_rest(lines[k], key));
  if (rest.empty() || rest.front() == '[' || rest.front() == '{' || rest.front() == '|' || rest.front() == '>')
    return flow_refusal("'" + section + "." + key + ":'");
  if (value.empty()) {
    lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(k));
    // A section left with no keys would be `section:` = null, which the schema may refuse.
    auto again = locate(lines, section, key);
    if (again.ok() && again->section && again->section_block.end <= *again->section + 1)
      lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(*again->section));
  } else {
    lines[k].text = std::string(static_cast<std::size_t>(ci), ' ') + key + ": " + yaml_quote(value) + comment;
  }
  return join_lines(lines, trailing_newline);
}

}  // namespace paddock::gui
