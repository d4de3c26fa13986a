// `paddock-helper run`: the verified path from a frozen IR to a running agent. Its arguments are
// engine/session/run_args.h's (one encoder for every caller, one decoder here).
// Reads the IR strictly, probes the kernel (or checks the given probe against it), recompiles the
// plan, compares plan_hash (mismatch: 103 before anything runs), checks it (125), refuses a tainted
// plan without --allow-tainted, then runs the session. Returns the exit code of docs/cli.md.
#pragma once

namespace paddock::helper {

int helper_run_main(int argc, char** argv);

}  // namespace paddock::helper
