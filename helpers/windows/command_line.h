// Text helpers for the Windows helper that need no Windows headers, so they are unit-tested on
// Linux too: UTF-8 <-> UTF-16 and CreateProcess command-line quoting.
#pragma once

#include <string>
#include <vector>

namespace paddock::winhelper {

// Strict UTF-8 -> UTF-16 (invalid input: false).
bool utf8_to_utf16(const std::string& in, std::u16string& out);
std::string utf16_to_utf8(const std::u16string& in);

// Quotes one argument so that CommandLineToArgvW / the MSVC runtime parse it back unchanged:
// quotes when it is empty or has space, tab or '"'; doubles the backslashes that precede a quote.
std::u16string quote_argument(const std::u16string& arg);
std::u16string join_command_line(const std::vector<std::u16string>& args);

}  // namespace paddock::winhelper
