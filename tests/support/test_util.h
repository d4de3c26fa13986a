// Small things every integration test needs: read and write a whole file, describe a process
// result in an assertion message, wait (bounded, never a timing assertion) for a condition, and
// count the live processes whose command line carries a marker; run as root and as uid 65534.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <QByteArray>

#include "tests/support/process_runner.h"

namespace paddock::test {

std::string slurp(const std::string& path);  // "" when unreadable
void put(const std::string& path, const std::string& text);  // its directories made as needed

// Exit code, stdout and stderr, for QVERIFY2 messages.
QByteArray dump(const ProcessResult& r);

// Live (non-zombie) processes whose command line contains `marker`; -1 if /proc is unreadable.
int count_processes_with(const std::string& marker);
// Live processes whose command line is exactly argv (a parent that names it among its own
// arguments, as paddock-helper names the agent's command, does not count).
int count_processes_running(const std::vector<std::string>& argv);

// The data rows of every boundary test: root, and uid 65534 (our users are not root). A suite
// run as another user has one row, that uid's, and records the root row as skipped (skip.h).
void add_uid_rows();  // QTest column "uid" (uint)
// The uid rows, each in both Linux tiers: columns "uid" (uint) and "tier" (QString, "namespaces"
// or "landlock"); the landlock rows are named "<user>-landlock". Without `landlock`, the
// namespace tier's rows only (a case whose premise is one of the landlock tier's losses).
void add_uid_and_tier_rows(bool landlock = true);
// The head of `paddock run`'s command line for a row's tier (paddock_run_argv): in the landlock
// tier with the network off, the boundary suites' network there.
std::vector<std::string> tier_run_argv(const std::string& tier);

// The command prefix that runs a process as `uid` (setpriv, no groups); empty for root and for
// this process's own uid.
std::vector<std::string> as_uid(uid_t uid);

// Hands `path` and everything under it to uid:uid (lchown: links are not followed).
void chown_tree(const std::string& path, uid_t uid);

// Polls pred every 20 ms for up to `seconds`; true as soon as it holds.
template <class Pred>
bool eventually(Pred pred, int seconds = 20) {
  for (int i = 0; i < seconds * 50; ++i) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return pred();
}

}  // namespace paddock::test
