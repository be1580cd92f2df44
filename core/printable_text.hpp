// Text a user or client wrote, made safe to quote in one line of a message or a log: each
// control character written as an escape (\n, \r, \t, \x00...), so that a newline cannot
// forge a line and a NUL cannot cut a message short.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fp {

void append_printable(std::string& out, std::string_view text);
std::string printable_text(std::string_view text);

// Why `text` cannot be a path, a name or a URI: it holds a control character (a byte below
// 0x20, or 0x7f), said as "holds a control character (\x00 at byte 6)"; nothing when it holds
// none. A NUL ends the text at the system call that opens it (s1.mkv\0.mkv opens s1.mkv),
// and a newline forges a line in a log: no path, name or URI needs one.
std::optional<std::string> control_character_problem(std::string_view text);

}  // namespace fp
