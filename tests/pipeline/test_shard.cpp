// Rendezvous placement of streams over processes (pipeline/stream_list/shard.hpp).
#include "pipeline/stream_list/shard.hpp"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace fp {
namespace {

std::vector<std::string> camera_names(int count) {
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) names.push_back("cam-" + std::to_string(1000 + i));
  return names;
}

// The owner is the ordinal with the highest score (ties: the lowest), worked out here from
// rendezvous_score alone; owns() says so on that ordinal and on no other; one process
// (replicas 1) owns everything.
TEST(Shard, TheOwnerIsTheOrdinalWithTheHighestScore) {
  for (std::uint32_t replicas = 1; replicas <= 5; ++replicas)
    for (const auto& name : camera_names(300)) {
      std::uint32_t best = 0;
      for (std::uint32_t ordinal = 1; ordinal < replicas; ++ordinal)
        if (rendezvous_score(name, ordinal) > rendezvous_score(name, best)) best = ordinal;
      EXPECT_EQ(rendezvous_owner(name, replicas), best) << name << " over " << replicas;
      for (std::uint32_t ordinal = 0; ordinal < replicas; ++ordinal)
        EXPECT_EQ(Shard({ordinal, replicas}).owns(name), ordinal == best) << name << " on " << ordinal << "/" << replicas;
    }
}

TEST(Shard, SpreadsEvenly) {
  std::map<std::uint32_t, int> per_owner;
  const auto names = camera_names(10000);
  for (const auto& name : names) ++per_owner[rendezvous_owner(name, 4)];
  ASSERT_EQ(per_owner.size(), 4u);
  for (const auto& [ordinal, count] : per_owner) EXPECT_NEAR(count, 2500, 150) << "ordinal " << ordinal;
}

TEST(Shard, OneMoreReplicaMovesOnlyWhatItTakes) {
  const auto names = camera_names(3000);
  int moved = 0;
  for (const auto& name : names) {
    const auto before = rendezvous_owner(name, 3);
    const auto after = rendezvous_owner(name, 4);
    if (before != after) {
      ++moved;
      EXPECT_EQ(after, 3u) << name << " moved between two old replicas";
    }
  }
  EXPECT_NEAR(moved, 750, 90);  // 1/4 of them, all to the new ordinal
}

TEST(Shard, ARemovedReplicaGivesAwayOnlyItsOwn) {
  for (const auto& name : camera_names(3000)) {
    const auto before = rendezvous_owner(name, 4);
    if (before != 3) {
      EXPECT_EQ(rendezvous_owner(name, 3), before) << name;
    }
  }
}

// Pinned: two versions that run side by side in a rolling update must place alike. These
// values were computed once by this implementation; a change here breaks running fleets.
TEST(Shard, TheHashNeverChanges) {
  EXPECT_EQ(rendezvous_score("cam-1", 0), 5650051425680681272ULL);
  EXPECT_EQ(rendezvous_score("door", 7), 750775584149856716ULL);
  EXPECT_EQ(rendezvous_owner("cam-001", 3), 2u);
  EXPECT_EQ(rendezvous_owner("parking-lot-east", 10), 7u);
}

TEST(Shard, ParsesOrdinalAndReplicas) {
  const Shard shard = parse_shard("2/5");
  EXPECT_EQ(shard.ordinal, 2u);
  EXPECT_EQ(shard.replicas, 5u);
  EXPECT_EQ(shard.to_string(), "2/5");
  for (const char* bad : {"", "3", "3/3", "-1/3", "1/0", "a/3", "1/b", "1/3/4", "1 /3", "99999999999/3"})
    EXPECT_THROW(parse_shard(bad), std::invalid_argument) << bad;
  try {
    parse_shard("4/3");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--shard 4/3"), std::string::npos) << e.what();
  }
}

TEST(Shard, OrdinalFromAStatefulSetHostname) {
  EXPECT_EQ(ordinal_from_hostname("framepipe-0"), 0u);
  EXPECT_EQ(ordinal_from_hostname("framepipe-gpu-12"), 12u);
  EXPECT_EQ(ordinal_from_hostname("framepipe"), std::nullopt);
  EXPECT_EQ(ordinal_from_hostname("framepipe-"), std::nullopt);
  EXPECT_EQ(ordinal_from_hostname("framepipe-x1"), std::nullopt);
  EXPECT_EQ(ordinal_from_hostname("-3"), std::nullopt);
}

}  // namespace
}  // namespace fp
