// ConfigIssue formatting and the "did you mean" helper.
#include <gtest/gtest.h>

#include "pipeline/config/suggest.hpp"
#include "pipeline/definition/config_error.hpp"

namespace fp {
namespace {

TEST(ConfigIssue, FormatsEveryPart) {
  EXPECT_EQ((ConfigIssue{"p.yaml", 7, 12, "stages[2].h", "must be > 0 (got -2)"}.format()),
            "p.yaml:7:12: stages[2].h: must be > 0 (got -2)");
}

TEST(ConfigIssue, LeavesOutUnknownParts) {
  EXPECT_EQ((ConfigIssue{"p.yaml", 7, 0, "device", "bad"}.format()), "p.yaml:7: device: bad");
  EXPECT_EQ((ConfigIssue{"p.yaml", 0, 0, "", "cannot read: x"}.format()), "p.yaml: cannot read: x");
  EXPECT_EQ((ConfigIssue{"command line", 0, 0, "--set a.b", "oops"}.format()), "command line: --set a.b: oops");
  EXPECT_EQ((ConfigIssue{"", 0, 0, "", "just a message"}.format()), "just a message");
  EXPECT_EQ((ConfigIssue{"", 0, 0, "key", "message"}.format()), "key: message");
}

TEST(ConfigIssue, EscapesControlCharactersSoThatItIsOneLine) {
  EXPECT_EQ((ConfigIssue{"p.yaml", 3, 4, "stages[0].crf", "must be an integer (got 'x\ny')"}.format()),
            "p.yaml:3:4: stages[0].crf: must be an integer (got 'x\\ny')");
  EXPECT_EQ((ConfigIssue{"p.yaml", 0, 0, "a\tb", std::string("bad \0\x7f\r", 7)}.format()),
            "p.yaml: a\\tb: bad \\x00\\x7f\\r");
  EXPECT_EQ((ConfigIssue{"", 0, 0, "", "caf\xc3\xa9"}.format()), "caf\xc3\xa9");  // UTF-8 stays as written
}

TEST(ConfigError, WhatListsEveryIssue) {
  const ConfigError error({{"a.yaml", 1, 2, "k", "first"}, {"a.yaml", 3, 4, "", "second"}});
  EXPECT_STREQ(error.what(), "a.yaml:1:2: k: first\na.yaml:3:4: second");
  EXPECT_EQ(error.issues().size(), 2u);
}

TEST(Suggest, EditDistance) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("radius", "radius"), 0u);
  EXPECT_EQ(edit_distance("radus", "radius"), 1u);
  EXPECT_EQ(edit_distance("stagse", "stages"), 1u);  // a swap is one edit
  EXPECT_EQ(edit_distance("nlmean", "nlmeans"), 1u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
}

TEST(Suggest, ClosestMatch) {
  const std::vector<std::string> keys = {"device", "input", "stages"};
  EXPECT_EQ(closest_match("stagse", keys), "stages");
  EXPECT_EQ(closest_match("inptu", keys), "input");
  EXPECT_EQ(closest_match("colour", keys), "");
  EXPECT_EQ(closest_match("x", {"h"}), "");  // one letter for another is no typo
  EXPECT_EQ(closest_match("hh", {"h", "patch"}), "h");
  EXPECT_EQ(closest_match("anything", {}), "");
}

TEST(Suggest, Suffix) {
  EXPECT_EQ(suggestion_suffix("radus", {"radius"}), "; did you mean 'radius'?");
  EXPECT_EQ(suggestion_suffix("zzz", {"a1", "b2"}), " (expected: a1, b2)");
  EXPECT_EQ(suggestion_suffix("zzz", {}), "");
}

}  // namespace
}  // namespace fp
