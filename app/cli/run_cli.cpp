#include <iostream>
#include <string_view>

#include "app/cli/commands.h"

namespace paddock::cli {

int run_cli(int argc, char** argv, CliContext& ctx, CliTree tree) {
  CLI::App app{"Paddock: launch AI coding agents inside a real OS sandbox", "paddock"};
  app.require_subcommand(0, 1);
  app.set_help_all_flag("--help-all", "Show help for every command");
  bool show_version = false;
  app.add_flag("--version", show_version, "Print the version and exit");
  // Also the man page's EXIT STATUS section (`paddock __generate man` reads it back).
  app.footer(
      "Exit status:\n"
      "  0      ok\n"
      "  1      lint --strict found something, or an internal error\n"
      "  2      bad input: usage, YAML, schema (the message names file:line:column)\n"
      "  103    verify or attestation mismatch\n"
      "  124    the agent hit its wall-time limit\n"
      "  125    fail-closed refusal or setup failure, before the agent started\n"
      "  126    blocked by policy: lockdown, unapproved repository layer, signature\n"
      "  127    command not found\n"
      "  128+N  the agent was killed by signal N\n"
      "  other  the agent's own exit code");

  if (tree == CliTree::kForArgs && argc > 1 && std::string_view(argv[1]) == "run") {
    add_run_command(app, ctx);
  } else {
    add_version_and_doctor(app, ctx);
    add_policy_commands(app, ctx);
    add_signing_commands(app, ctx);
    add_plan_command(app, ctx);
    add_session_commands(app, ctx);
    add_review_commands(app, ctx);
    add_credentials_command(app, ctx);
    add_generate_command(app, ctx);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line: what was wrong and where to look. Never a wall of help text.
    std::string what = e.what();
    if (auto nl = what.find('\n'); nl != std::string::npos) what.resize(nl);
    std::string cmd = "paddock";
    for (auto* sub : app.get_subcommands()) cmd += " " + sub->get_name();
    std::cerr << "paddock: " << what << " (see '" << cmd << " --help')\n";
    return 2;
  }
  if (show_version) {
    std::cout << "paddock " << PADDOCK_VERSION << "\n";
    return 0;
  }
  if (app.get_subcommands().empty()) {
    std::cerr << "paddock: no command given (see 'paddock --help')\n";
    return 2;
  }
  return ctx.exit_code;
}

}  // namespace paddock::cli
