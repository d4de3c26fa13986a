// `paddock __generate man|bash|zsh|fish` (hidden): the man page and the shell completion scripts,
// written from the CLI11 tree this binary parses its own arguments with. The package build runs it
// (installers/linux), so the page and the completions list exactly the commands and options this
// `paddock` has and cannot drift from them.
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/commands.h"

namespace paddock::cli {
namespace {

// What a value-taking option or positional expects, from its CLI11 type name (DIR, FILE, PATH,
// CMD) or its IsMember validator ("TEXT:{a,b,c}").
enum class ValueKind { kNone, kText, kDir, kFile, kCommand, kChoice };

struct Opt {
  std::vector<std::string> names;  // "--json", "-h"
  std::string description;
  std::string value_name;          // "DIR", "TEXT"; "" for flags
  ValueKind kind = ValueKind::kNone;
  std::vector<std::string> choices;
  bool repeatable = false;
};

struct Command {
  std::string name, description;
  std::vector<Opt> options;
  std::vector<Opt> positionals;    // names = {"command"}
};

Opt describe(const CLI::Option* o) {
  Opt out;
  for (const auto& s : o->get_snames()) out.names.push_back("-" + s);
  for (const auto& l : o->get_lnames()) out.names.push_back("--" + l);
  if (out.names.empty()) out.names.push_back(o->get_name(/*positional=*/true));
  out.description = o->get_description();
  out.repeatable = o->nonpositional() && o->get_expected_max() > 1;
  if (o->get_items_expected_max() == 0) return out;
  std::string type = o->get_type_name();
  const auto brace = type.find(":{");
  if (brace != std::string::npos && type.back() == '}') {
    std::string set = type.substr(brace + 2, type.size() - brace - 3);
    std::istringstream items(set);
    for (std::string item; std::getline(items, item, ',');) out.choices.push_back(item);
    type.resize(brace);
  }
  out.value_name = type.empty() ? "VALUE" : type;
  out.kind = !out.choices.empty() ? ValueKind::kChoice
             : type == "DIR"      ? ValueKind::kDir
             : type == "FILE" || type == "PATH" ? ValueKind::kFile
             : type == "CMD"      ? ValueKind::kCommand
                                  : ValueKind::kText;
  return out;
}

// Visible options and positionals of one app (hidden ones, group "", are left out; so are a
// subcommand's -h/--help/--help-all, which every command has and the root lists once).
void collect(const CLI::App* app, std::vector<Opt>& options, std::vector<Opt>& positionals,
             bool with_help) {
  for (const CLI::Option* o : app->get_options()) {
    if (o->get_group().empty()) continue;
    if (!with_help && (o == app->get_help_ptr() || o == app->get_help_all_ptr() ||
                       (app->get_parent() && o->get_lnames() == std::vector<std::string>{"help-all"})))
      continue;
    (o->nonpositional() ? options : positionals).push_back(describe(o));
  }
}

struct Tree {
  std::string name, description, footer;
  std::vector<Opt> options;  // global
  std::vector<Command> commands;
};

Tree walk(const CLI::App& root) {
  Tree t;
  t.name = root.get_name();
  t.description = root.get_description();
  t.footer = root.get_footer();
  std::vector<Opt> unused;
  collect(&root, t.options, unused, /*with_help=*/true);
  for (const CLI::App* sub : root.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_group().empty()) continue;  // hidden, like this command itself
    Command c;
    c.name = sub->get_name();
    c.description = sub->get_description();
    collect(sub, c.options, c.positionals, /*with_help=*/false);
    t.commands.push_back(std::move(c));
  }
  return t;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

// ---- man(7) ----

// Text for a roff line: backslashes escaped, hyphens as minus signs, no leading control char.
std::string roff(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '\\') out += "\\e";
    else if (ch == '-') out += "\\-";
    else out += ch;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  return out;
}

void man_option(std::ostream& o, const Opt& opt) {
  o << ".TP\n";
  std::vector<std::string> names;
  for (const auto& n : opt.names) names.push_back("\\fB" + roff(n) + "\\fR");
  o << join(names, ", ");
  if (!opt.value_name.empty()) o << " \\fI" << roff(opt.value_name) << "\\fR";
  if (!opt.choices.empty()) o << " (" << roff(join(opt.choices, ", ")) << ")";
  const bool says_repeatable = opt.description.find("repeatable") != std::string::npos;
  o << "\n" << roff(opt.description) << (opt.repeatable && !says_repeatable ? " (repeatable)" : "") << "\n";
}

void write_man(std::ostream& o, const Tree& t) {
  // "Paddock: launch ..." -> "launch ...": NAME already starts with the program's name.
  std::string summary = t.description;
  if (const auto colon = summary.find(": "); colon != std::string::npos && colon < 20)
    summary = summary.substr(colon + 2);
  std::string upper = t.name;
  for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  o << ".\\\" Generated by `" << t.name << " __generate man` from its own command tree; do not edit.\n"
    << ".TH " << upper << " 1 \"\" \"" << t.name << " " << PADDOCK_VERSION << "\" \"User Commands\"\n"
    << ".SH NAME\n" << t.name << " \\- " << roff(summary) << "\n"
    << ".SH SYNOPSIS\n.B " << t.name << "\n.I COMMAND\n[\\fIOPTIONS\\fR]\n.br\n.B " << t.name
    << "\n[\\fB\\-\\-version\\fR] [\\fB\\-\\-help\\fR] [\\fB\\-\\-help\\-all\\fR]\n"
    << ".SH DESCRIPTION\n" << roff(t.description) << ".\n"
    << ".PP\nEvery command prints its options with \\fB" << t.name
    << " \\fICOMMAND\\fB \\-\\-help\\fR.\n.SH OPTIONS\n";
  for (const auto& opt : t.options) man_option(o, opt);
  o << ".SH COMMANDS\n";
  for (const auto& c : t.commands) {
    o << ".SS \"" << t.name << " " << roff(c.name);
    if (!c.options.empty()) o << " [OPTIONS]";
    for (const auto& p : c.positionals) o << " " << roff(p.value_name == "CMD" ? "[--] CMD [ARGS...]" : p.value_name);
    o << "\"\n" << roff(c.description) << ".\n";
    for (const auto& p : c.positionals) man_option(o, p);
    for (const auto& opt : c.options) man_option(o, opt);
  }
  if (!t.footer.empty()) {
    // The footer is `--help`'s closing text: "Title:" lines start a section, "  a  b" rows are
    // tagged paragraphs.
    std::istringstream lines(t.footer);
    bool in_section = false;
    for (std::string line; std::getline(lines, line);) {
      if (line.empty()) continue;
      if (line.back() == ':' && line[0] != ' ') {
        std::string title = line.substr(0, line.size() - 1);
        for (char& ch : title) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        o << (in_section ? ".PD\n" : "") << ".SH " << roff(title) << "\n.PD 0\n";
        in_section = true;
        continue;
      }
      const auto start = line.find_first_not_of(' ');
      const auto gap = line.find("  ", start);
      if (start != std::string::npos && gap != std::string::npos) {
        o << ".TP\n.B " << roff(line.substr(start, gap - start)) << "\n"
          << roff(line.substr(line.find_first_not_of(' ', gap))) << "\n";
      } else {
        o << roff(start == std::string::npos ? line : line.substr(start)) << "\n";
      }
    }
  }
  o << ".PD\n.SH SEE ALSO\n.BR paddock\\-gui (1)\n";
}

// ---- bash ----

std::string shell_words(const std::vector<Opt>& opts) {
  std::vector<std::string> all;
  for (const auto& o : opts)
    for (const auto& n : o.names) all.push_back(n);
  return join(all, " ");
}

// A bash case arm completing the value of opt (files, directories, commands or choices).
std::string bash_value(const Opt& o) {
  switch (o.kind) {
    case ValueKind::kDir: return "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$cur\"))";
    case ValueKind::kFile: return "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\"))";
    case ValueKind::kCommand: return "COMPREPLY=($(compgen -c -- \"$cur\"))";
    case ValueKind::kChoice: return "COMPREPLY=($(compgen -W '" + join(o.choices, " ") + "' -- \"$cur\"))";
    case ValueKind::kText:
    case ValueKind::kNone: break;
  }
  return "COMPREPLY=()";
}

void write_bash(std::ostream& o, const Tree& t) {
  std::vector<std::string> names;
  for (const auto& c : t.commands) names.push_back(c.name);
  o << "# bash completion for " << t.name << "; generated by `" << t.name
    << " __generate bash` from its own command tree; do not edit.\n"
    << "_" << t.name << "() {\n"
    << "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd= i dashdash=0\n"
    << "  COMPREPLY=()\n"
    << "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
    << "    if [[ -z $cmd ]]; then\n"
    << "      [[ ${COMP_WORDS[i]} != -* ]] && cmd=${COMP_WORDS[i]}\n"
    << "    elif [[ ${COMP_WORDS[i]} == -- ]]; then\n"
    << "      dashdash=$i; break\n"
    << "    fi\n"
    << "  done\n"
    << "  if [[ -z $cmd ]]; then\n"
    << "    if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W '" << shell_words(t.options)
    << "' -- \"$cur\")); else COMPREPLY=($(compgen -W '" << join(names, " ") << "' -- \"$cur\")); fi\n"
    << "    return 0\n"
    << "  fi\n"
    << "  case $cmd in\n";
  for (const auto& c : t.commands) {
    o << "    " << c.name << ")\n";
    const Opt* command_positional = nullptr;
    const Opt* other_positional = nullptr;
    for (const auto& p : c.positionals) (p.kind == ValueKind::kCommand ? command_positional : other_positional) = &p;
    if (command_positional)
      o << "      if ((dashdash)); then\n"
        << "        if ((COMP_CWORD == dashdash + 1)); then COMPREPLY=($(compgen -c -- \"$cur\"));"
        << " else compopt -o default 2>/dev/null; fi\n"
        << "        return 0\n"
        << "      fi\n";
    std::string value_arms;
    for (const auto& opt : c.options)
      if (opt.kind != ValueKind::kNone)
        value_arms += "        " + join(opt.names, "|") + ") " + bash_value(opt) + "; return 0 ;;\n";
    if (!value_arms.empty()) o << "      case $prev in\n" << value_arms << "      esac\n";
    std::string words = shell_words(c.options);
    if (command_positional) words += (words.empty() ? "" : " ") + std::string("--");
    o << "      if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W '" << words << "' -- \"$cur\"))";
    if (other_positional) o << "; else " << bash_value(*other_positional);
    o << "; fi\n      ;;\n";
  }
  o << "  esac\n"
    << "  return 0\n"
    << "}\n"
    << "complete -F _" << t.name << " " << t.name << "\n";
}

// ---- zsh ----

// Text inside a single-quoted zsh spec: ' closes the quote, [ ] delimit an explanation.
std::string zsh_text(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '\'') out += "'\\''";
    else if (ch == '[' || ch == ']' || ch == '\\') { out += '\\'; out += ch; }
    else out += ch;
  }
  return out;
}

std::string zsh_action(const Opt& o) {
  switch (o.kind) {
    case ValueKind::kDir: return "_files -/";
    case ValueKind::kFile: return "_files";
    case ValueKind::kCommand: return "_command_names -e";
    case ValueKind::kChoice: return "(" + join(o.choices, " ") + ")";
    case ValueKind::kText:
    case ValueKind::kNone: break;
  }
  return " ";
}

std::string zsh_spec(const Opt& o) {
  std::string names = o.names.size() == 1 ? o.names[0] : "{" + join(o.names, ",") + "}";
  std::string exclusive = o.names.size() > 1 ? "(" + join(o.names, " ") + ")" : "";
  std::string spec = "'" + std::string(o.repeatable ? "*" : exclusive) + "'" + names + "'[" +
                     zsh_text(o.description) + "]";
  if (o.kind != ValueKind::kNone) spec += ":" + zsh_text(o.value_name) + ":" + zsh_action(o);
  return spec + "'";
}

void write_zsh(std::ostream& o, const Tree& t) {
  o << "#compdef " << t.name << "\n"
    << "# zsh completion for " << t.name << "; generated by `" << t.name
    << " __generate zsh` from its own command tree; do not edit.\n"
    << "_" << t.name << "() {\n"
    << "  local curcontext=$curcontext state line ret=1\n"
    << "  local -a commands\n"
    << "  commands=(\n";
  for (const auto& c : t.commands) o << "    '" << c.name << ":" << zsh_text(c.description) << "'\n";
  o << "  )\n"
    << "  _arguments -C";
  for (const auto& opt : t.options) o << " \\\n    " << zsh_spec(opt);
  o << " \\\n    '1: :->command' \\\n    '*:: :->args' && ret=0\n"
    << "  case $state in\n"
    << "    command) _describe -t commands '" << t.name << " command' commands && ret=0 ;;\n"
    << "    args)\n"
    << "      curcontext=${curcontext%:*:*}:" << t.name << "-$words[1]:\n"
    << "      case $words[1] in\n";
  for (const auto& c : t.commands) {
    o << "        " << c.name << ")\n          _arguments";
    for (const auto& opt : c.options) o << " \\\n            " << zsh_spec(opt);
    for (const auto& p : c.positionals) {
      if (p.kind == ValueKind::kCommand)
        o << " \\\n            '*::" << zsh_text(p.value_name) << ":_normal'";
      else
        o << " \\\n            '1:" << zsh_text(p.value_name) << ":" << zsh_action(p) << "'";
    }
    o << " && ret=0 ;;\n";
  }
  o << "      esac ;;\n"
    << "  esac\n"
    << "  return ret\n"
    << "}\n"
    << "_" << t.name << " \"$@\"\n";
}

// ---- fish ----

std::string fish_text(const std::string& s) {
  std::string out = "'";
  for (char ch : s) {
    if (ch == '\'' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "'";
}

void fish_option(std::ostream& o, const std::string& prog, const std::string& condition, const Opt& opt) {
  o << "complete -c " << prog << " -n " << fish_text(condition);
  for (const auto& n : opt.names) o << (n.rfind("--", 0) == 0 ? " -l " + n.substr(2) : " -s " + n.substr(1));
  switch (opt.kind) {
    case ValueKind::kDir: o << " -r -f -a '(__fish_complete_directories)'"; break;
    case ValueKind::kFile: o << " -r -F"; break;
    case ValueKind::kCommand: o << " -r -f -a '(__fish_complete_command)'"; break;
    case ValueKind::kChoice: o << " -x -a " << fish_text(join(opt.choices, " ")); break;
    case ValueKind::kText: o << " -x"; break;
    case ValueKind::kNone: break;
  }
  o << " -d " << fish_text(opt.description) << "\n";
}

void write_fish(std::ostream& o, const Tree& t) {
  std::vector<std::string> names;
  for (const auto& c : t.commands) names.push_back(c.name);
  o << "# fish completion for " << t.name << "; generated by `" << t.name
    << " __generate fish` from its own command tree; do not edit.\n"
    << "complete -c " << t.name << " -f\n";
  const std::string top = "not __fish_seen_subcommand_from " + join(names, " ");
  for (const auto& opt : t.options) fish_option(o, t.name, top, opt);
  for (const auto& c : t.commands)
    o << "complete -c " << t.name << " -n " << fish_text(top) << " -a " << c.name << " -d "
      << fish_text(c.description) << "\n";
  for (const auto& c : t.commands) {
    const std::string in = "__fish_seen_subcommand_from " + c.name;
    for (const auto& opt : c.options) fish_option(o, t.name, in, opt);
    for (const auto& p : c.positionals) {
      if (p.kind == ValueKind::kCommand)
        o << "complete -c " << t.name << " -n " << fish_text(in + "; and contains -- -- (commandline -opc)")
          << " -F -a '(__fish_complete_subcommand -- --)'\n";
      else if (p.kind == ValueKind::kFile || p.kind == ValueKind::kDir)
        o << "complete -c " << t.name << " -n " << fish_text(in) << " -F\n";
    }
  }
}

}  // namespace

void add_generate_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("__generate", "Write the man page or a shell completion script");
  cmd->group("");  // hidden: for the package build, not for users
  auto what = std::make_shared<std::string>();
  cmd->add_option("what", *what, "man, bash, zsh or fish")->required()->check(CLI::IsMember({"man", "bash", "zsh", "fish"}));
  cmd->callback([&app, &ctx, what] {
    const Tree t = walk(app);
    if (*what == "man") write_man(std::cout, t);
    else if (*what == "bash") write_bash(std::cout, t);
    else if (*what == "zsh") write_zsh(std::cout, t);
    else write_fish(std::cout, t);
    std::cout.flush();
    ctx.exit_code = std::cout ? 0 : 1;
  });
}

}  // namespace paddock::cli
