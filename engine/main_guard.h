// The last line of defence of every program's main(): an exception that reaches it is a bug,
// and the program ends with one line on stderr and a fail-closed exit code instead of
// std::terminate's SIGABRT (which an agent could provoke at will with one planted file name).
// Malformed JSON that reached a parser unchecked is bad input (2); anything else is 125, the
// code for "nothing was run".
#pragma once

#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/status.h"

namespace paddock {

namespace main_guard_detail {
inline int report(const char* program, const char* what, ErrorCode code) noexcept {
  std::string line;
  try {
    line = std::string(program) + ": unexpected error (a bug; please report it): " + what;
    for (char& c : line)
      if (c == '\n' || c == '\r') c = ' ';
  } catch (...) {
    line = program;
  }
  line += "\n";
  std::fputs(line.c_str(), stderr);
  return static_cast<int>(code);
}
}  // namespace main_guard_detail

// Runs body() and returns its exit code; an exception that escapes it is printed as one line.
template <class Body>
int guarded_main(const char* program, Body&& body) noexcept {
  try {
    return body();
  } catch (const nlohmann::json::parse_error& e) {
    return main_guard_detail::report(program, e.what(), ErrorCode::kBadInput);
  } catch (const std::bad_alloc&) {
    return main_guard_detail::report(program, "out of memory", ErrorCode::kRefused);
  } catch (const std::exception& e) {
    return main_guard_detail::report(program, e.what(), ErrorCode::kRefused);
  } catch (...) {
    return main_guard_detail::report(program, "an exception of unknown type", ErrorCode::kRefused);
  }
}

}  // namespace paddock
