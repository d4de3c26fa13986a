// Status and Result<T>: how every fallible engine function reports failure.
// Exceptions never cross module boundaries; errors carry the exit codes of docs/cli.md.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace paddock {

// The value is the process exit code the CLI uses for this class of error (docs/cli.md, "Exit
// codes").
enum class ErrorCode : int {
  kInternal = 1,          // a bug or an I/O failure that is not the user's input
  kBadInput = 2,          // usage, YAML, schema; message names file:line:col
  kVerifyMismatch = 103,  // plan/IR/attestation hash mismatch
  kTimeout = 124,
  kRefused = 125,         // fail-closed refusal or setup failure, before fork
  kPolicyBlocked = 126,   // lockdown, unapproved or dangerous repository layer, signature
  kNotFound = 127,        // command not found
};

// Where the input behind an error was written: a layer file, line and column (1-based; 0 when
// the input has no lines, such as a command-line flag) and the key there ("filesystem.deny[2]").
struct ErrorOrigin {
  std::string file;
  int line = 0;
  int column = 0;
  std::string key;

  // "file:line:column", or the file alone when there is no line.
  std::string where() const {
    if (line <= 0) return file;
    return file + ":" + std::to_string(line) + ":" + std::to_string(column);
  }
  bool operator==(const ErrorOrigin&) const = default;
};

struct [[nodiscard]] Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;  // one line as users read it: what, where, what to do
  // Where the input was, as data (the GUI marks the place in its editor); the message already
  // says it in words.
  std::optional<ErrorOrigin> origin;

  Error() = default;
  Error(ErrorCode c, std::string m, std::optional<ErrorOrigin> o = std::nullopt)
      : code(c), message(one_line(std::move(m))), origin(std::move(o)) {}

  // A message is one line, whatever text it quotes: control characters (a newline a layer
  // quoted, a terminal escape sequence) are written as \xNN, \n or \r.
  static std::string one_line(std::string m) {
    bool clean = true;
    for (unsigned char c : m) clean = clean && (c >= 0x20 || c == '\t') && c != 0x7f;
    if (clean) return m;
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (unsigned char c : m) {
      if (c == '\n') out += "\\n";
      else if (c == '\r') out += "\\r";
      else if ((c < 0x20 && c != '\t') || c == 0x7f) out += std::string("\\x") + kHex[c >> 4] + kHex[c & 0xf];
      else out += static_cast<char>(c);
    }
    return out;
  }

  int exit_code() const { return static_cast<int>(code); }
};

// "file:line:col: key 'k': what" (the key part only when there is one), origin kept as data.
inline Error error_at(ErrorCode code, ErrorOrigin at, const std::string& what) {
  std::string message = at.where() + (at.key.empty() ? std::string() : ": key '" + at.key + "'") + ": " + what;
  return {code, std::move(message), std::move(at)};
}
// Keeps the origin of an error whose message was already written naming it (a label such as
// "file:line:col: key 'k'" handed down to the code that failed).
inline Error with_origin(Error e, ErrorOrigin at) {
  if (!e.origin) e.origin = std::move(at);
  return e;
}

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
