// Status and Result<T>: how every fallible engine function reports failure.
// Exceptions never cross module boundaries; errors carry the exit code of DESIGN §10.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace paddock {

// The value is the process exit code the CLI uses for this class of error (DESIGN §10).
enum class ErrorCode : int {
  kInternal = 1,          // a bug or an I/O failure that is not the user's input
  kBadInput = 2,          // usage, YAML, schema; message names file:line:col
  kVerifyMismatch = 103,  // plan/IR/attestation hash mismatch
  kTimeout = 124,
  kRefused = 125,         // fail-closed refusal or setup failure, before fork
  kPolicyBlocked = 126,   // lockdown, unapproved or dangerous repository layer, signature
  kNotFound = 127,        // command not found
};

struct [[nodiscard]] Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;  // one line: what, where, what to do

  int exit_code() const { return static_cast<int>(code); }
};

inline Error bad_input(std::string message) { return {ErrorCode::kBadInput, std::move(message)}; }
inline Error refused(std::string message) { return {ErrorCode::kRefused, std::move(message)}; }
inline Error blocked(std::string message) { return {ErrorCode::kPolicyBlocked, std::move(message)}; }
inline Error internal_error(std::string message) { return {ErrorCode::kInternal, std::move(message)}; }

// A value or an Error. Small on purpose: ok(), value(), error(), and implicit construction.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Error error) : data_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(data_); }
  explicit operator bool() const { return ok(); }

  T& value() & { assert(ok()); return std::get<T>(data_); }
  const T& value() const& { assert(ok()); return std::get<T>(data_); }
  T&& value() && { assert(ok()); return std::get<T>(std::move(data_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { assert(!ok()); return std::get<Error>(data_); }

 private:
  std::variant<T, Error> data_;
};

// Result<void>: success or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT(google-explicit-constructor)
  static Status Ok() { return {}; }

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { assert(!ok_); return error_; }

 private:
  Error error_{};
  bool ok_ = true;
};

}  // namespace paddock
