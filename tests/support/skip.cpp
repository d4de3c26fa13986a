#include "tests/support/skip.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

namespace paddock::test {

const char* to_string(SkipFact fact) {
  switch (fact) {
    case SkipFact::kKernel: return "kernel";
    case SkipFact::kUser: return "user";
  }
  return "unknown";
}

std::string skip_message(SkipFact fact, const std::string& reason) {
  return std::string("[") + to_string(fact) + "] " + reason;
}

void record_skip(SkipFact fact, const std::string& reason, const std::string& function, const std::string& row) {
  const char* log = std::getenv("PADDOCK_SKIP_LOG");
  if (!log || !*log) return;
  const std::string fn = function.empty() && QTest::currentTestFunction() ? QTest::currentTestFunction() : function;
  const std::string tag = row.empty() && QTest::currentDataTag() ? QTest::currentDataTag() : row;
  std::string line = std::string(to_string(fact)) + "\t" + (QTest::currentAppName() ? QTest::currentAppName() : "?") +
                     " " + fn + "(" + tag + ")\t" + reason;
  for (char& c : line)
    if (c == '\n') c = ' ';
  line += '\n';
  // One write with O_APPEND: lines of tests running at the same time do not interleave.
  const int fd = ::open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  (void)!::write(fd, line.data(), line.size());
  ::close(fd);
}

}  // namespace paddock::test
