// Which of N processes runs a stream, with no coordinator: rendezvous (highest random
// weight) hashing. Every process scores each (stream name, ordinal) pair and the highest
// score wins, so all processes agree from the name and N alone, and going from N to N+1
// moves only the streams the new ordinal wins (about 1/(N+1) of them); the others stay.
// Used by `framepipe serve --shard` (a StatefulSet's pods) and `framepipe run --shard` (an
// Indexed Job's indexes).
//
// The hash is part of the contract: two versions of framepipe that run side by side during
// a rolling update must place every stream alike, so it never changes (tests pin it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fp {

// This process's place among `replicas` (ordinal in [0, replicas)).
struct Shard {
  std::uint32_t ordinal = 0;
  std::uint32_t replicas = 1;
  bool owns(std::string_view stream_name) const;
  std::string to_string() const;  // "2/4"
};

// The score of `stream_name` on `ordinal`: a 64-bit hash of both.
std::uint64_t rendezvous_score(std::string_view stream_name, std::uint32_t ordinal);
// The ordinal in [0, replicas) with the highest score (ties: the lowest ordinal).
std::uint32_t rendezvous_owner(std::string_view stream_name, std::uint32_t replicas);

// "I/N" (0 <= I < N); throws std::invalid_argument with a message naming the text.
Shard parse_shard(const std::string& text);
// The ordinal a StatefulSet gives a pod, from its hostname "NAME-ORDINAL"; nullopt when the
// name does not end in "-digits".
std::optional<std::uint32_t> ordinal_from_hostname(std::string_view hostname);
// `--shard auto`: the ordinal from this machine's hostname, the replica count from the
// environment variable FRAMEPIPE_REPLICAS (kept equal to the StatefulSet's replicas by the
// kustomization). Throws std::invalid_argument saying which of the two is missing or wrong.
Shard shard_from_environment();
// The argument of --shard (serve and run): "auto" (shard_from_environment) or "I/N"
// (parse_shard). Throws std::invalid_argument as those do.
Shard shard_from_argument(const std::string& text);

}  // namespace fp
