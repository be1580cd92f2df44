// The bearer token that guards a server reachable from other machines (--token-file).
// The token is a secret: it is compared in constant time and never printed.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace fp::service {

// The token in `file`, without the line end an editor adds. Throws std::runtime_error
// "--token-file FILE: REASON" when it cannot be read or holds no token (the message never
// contains the token).
std::string read_token_file(const std::filesystem::path& file);

// True when `authorization` (the request's Authorization header) is "Bearer TOKEN" with
// exactly `token`. The time taken does not depend on where the two first differ, so a client
// cannot find the token a byte at a time by timing its guesses.
bool bearer_token_matches(std::string_view authorization, std::string_view token);

}  // namespace fp::service
