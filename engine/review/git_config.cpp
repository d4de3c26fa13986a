#include "engine/review/git_config.h"

#include <algorithm>
#include <cctype>

namespace paddock::review {
namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }
bool space(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'; }
bool alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool alnum(char c) { return alpha(c) || (c >= '0' && c <= '9'); }

// Git's own reading of a config file, one character at a time ("\r\n" reads as "\n").
class Reader {
 public:
  explicit Reader(std::string_view t) : t_(t) {}
  bool eof() const { return i_ >= t_.size(); }
  char peek() const {
    if (eof()) return '\n';
    if (t_[i_] == '\r' && i_ + 1 < t_.size() && t_[i_ + 1] == '\n') return '\n';
    return t_[i_];
  }
  char next() {
    if (eof()) return '\n';
    char c = t_[i_++];
    if (c == '\r' && i_ < t_.size() && t_[i_] == '\n') c = t_[i_++];
    if (c == '\n') ++line_;
    return c;
  }
  int line() const { return line_; }
  void skip_line() {
    while (!eof() && next() != '\n') {}
  }

 private:
  std::string_view t_;
  std::size_t i_ = 0;
  int line_ = 1;
};

bool is_false(std::string v) {
  std::transform(v.begin(), v.end(), v.begin(), lower);
  return v.empty() || v == "false" || v == "no" || v == "off" || v == "0";
}

bool is_boolean(std::string v) {
  std::transform(v.begin(), v.end(), v.begin(), lower);
  return is_false(v) || v == "true" || v == "yes" || v == "on" || v == "1";
}

struct KeyParts {
  std::string section, subsection, name;
};

KeyParts split_key(const std::string& key) {
  KeyParts p;
  const auto first = key.find('.');
  const auto last = key.rfind('.');
  if (first == std::string::npos) return {key, "", ""};
  p.section = key.substr(0, first);
  p.name = key.substr(last + 1);
  if (last > first) p.subsection = key.substr(first + 1, last - first - 1);
  return p;
}

// Why git runs the program this entry names; "" when it names none.
std::string command_why(const GitConfigEntry& e) {
  const KeyParts k = split_key(e.key);
  const std::string& s = k.section;
  const std::string& n = k.name;
  const bool sub = !k.subsection.empty();
  if (s == "core" && !sub) {
    if (n == "fsmonitor" && !is_boolean(e.value))
      return "git runs this program on every git status, and so does a shell prompt or an editor that shows git's "
             "state";
    if (n == "hookspath") return "git runs the hooks in that directory on commit, checkout, merge, rebase and push";
    if (n == "sshcommand") return "git runs it on every fetch and push over ssh";
    if (n == "pager" && !is_boolean(e.value)) return "git runs it whenever it pages output (log, diff, show)";
    if (n == "editor") return "git runs it on commit, tag and rebase -i";
    if (n == "askpass") return "git runs it when it needs a password";
    if (n == "gitproxy") return "git runs it when it fetches over git://";
    if (n == "alternaterefscommand") return "git runs it on fetch and push";
    return "";
  }
  if (s == "pager" && !is_boolean(e.value)) return "git runs it to page the output of git " + (sub ? k.subsection + " " : "") + n;
  if (s == "sequence" && n == "editor") return "git runs it on rebase -i";
  if (s == "filter" && sub && (n == "clean" || n == "smudge" || n == "process"))
    return "git runs it on checkout, add and status for every file .gitattributes assigns to filter " + k.subsection;
  if (s == "diff" && ((sub && (n == "textconv" || n == "command")) || (!sub && n == "external")))
    return "git runs it on git diff, show and log -p";
  if (s == "merge" && sub && n == "driver") return "git runs it on merges of the files .gitattributes assigns to it";
  if (s == "alias" && !e.value.empty() && e.value[0] == '!')
    return "runs as a shell command when you type git " + (sub ? k.subsection + "." : "") + n;
  if (s == "credential" && n == "helper" && !e.value.empty())
    return "git runs it on every fetch and push that needs credentials";
  if ((s == "include" && !sub && n == "path") || (s == "includeif" && sub && n == "path"))
    return "git reads settings from that file too, and they can name any of these programs";
  if (s == "gpg" && n == "program") return "git runs it on signed commits and tags, and on log --show-signature";
  if (s == "remote" && sub && (n == "uploadpack" || n == "receivepack"))
    return "git runs it on fetch and push to remote " + k.subsection;
  if (s == "submodule" && sub && n == "update" && !e.value.empty() && e.value[0] == '!')
    return "runs as a shell command on git submodule update";
  if ((s == "difftool" || s == "mergetool") && sub && n == "cmd") return "git runs it on git " + s;
  if (s == "protocol" && k.subsection == "ext" && n == "allow" && e.value != "never")
    return "lets ext:: URLs run commands on fetch and clone";
  if (s == "trailer" && sub && (n == "command" || n == "cmd")) return "git runs it on commit --trailer";
  if (s == "browser" && sub && n == "cmd") return "git runs it on git help --web and instaweb";
  if (s == "man" && sub && n == "cmd") return "git runs it on git help";
  if (s == "interactive" && n == "difffilter") return "git runs it on add -p";
  if (s == "sendemail" && n == "smtpserver" && !e.value.empty() && e.value[0] == '/') return "git runs it on send-email";
  return "";
}

}  // namespace

GitConfig parse_git_config(std::string_view text) {
  GitConfig out;
  Reader r(text);
  std::string section;  // "core", "remote.origin" (subsection as written)
  auto fail = [&](const std::string& why) {
    out.problem = "line " + std::to_string(r.line()) + ": " + why;
    return out;
  };
  // A UTF-8 byte order mark is allowed at the start.
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") {
    r.next();
    r.next();
    r.next();
  }
  while (!r.eof()) {
    const char c = r.peek();
    if (c == '\n' || space(c)) {
      r.next();
      continue;
    }
    if (c == '#' || c == ';') {
      r.skip_line();
      continue;
    }
    if (c == '[') {
      r.next();
      std::string name;
      while (!r.eof() && (alnum(r.peek()) || r.peek() == '-' || r.peek() == '.')) name += lower(r.next());
      if (name.empty()) return fail("a section without a name");
      if (space(r.peek())) {
        while (space(r.peek())) r.next();
        if (r.next() != '"') return fail("a subsection must be quoted");
        std::string subsection;
        for (;;) {
          if (r.eof() || r.peek() == '\n') return fail("an unterminated subsection");
          char d = r.next();
          if (d == '"') break;
          if (d == '\\') {
            if (r.eof() || r.peek() == '\n') return fail("an unterminated subsection");
            d = r.next();
          }
          subsection += d;
        }
        if (r.next() != ']') return fail("a section header that does not end in ]");
        section = name + "." + subsection;
      } else {
        if (r.next() != ']') return fail("a section header that does not end in ]");
        section = name;
      }
      continue;
    }
    if (!alpha(c)) return fail(std::string("unexpected character '") + c + "'");
    const int at = r.line();
    std::string name;
    while (!r.eof() && (alnum(r.peek()) || r.peek() == '-')) name += lower(r.next());
    while (space(r.peek())) r.next();
    GitConfigEntry e;
    e.line = at;
    if (section.empty()) return fail("a variable outside any section");
    e.key = section + "." + name;
    if (r.peek() == '\n' || r.peek() == '#' || r.peek() == ';') {
      e.value = "true";
      if (r.peek() != '\n') r.skip_line();
      out.entries.push_back(std::move(e));
      continue;
    }
    if (r.next() != '=') return fail("a variable name followed by neither = nor the end of the line");
    bool quoted = false;
    std::size_t pending = 0;
    for (;;) {
      if (r.eof()) {
        if (quoted) return fail("an unterminated quote");
        break;
      }
      char d = r.next();
      if (d == '\n') {
        if (quoted) return fail("an unterminated quote");
        break;
      }
      if (!quoted && (d == ';' || d == '#')) {
        r.skip_line();
        break;
      }
      if (!quoted && space(d)) {
        if (!e.value.empty()) ++pending;
        continue;
      }
      e.value.append(pending, ' ');
      pending = 0;
      if (d == '\\') {
        const char x = r.next();
        if (x == '\n') continue;  // the value goes on on the next line
        if (x == 't') e.value += '\t';
        else if (x == 'b') e.value += '\b';
        else if (x == 'n') e.value += '\n';
        else if (x == '\\' || x == '"') e.value += x;
        else return fail("an unknown escape in a value");
        continue;
      }
      if (d == '"') {
        quoted = !quoted;
        continue;
      }
      e.value += d;
    }
    out.entries.push_back(std::move(e));
  }
  return out;
}

std::vector<GitCommandKey> git_command_keys(const GitConfig& config) {
  std::vector<GitCommandKey> out;
  for (const auto& e : config.entries) {
    std::string why = command_why(e);
    if (why.empty()) continue;
    std::string value = e.value.size() > 200 ? e.value.substr(0, 200) + "..." : e.value;
    out.push_back({e.key, std::move(value), std::move(why)});
  }
  return out;
}

std::string describe_command_keys(const std::vector<GitCommandKey>& keys, std::size_t max) {
  std::string out;
  for (std::size_t i = 0; i < keys.size() && i < max; ++i) out += (i ? ", " : "") + keys[i].key;
  if (keys.size() > max) out += " and " + std::to_string(keys.size() - max) + " more";
  return out;
}

}  // namespace paddock::review
