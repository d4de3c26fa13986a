// `paddock-helper run`: the verified path from a frozen IR to a running agent.
//   paddock-helper run --ir FILE --plan-hash H --session-dir DIR --session-id ID
//                      [--control-socket PATH] [--timeout SECS] [--allow-tainted]
//                      [--probe FILE] [--cwd DIR] -- CMD [ARGS...]
// Reads the IR strictly, probes the kernel (or checks the given probe against it), recompiles the
// plan, compares plan_hash (mismatch: 103 before anything runs), checks it (125), refuses a tainted
// plan without --allow-tainted, then runs the session. Returns the exit code of DESIGN §10.
#pragma once

namespace paddock::helper {

int helper_run_main(int argc, char** argv);

}  // namespace paddock::helper
