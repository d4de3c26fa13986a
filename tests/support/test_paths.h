// Where a test finds the build tree and the source tree: from its own executable (every test runs
// from below the build tree, whose CMakeCache.txt names the source tree), never from absolute
// paths compiled in, so a second clone compiles the tests to the same objects and ccache reuses
// them (docs/architecture.md, "Build").
#pragma once

#include <string>

namespace paddock::test {

const std::string& build_dir();   // the directory holding CMakeCache.txt
const std::string& source_dir();  // the tree that build was configured from
std::string build_bin();          // <build>/bin
std::string build_libexec();      // <build>/libexec/paddock
std::string build_data();         // <build>/share/paddock
std::string test_data();          // <source>/tests/data

}  // namespace paddock::test
