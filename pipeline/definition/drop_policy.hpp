// What a source's queue does when the graph falls behind its input: `oldest` drops the
// oldest queued frame to make room (a live view stays current), `newest` drops the frame
// that just arrived (what is queued keeps going), `never` makes the source wait (nothing is
// lost; a live sender then sees backpressure, or its packets are lost upstream). `auto`
// means oldest for live inputs (cameras, network streams) and never for files and testsrc.
#pragma once

#include <optional>
#include <string_view>

namespace fp {

enum class DropPolicy { Auto, Oldest, Newest, Never };

std::optional<DropPolicy> parse_drop_policy(std::string_view text);
const char* drop_policy_name(DropPolicy policy);
// The policy a source uses: `Auto` made concrete for a live or a non-live input.
DropPolicy resolve_drop_policy(DropPolicy policy, bool live);

}  // namespace fp
