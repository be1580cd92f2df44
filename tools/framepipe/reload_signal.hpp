// SIGHUP in `framepipe serve`: the service's reload, as daemons take it (`systemctl reload`,
// `kill -HUP`), never an end. The handler only sets a flag; serve's main loop reads it and
// has the stream list read again now (or logs that there is none to read).
#pragma once

#include <atomic>

namespace fp::cli {

// Installs the SIGHUP handler (in place of interrupt.hpp's stop) and returns the flag it
// sets; the reader clears it (exchange(false)) when it reloads.
std::atomic<bool>& install_reload_handler();

}  // namespace fp::cli
