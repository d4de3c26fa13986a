// libFuzzer target over the readers of session records (engine/session): report.json, the lines
// of events.jsonl, the summary `paddock sessions` and the app build from them, and the messages
// the helper reads from the sandbox. Whatever the bytes, a reader returns a value or an error:
// it never crashes, throws or reads out of bounds (ASan, UBSan), and whatever it accepts
// re-encodes to something it accepts again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "engine/session/event.h"
#include "engine/session/init_message.h"
#include "engine/session/report.h"
#include "engine/session/summary.h"

using namespace paddock::session;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);

  if (auto r = decode_report(bytes); r.ok()) {
    if (!decode_report(encode_report(*r)).ok()) std::abort();
  }
  if (auto e = decode_event(bytes); e.ok()) {
    if (!decode_event(encode_event(*e)).ok()) std::abort();
    (void)payload_of<SessionStarted>(*e);
    (void)report_from_event(*e);
  }
  if (auto m = decode_init_message(bytes); m.ok()) {
    if (!decode_init_message(encode_init_message(*m)).ok()) std::abort();
  }
  (void)decode_init_message(bytes, bytes);  // the readiness fast path on the same bytes

  // A session directory made of these bytes: the report is what precedes the first NUL, the
  // head of events.jsonl what follows it.
  SessionFiles files;
  const auto nul = bytes.find('\0');
  files.report = std::string(bytes.substr(0, nul));
  if (nul != std::string_view::npos) files.events_head = std::string(bytes.substr(nul + 1));
  files.live = size % 2 == 1;
  const SessionSummary s = summarize("fuzz", files);
  (void)summary_json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return 0;
}
