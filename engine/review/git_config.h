// The settings of a git config file that make git run a program, read from its bytes, never by
// running git: the config of a repository the agent made or could write is exactly what must not
// be handed to the host's git before it has been looked at (core.fsmonitor runs on every `git
// status`, a shell prompt's included). The direct-mode audit and review mode name these keys in
// their reasons (docs/audit.md, docs/review.md).
//
// The syntax is git's: [section], [section "subsection"] and the old [section.subsection],
// `name = value` or a bare `name` (true), '#' and ';' comments, double quotes, the escapes \n \t
// \b \\ \", and a backslash that continues the line. Section and variable names compare without
// case; subsections with it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace paddock::review {

struct GitConfigEntry {
  std::string key;    // section[.subsection].name, section and name lowercased
  std::string value;  // unquoted and unescaped; "true" for a bare name
  int line = 0;       // 1-based, where the entry starts
  bool operator==(const GitConfigEntry&) const = default;
};

struct GitConfig {
  std::vector<GitConfigEntry> entries;  // in file order
  std::string problem;                  // "" or where the text stops being git config, and why
};

// Never fails: what follows a syntax error is not read, and `problem` says so (a caller that must
// fail closed treats a problem as "runs something").
GitConfig parse_git_config(std::string_view text);

// A setting that makes git (or a tool that runs git) start a program.
struct GitCommandKey {
  std::string key;    // as in the file, normalised as above
  std::string value;  // what it names (shortened to 200 bytes)
  std::string why;    // when git runs it
  bool operator==(const GitCommandKey&) const = default;
};

// Every entry of `config` that names a program git runs: core.fsmonitor, core.hooksPath,
// core.sshCommand, core.pager and pager.*, core.editor and sequence.editor, core.askPass,
// filter.*.clean/smudge/process, diff.*.textconv/command and diff.external, merge.*.driver,
// aliases starting with '!', credential helpers, include.path and includeIf.*.path (another file
// whose settings git reads), gpg programs, remote.*.uploadpack/receivepack, submodule.*.update
// with '!', difftool/mergetool commands, protocol.ext.allow and trailer commands. Boolean
// values that turn a feature off (core.fsmonitor = false, pager.log = false) are left out.
std::vector<GitCommandKey> git_command_keys(const GitConfig& config);

// "core.fsmonitor, alias.x" (at most `max` keys, then "and N more").
std::string describe_command_keys(const std::vector<GitCommandKey>& keys, std::size_t max = 4);

}  // namespace paddock::review
