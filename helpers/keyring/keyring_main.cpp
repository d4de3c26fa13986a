// paddock-keyring: the desktop's secret service (org.freedesktop.secrets, through libsecret) for
// brokered credentials (docs/credentials.md). A program of its own because `paddock` is static
// and libsecret (GLib, D-Bus) is not; platform/credential_store.h runs it.
//
//   paddock-keyring available      exit 0 when a secret service answers
//   paddock-keyring store NAME     the value on stdin (never an argument, never the environment)
//   paddock-keyring lookup NAME    the value on stdout, exactly
//   paddock-keyring clear NAME
//
// Exit codes: 0 done, 3 no secret service answers (platform::kKeyringUnavailable), 4 no such
// item (kKeyringNotFound), 2 usage, 1 any other failure (one line on stderr).
#include <libsecret/secret.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "engine/credentials.h"
#include "engine/main_guard.h"
#include "engine/session/credential_records.h"
#include "platform/credential_store.h"

namespace {

const SecretSchema* schema() {
  static const SecretSchema s = {"io.github.paddock.Credential",
                                 SECRET_SCHEMA_NONE,
                                 {{"name", SECRET_SCHEMA_ATTRIBUTE_STRING}, {nullptr, SECRET_SCHEMA_ATTRIBUTE_STRING}},
                                 0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
  return &s;
}

// GLib's D-Bus client, without an address, would start a bus of its own (dbus-launch) when a
// display is set: the session's bus or nothing.
bool session_bus_known() {
  if (const char* a = std::getenv("DBUS_SESSION_BUS_ADDRESS"); a && *a) return true;
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  if (!runtime || runtime[0] != '/') return false;
  const std::string bus = std::string(runtime) + "/bus";
  if (::access(bus.c_str(), F_OK) != 0) return false;
  ::setenv("DBUS_SESSION_BUS_ADDRESS", ("unix:path=" + bus).c_str(), 1);
  return true;
}

// D-Bus and I/O errors mean nobody answers; anything else is a failure of the service itself.
int failure(GError* e, const char* what) {
  const bool unavailable = e->domain == G_DBUS_ERROR || e->domain == G_IO_ERROR;
  if (!unavailable) std::fprintf(stderr, "paddock-keyring: %s: %s\n", what, e->message);
  g_error_free(e);
  return unavailable ? paddock::platform::kKeyringUnavailable : 1;
}

int available() {
  GError* e = nullptr;
  SecretService* s = secret_service_get_sync(SECRET_SERVICE_NONE, nullptr, &e);
  if (!s) return failure(e, "connect");
  // A bus without the service answers the connection, not the first call: ask it something.
  GList* collections = nullptr;
  const bool ok = secret_service_load_collections_sync(s, nullptr, &e);
  if (ok) collections = secret_service_get_collections(s);
  g_list_free_full(collections, g_object_unref);
  g_object_unref(s);
  if (!ok) return failure(e, "load collections");
  return 0;
}

int store(const std::string& name) {
  std::string value;
  char buf[4096];
  for (ssize_t n; (n = ::read(STDIN_FILENO, buf, sizeof buf)) != 0;) {
    if (n < 0) return 1;
    value.append(buf, static_cast<std::size_t>(n));
    if (value.size() > 16384) break;
  }
  if (!paddock::session::valid_credential_value(value)) {
    std::fputs("paddock-keyring: the value on stdin is not a key a header can carry\n", stderr);
    return 1;
  }
  GError* e = nullptr;
  const std::string label = "Paddock credential " + name;
  const gboolean ok = secret_password_store_sync(schema(), SECRET_COLLECTION_DEFAULT, label.c_str(), value.c_str(),
                                                 nullptr, &e, "name", name.c_str(), nullptr);
  std::fill(value.begin(), value.end(), '\0');
  if (!ok) return failure(e, "store");
  return 0;
}

int lookup(const std::string& name) {
  GError* e = nullptr;
  gchar* pw = secret_password_lookup_sync(schema(), nullptr, &e, "name", name.c_str(), nullptr);
  if (e) return failure(e, "lookup");
  if (!pw) return paddock::platform::kKeyringNotFound;
  const std::size_t n = std::strlen(pw);
  const bool written = std::fwrite(pw, 1, n, stdout) == n && std::fflush(stdout) == 0;
  secret_password_free(pw);
  return written ? 0 : 1;
}

int clear(const std::string& name) {
  GError* e = nullptr;
  const gboolean removed = secret_password_clear_sync(schema(), nullptr, &e, "name", name.c_str(), nullptr);
  if (e) return failure(e, "clear");
  return removed ? 0 : paddock::platform::kKeyringNotFound;
}

int program_main(int argc, char** argv) {
  const std::string usage = "usage: paddock-keyring available | store NAME | lookup NAME | clear NAME\n";
  if (argc < 2) {
    std::fputs(usage.c_str(), stderr);
    return 2;
  }
  const std::string cmd = argv[1];
  if (cmd == "available" && argc == 2) return session_bus_known() ? available() : paddock::platform::kKeyringUnavailable;
  if (argc != 3 || !paddock::valid_credential_name(argv[2])) {
    std::fputs(usage.c_str(), stderr);
    return 2;
  }
  if (!session_bus_known()) return paddock::platform::kKeyringUnavailable;
  if (cmd == "store") return store(argv[2]);
  if (cmd == "lookup") return lookup(argv[2]);
  if (cmd == "clear") return clear(argv[2]);
  std::fputs(usage.c_str(), stderr);
  return 2;
}

}  // namespace

// No exception leaves main: one line and a fail-closed exit code instead (engine/main_guard.h).
int main(int argc, char** argv) {
  return paddock::guarded_main("paddock-keyring", [&] { return program_main(argc, argv); });
}
