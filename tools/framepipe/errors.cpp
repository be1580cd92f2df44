// Maps exceptions to one-line messages and exit codes, so no stack trace ever reaches a user.
#include <fmt/format.h>

#include <cstdio>
#include <exception>

#include "media/media_error.hpp"
#include "media/stream_uri.hpp"
#include "pipeline/definition/config_error.hpp"
#include "tools/framepipe/commands.hpp"

namespace fp::cli {

int report_current_exception() {
  try {
    throw;
  } catch (const ConfigError& e) {
    for (const auto& issue : e.issues()) fmt::print(stderr, "{}\n", issue.format());
    const auto n = e.issues().size();
    fmt::print(stderr, "framepipe: {} configuration error{}\n", n, n == 1 ? "" : "s");
    return kUsageError;
  } catch (const UsageError& e) {
    fmt::print(stderr, "framepipe: error: {}\n", mask_uris_in_text(e.what()));
    return kUsageError;
  } catch (const std::exception& e) {
    // Whatever threw it, a URI in it is printed masked (no password, no passphrase).
    fmt::print(stderr, "framepipe: error: {}\n", mask_uris_in_text(e.what()));
    return kRuntimeError;
  } catch (...) {
    fmt::print(stderr, "framepipe: error: unknown failure\n");
    return kRuntimeError;
  }
}

}  // namespace fp::cli
