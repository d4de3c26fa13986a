// The only way a test skips. A skip hides whatever the test would have caught, so it is allowed
// for two facts about where the suite runs, never for anything Paddock does:
//   kernel  the kernel (or the system it runs, e.g. its cgroup delegation or its limits for this
//           process) lacks what the test needs, as the probe or the kernel itself says;
//   user    the suite does not run as the user the case is about (a root row, as another uid).
// A refusal the test exists to catch fails it, and so does a missing tool that scripts/bootstrap
// installs. Each skip is recorded, class and reason, in $PADDOCK_SKIP_LOG (scripts/test sets
// it); scripts/test prints every skip at the end and fails on one that did not come through here
// (a bare QSKIP in a test's output). tests/support/skip_policy_test.cpp keeps QSKIP out of the
// tests' sources.
#pragma once

#include <string>

#include <QtTest>

namespace paddock::test {

enum class SkipFact { kKernel, kUser };

const char* to_string(SkipFact fact);

// Appends "<fact>\t<test binary> <function>(<row>)\t<reason>" to $PADDOCK_SKIP_LOG, if set.
// `function` and `row` default to the current test function and data row.
void record_skip(SkipFact fact, const std::string& reason, const std::string& function = {},
                 const std::string& row = {});

// "[kernel] reason": the message QSKIP prints, which scripts/test matches against the record.
std::string skip_message(SkipFact fact, const std::string& reason);

}  // namespace paddock::test

// Skips the current test (or row) for `fact`; `reason` is a std::string or a C string.
#define PADDOCK_SKIP(fact, reason)                                                       \
  do {                                                                                   \
    const std::string paddock_skip_reason_ = (reason);                                   \
    ::paddock::test::record_skip((fact), paddock_skip_reason_);                          \
    QSKIP(::paddock::test::skip_message((fact), paddock_skip_reason_).c_str());          \
  } while (false)

#define PADDOCK_SKIP_KERNEL(reason) PADDOCK_SKIP(::paddock::test::SkipFact::kKernel, reason)
#define PADDOCK_SKIP_USER(reason) PADDOCK_SKIP(::paddock::test::SkipFact::kUser, reason)
