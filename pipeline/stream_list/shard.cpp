#include "pipeline/stream_list/shard.hpp"

#include <unistd.h>

#include <charconv>
#include <climits>
#include <cstdlib>
#include <stdexcept>

#include "core/fnv1a.hpp"

namespace fp {

namespace {

// FNV-1a over the name's bytes (core/fnv1a.hpp), then SplitMix64's finalizer over it and the
// ordinal: FNV alone mixes its last bytes poorly (names like cam-001, cam-002 differ only
// there), the finalizer spreads every input bit over the whole word.
std::uint64_t splitmix64_finalize(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

std::optional<std::uint32_t> parse_count(std::string_view text) {
  std::uint32_t value = 0;
  if (text.empty() || text.size() > 9) return std::nullopt;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::uint64_t rendezvous_score(std::string_view stream_name, std::uint32_t ordinal) {
  return splitmix64_finalize(fnv1a64(stream_name) ^ (0x9e3779b97f4a7c15ULL * (std::uint64_t{ordinal} + 1)));
}

std::uint32_t rendezvous_owner(std::string_view stream_name, std::uint32_t replicas) {
  std::uint32_t owner = 0;
  std::uint64_t best = 0;
  for (std::uint32_t ordinal = 0; ordinal < replicas; ++ordinal) {
    const std::uint64_t score = rendezvous_score(stream_name, ordinal);
    if (ordinal == 0 || score > best) {
      best = score;
      owner = ordinal;
    }
  }
  return owner;
}

bool Shard::owns(std::string_view stream_name) const {
  return replicas <= 1 || rendezvous_owner(stream_name, replicas) == ordinal;
}

std::string Shard::to_string() const { return std::to_string(ordinal) + "/" + std::to_string(replicas); }

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  const auto ordinal = slash == std::string::npos ? std::nullopt : parse_count(std::string_view(text).substr(0, slash));
  const auto replicas = slash == std::string::npos ? std::nullopt : parse_count(std::string_view(text).substr(slash + 1));
  if (!ordinal || !replicas || *replicas == 0 || *ordinal >= *replicas)
    throw std::invalid_argument("--shard " + text +
                                ": expected I/N with 0 <= I < N (this process's ordinal and the number of processes), "
                                "e.g. 0/3, or auto");
  return Shard{*ordinal, *replicas};
}

std::optional<std::uint32_t> ordinal_from_hostname(std::string_view hostname) {
  const auto dash = hostname.rfind('-');
  if (dash == std::string_view::npos || dash == 0) return std::nullopt;
  return parse_count(hostname.substr(dash + 1));
}

Shard shard_from_environment() {
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof host - 1) != 0) throw std::invalid_argument("--shard auto: cannot read this machine's hostname");
  const auto ordinal = ordinal_from_hostname(host);
  if (!ordinal)
    throw std::invalid_argument(std::string("--shard auto: the hostname '") + host +
                                "' does not end in -ORDINAL (a StatefulSet's pod is named NAME-0, NAME-1, ...); give --shard I/N");
  const char* replicas_text = std::getenv("FRAMEPIPE_REPLICAS");
  const auto replicas = replicas_text ? parse_count(replicas_text) : std::nullopt;
  if (!replicas || *replicas == 0)
    throw std::invalid_argument(std::string("--shard auto: FRAMEPIPE_REPLICAS must be the number of replicas (got ") +
                                (replicas_text ? std::string("'") + replicas_text + "'" : std::string("nothing")) + ")");
  if (*ordinal >= *replicas)
    throw std::invalid_argument("--shard auto: this pod's ordinal " + std::to_string(*ordinal) +
                                " (from its hostname) is not below FRAMEPIPE_REPLICAS=" + std::to_string(*replicas));
  return Shard{*ordinal, *replicas};
}

Shard shard_from_argument(const std::string& text) {
  return text == "auto" ? shard_from_environment() : parse_shard(text);
}

}  // namespace fp
