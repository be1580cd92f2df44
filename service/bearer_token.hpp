// The bearer token that guards a server reachable from other machines (--token-file).
// The token is a secret: it is compared in constant time and never printed.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace fp::service {

// The token in `file`, without the line end an editor adds. Throws std::runtime_error
// "--token-file FILE: REASON" when it cannot be read, holds no token or a control character
// (a NUL byte: a binary file or a broken write, never a token a client can send in a header);
// the message never contains the token.
std::string read_token_file(const std::filesystem::path& file);

// A warning for a token file that every user of this machine may read or write, naming the
// file, its mode and the fix (chmod 600), as ssh warns of a private key; "" when it is kept to
// its owner and group (a group is taken as meant: Kubernetes mounts a Secret 0440 for the
// pod's fsGroup), or cannot be looked at (read_token_file says why).
std::string token_file_access_warning(const std::filesystem::path& file);

// True when `authorization` (the request's Authorization header) is "Bearer TOKEN" with
// exactly `token`. The time taken does not depend on where the two first differ, so a client
// cannot find the token a byte at a time by timing its guesses.
bool bearer_token_matches(std::string_view authorization, std::string_view token);

}  // namespace fp::service
