// Text shown to a person (a terminal line, a label in the app) that holds a path or a name someone
// else chose: a file the agent created, a host it asked for, a layer's text. Shown as it is, an
// ESC sequence in a file name would drive the user's terminal and a newline would forge a line
// of Paddock's output. Every front end passes such text through display_text() before it shows
// it (docs/architecture.md, "Bytes that are not UTF-8").
#pragma once

#include <string>
#include <string_view>

namespace paddock {

// `s` with every character that is not plain visible text written as an escape: C0 controls and
// DEL as \n, \r, \t or \xNN; C1 controls (U+0080-U+009F, which some terminals obey as ESC
// sequences) and the bidirectional overrides and isolates (U+202A-U+202E, U+2066-U+2069, which
// reorder what is shown) as \uNNNN; a byte that does not start well-formed UTF-8 as \xNN; and a
// backslash as \\, so that an escape is never ambiguous with a name that spells one. Valid
// printable UTF-8 is kept as it is.
std::string display_text(std::string_view s);

}  // namespace paddock
