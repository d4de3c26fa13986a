// paddock-helper.exe (Windows): applies one AppContainer spec written by the Windows backend and
// runs a command inside it.
//   paddock-helper.exe run --spec SPEC.json -- COMMAND [ARGS...]
// Exit codes (docs/cli.md): the command's own, 124 wall time, 125 refused/setup, 127 not found,
// 2 usage.
#include <windows.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/windows/windows_plan.h"
#include "helpers/windows/app_container_launch.h"
#include "helpers/windows/command_line.h"
#include "engine/main_guard.h"

namespace {

constexpr int kRefused = static_cast<int>(paddock::ErrorCode::kRefused);

int fail(int code, const std::string& line) {
  std::fprintf(stderr, "paddock-helper: %s\n", line.c_str());
  return code;
}

}  // namespace

static int program_main(int argc, wchar_t** wargv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i)
    args.push_back(paddock::winhelper::utf16_to_utf8(
        std::u16string(wargv[i], wargv[i] + std::char_traits<wchar_t>::length(wargv[i]))));
  if (args.size() < 5 || args[0] != "run" || args[1] != "--spec" || args[3] != "--")
    return fail(2, "usage: paddock-helper run --spec SPEC.json -- COMMAND [ARGS...]");
  std::ifstream in(args[2], std::ios::binary);
  if (!in) return fail(kRefused, "cannot read the spec file " + args[2]);
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return fail(kRefused, "the spec file " + args[2] + " is not JSON");
  auto spec = paddock::windows_backend::spec_from_json(j);
  if (!spec.ok()) return fail(kRefused, spec.error().message);
  std::vector<std::string> command(args.begin() + 4, args.end());
  auto r = paddock::winhelper::run_in_app_container(*spec, command);
  if (!r.error.empty()) return fail(r.exit_code, r.error);
  return r.exit_code;
}

// No exception leaves main: one line and a fail-closed exit code instead (engine/main_guard.h).
int wmain(int argc, wchar_t** wargv) {
  return paddock::guarded_main("paddock-helper", [&] { return program_main(argc, wargv); });
}
