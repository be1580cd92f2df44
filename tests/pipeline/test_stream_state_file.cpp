// The state file of `framepipe serve` against a hostile neighbour: whoever can plant a link
// beside it (its folder is shared, or was once) must not get the streams, with their
// passwords, written into a file of their choosing, nor any file outside truncated. And one
// edited by hand: a value of the wrong type is named by file and key.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "pipeline/stream_spec/private_file.hpp"
#include "pipeline/stream_spec/state_file.hpp"
#include "tests/e2e/cli_runner.hpp"

namespace fp {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

std::string text_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

SavedState one_stream() {
  return {.streams = {{StreamSpec{.name = "cam1", .pipeline = "p", .uri = "rtsp://u:secret@h/1", .sets = {}, .decode = {}}, false}}};
}

// Links planted at the temporary names the writer tries (".streams.json.tmp-SUFFIX"; the
// suffixes are random, here given) pointing at someone else's file: that file is not
// truncated, chmod'ed nor filled; the writer takes the next name (EEXIST) and the state file
// is a regular file of its own afterwards. Seen failing with O_EXCL|O_NOFOLLOW taken off the
// open (the victim was overwritten and made 0600), and with the retry on EEXIST removed (the
// write failed).
TEST(StreamStateFile, LinksAtTheTemporaryNamesAreNotFollowedAndTheNextNameIsTaken) {
  TempDir dir("state-file-tmp-link");
  fs::create_directories(dir / "state");
  fs::create_directories(dir / "elsewhere");
  const fs::path victim = dir / "elsewhere" / "victim.txt";
  std::ofstream(victim) << "not yours\n";
  fs::permissions(victim, fs::perms(0644));
  const fs::path file = dir / "state" / "streams.json";
  fs::create_symlink(victim, dir / "state" / ".streams.json.tmp-a");
  fs::create_symlink(dir / "elsewhere" / "absent.txt", dir / "state" / ".streams.json.tmp-b");  // dangling

  std::vector<std::string> tried;
  const std::string text = R"({"version": 1, "streams": []})";
  replace_private_file(file, text, [&] {
    tried.push_back(std::string(1, static_cast<char>('a' + tried.size())));
    return tried.back();
  });

  EXPECT_EQ(tried, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(text_of(victim), "not yours\n");
  EXPECT_FALSE(fs::exists(dir / "elsewhere" / "absent.txt")) << "a file was made through the dangling link";
  struct stat st {};
  ASSERT_EQ(::stat(victim.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u) << "the file behind the link was chmod'ed";
  ASSERT_EQ(::lstat(file.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode)) << "the state path names something other than a regular file";
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(text_of(file), text);
  // The planted links are left as they were (not ours to remove), and nothing else is left.
  EXPECT_TRUE(fs::is_symlink(dir / "state" / ".streams.json.tmp-a"));
  EXPECT_TRUE(fs::is_symlink(dir / "state" / ".streams.json.tmp-b"));
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir / "state")) ++entries;
  EXPECT_EQ(entries, 3u) << "a temporary file was left beside the state file";
}

// Every name tried taken: the write fails saying so after a bounded number of tries (never
// a loop without end), and the old state file is left as it was.
TEST(StreamStateFile, EveryTemporaryNameTakenFailsAfterBoundedTries) {
  TempDir dir("state-file-names-taken");
  const fs::path file = dir / "streams.json";
  write_stream_state(file, one_stream());
  const std::string before = text_of(file);
  std::ofstream(dir / ".streams.json.tmp-x") << "planted";
  int tries = 0;
  try {
    replace_private_file(file, "{}", [&] {
      ++tries;
      return std::string("x");
    });
    ADD_FAILURE() << "written through a taken name";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("every name tried was taken"), std::string::npos) << e.what();
  }
  EXPECT_EQ(tries, 100);
  EXPECT_EQ(text_of(file), before);
  EXPECT_EQ(text_of(dir / ".streams.json.tmp-x"), "planted");
}

// Written twice in a row: each write makes a temporary of its own and leaves none.
TEST(StreamStateFile, EveryWriteLeavesOnlyTheStateFile) {
  TempDir dir("state-file-rewrite");
  const fs::path file = dir / "streams.json";
  write_stream_state(file, one_stream());
  write_stream_state(file, {});
  EXPECT_TRUE(read_stream_state(file).streams.empty());
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir.path())) names.push_back(entry.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"streams.json"});
}

// A state path that is itself a link is refused, naming the file: the state is replaced by
// rename, which replaces the link and not its target, so the next start would read the old
// target's streams back (or another user's file, read as if it were the state).
TEST(StreamStateFile, AStatePathThatIsALinkIsRefused) {
  TempDir dir("state-file-link");
  const fs::path real = dir / "real.json";
  write_stream_state(real, one_stream());
  const fs::path file = dir / "streams.json";
  fs::create_symlink(real, file);
  try {
    read_stream_state(file);
    FAIL() << "a state file that is a symbolic link was read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("symbolic link"), std::string::npos) << e.what();
  }
}

// A file edited by hand (or by a script) with a value of the wrong JSON type: the error says
// which file and which key, as every other refusal of the file does, never the JSON
// library's words alone ("[json.exception.type_error.302] type must be boolean...").
TEST(StreamStateFile, AValueOfTheWrongTypeNamesTheFileAndTheKey) {
  TempDir dir("state-file-types");
  const fs::path file = dir / "state.json";
  const auto error_of = [&](const std::string& text) -> std::string {
    std::ofstream(file) << text;
    try {
      read_stream_state(file);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "(no error)";
  };
  const std::string good = R"({"name": "a", "pipeline": "p", "uri": "testsrc://"})";
  const auto with_third = [&](const std::string& third) {
    return R"({"version": 1, "streams": [)" + good + ", " + good + ", " + third + "]}";
  };
  const std::string prefix = "state file " + file.string() + ": ";
  EXPECT_EQ(error_of(with_third(R"({"name": "c", "pipeline": "p", "uri": "x", "finished": "yes"})")),
            prefix + "streams[2].finished: must be true or false");
  EXPECT_EQ(error_of(with_third(R"({"name": "c", "pipeline": "p", "uri": "x", "set": [1]})")),
            prefix + "streams[2].set: expected a map of STAGE.PARAM -> value, got a list");
  EXPECT_EQ(error_of(with_third(R"({"name": "c", "pipeline": "p", "uri": "x", "decode": "forever"})")),
            prefix + "streams[2].decode: expected a map of PARAM -> value, got a string");
  EXPECT_EQ(error_of(with_third(R"({"name": "c", "pipeline": "p", "uri": "x", "source": 1})")),
            prefix + "streams[2].source: must be \"api\" or \"list\"");
  EXPECT_EQ(error_of(with_third(R"({"name": 7, "pipeline": "p", "uri": "x"})")),
            prefix + "streams[2].name: expected a string, got a number");
  EXPECT_EQ(error_of(R"({"version": "1", "streams": []})"), prefix + "version: must be a number");
  EXPECT_EQ(error_of(R"({"version": null, "streams": []})"), prefix + "version: must be a number");
}

// What serve learned a template costs is kept beside the streams, for the template text it
// was learned on, and read back; a file written before it (no key) has none learned. A value
// edited by hand into something no stream costs is refused naming its key, as every other
// key of the file is.
TEST(StreamStateFile, LearnedCostsRoundTripAndOnesOutOfRangeAreRefused) {
  TempDir dir("state-file-learned");
  const fs::path file = dir / "state.json";
  SavedState state = one_stream();
  state.learned_costs["p"] = LearnedCost{.cores_per_mpps = 0.052, .template_digest = "9f3c0a1e77d2b845"};
  write_stream_state(file, state);
  const auto learned = read_stream_state(file).learned_costs;
  ASSERT_EQ(learned.size(), 1u);
  EXPECT_DOUBLE_EQ(learned.at("p").cores_per_mpps, 0.052);
  EXPECT_EQ(learned.at("p").template_digest, "9f3c0a1e77d2b845");

  std::ofstream(file) << R"({"version": 1, "streams": []})";
  EXPECT_TRUE(read_stream_state(file).learned_costs.empty());
  const std::string prefix = "state file " + file.string() + ": ";
  for (const char* cost : {"-1", "\"0.1\"", "2000", "null"}) {
    std::ofstream(file) << R"({"version": 1, "streams": [], "learned_costs": {"cams": {"cores_per_mpps": )" << cost
                        << R"(, "template": "ab"}}})";
    try {
      read_stream_state(file);
      ADD_FAILURE() << "a learned cost of " << cost << " was read";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), prefix + "learned_costs.cams.cores_per_mpps: must be a number from 0 to 1000");
    }
  }
  std::ofstream(file) << R"({"version": 1, "streams": [], "learned_costs": {"cams": {"cores_per_mpps": 1, "template": 5}}})";
  try {
    read_stream_state(file);
    ADD_FAILURE() << "a template digest that is a number was read";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), prefix + "learned_costs.cams.template: must be a string of at most 64 characters");
  }
}

}  // namespace
}  // namespace fp
