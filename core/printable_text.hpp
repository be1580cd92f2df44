// Text a user or client wrote, made safe to quote in one line of a message or a log: each
// control character written as an escape (\n, \r, \t, \x00...), so that a newline cannot
// forge a line and a NUL cannot cut a message short.
#pragma once

#include <string>
#include <string_view>

namespace fp {

void append_printable(std::string& out, std::string_view text);
std::string printable_text(std::string_view text);

}  // namespace fp
