// framepipe's own log lines (spdlog) and FFmpeg's (-v) go to stderr with every URI in them
// masked (mask_uris_in_text): a message written anywhere, now or later, cannot print a
// password or a passphrase that the code that wrote it forgot to mask.
#pragma once

namespace fp::cli {

// The "framepipe" logger (pattern "framepipe: %v", level info with -v, else warn) as the
// default logger, and FFmpeg's log at warnings with -v, else silent.
void install_masked_logs(bool verbose);

}  // namespace fp::cli
