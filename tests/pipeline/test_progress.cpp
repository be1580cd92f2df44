#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "pipeline/engine/progress.hpp"

namespace fp {
namespace {

std::string contents(std::FILE* file) {
  std::fflush(file);
  std::rewind(file);
  std::string text;
  for (int c; (c = std::fgetc(file)) != EOF;) text.push_back(static_cast<char>(c));
  return text;
}

TEST(ProgressLine, ShowsFramesFpsElapsedAndEtaWhenTheLengthIsKnown) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  {
    ProgressLine progress(true, 300, out);
    progress.update(30);
  }
  const std::string text = contents(out);
  EXPECT_NE(text.find("frame 30/300"), std::string::npos) << text;
  EXPECT_NE(text.find("fps"), std::string::npos) << text;
  EXPECT_NE(text.find("elapsed"), std::string::npos) << text;
  EXPECT_NE(text.find("ETA"), std::string::npos) << text;
  EXPECT_EQ(text.back(), '\r') << "the line is cleared at the end";
  std::fclose(out);
}

TEST(ProgressLine, NoEtaForAnEndlessSource) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  {
    ProgressLine progress(true, -1, out);
    progress.update(12);
  }
  const std::string text = contents(out);
  EXPECT_NE(text.find("frame 12"), std::string::npos) << text;
  EXPECT_EQ(text.find("ETA"), std::string::npos) << text;
  std::fclose(out);
}

TEST(ProgressLine, DisabledPrintsNothing) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  {
    ProgressLine progress(false, 10, out);
    progress.update(5);
  }
  EXPECT_TRUE(contents(out).empty());
  std::fclose(out);
}

}  // namespace
}  // namespace fp
