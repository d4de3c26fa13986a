// A launch request with every option set to something other than its default: the round-trip
// tests of the CLI's parser and the app's launch panel use it, and launch_request_test checks
// that a new option is not left out of it.
#pragma once

#include "engine/session/launch_request.h"

namespace paddock::test {

inline session::LaunchRequest every_option() {
  session::LaunchRequest r;
  r.project = "/p/proj";
  r.agent = "codex";
  r.profile = "strict";
  r.preset = "paranoid";
  r.policy_files = {"/p/a.yaml", "rel.yaml"};
  r.net = "allowlist";
  r.allow_domains = {"a.example", "b.example:443"};
  r.allow_reads = {"/r"};
  r.allow_writes = {"w"};
  r.limits = "mem=1GiB,wall=1h";
  r.git_ssh = true;
  r.timeout = "90s";
  r.review = true;
  r.publish = {"1455", "3000"};
  r.host_ports = {"11434"};
  r.tier = "landlock";
  r.allow_tainted = true;
  r.command = {"sh", "-c", "echo --net off"};
  return r;
}

}  // namespace paddock::test
