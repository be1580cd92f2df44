// Opening beneath a root holds at the moment of the open: a symlink inside the root that
// leads out (there from the start, or swapped in after the name was checked) is refused,
// by openat2 and by the component-by-component fallback alike; and a confined output is
// never written through a symlink or a hard link.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <system_error>

#include "core/open_beneath.hpp"
#include "tests/e2e/cli_runner.hpp"

namespace fp {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

using OpenFn = std::function<UniqueFd(const fs::path&, const fs::path&, int, mode_t)>;

std::string contents(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string read_fd(const UniqueFd& fd) {
  char buffer[256];
  const ssize_t n = ::pread(fd.get(), buffer, sizeof buffer, 0);
  return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : "";
}

// The errno of a refused open, 0 when it opened.
int refusal(const OpenFn& open, const fs::path& root, const fs::path& relative, int flags) {
  try {
    open(root, relative, flags, 0644);
    return 0;
  } catch (const std::system_error& e) {
    return e.code().value();
  }
}

class OpenBeneath : public ::testing::TestWithParam<bool> {
 protected:
  OpenBeneath() : dir_("open-beneath") {
    fs::create_directories(root() / "sub");
    fs::create_directories(dir_ / "outside");
    std::ofstream(root() / "sub" / "in.txt") << "inside";
    std::ofstream(dir_ / "outside" / "secret.txt") << "secret";
  }
  fs::path root() const { return dir_ / "root"; }
  // openat2, or the fallback a kernel without it gets.
  OpenFn open() const {
    if (GetParam()) return [](const fs::path& r, const fs::path& p, int f, mode_t m) { return open_beneath(r, p, f, m); };
    return [](const fs::path& r, const fs::path& p, int f, mode_t m) { return open_beneath_by_components(r, p, f, m); };
  }
  TempDir dir_;
};

TEST_P(OpenBeneath, OpensWhatIsInside) {
  EXPECT_EQ(read_fd(open()(root(), "sub/in.txt", O_RDONLY, 0)), "inside");
  EXPECT_NE(refusal(open(), root(), "../outside/secret.txt", O_RDONLY), 0);
  EXPECT_NE(refusal(open(), root(), dir_ / "outside" / "secret.txt", O_RDONLY), 0);  // absolute
}

TEST_P(OpenBeneath, ASymlinkLeadingOutIsRefused) {
  fs::create_symlink(dir_ / "outside" / "secret.txt", root() / "link.txt");
  fs::create_symlink(dir_ / "outside", root() / "linkdir");
  fs::create_symlink("../outside/secret.txt", root() / "relative.txt");
  EXPECT_NE(refusal(open(), root(), "link.txt", O_RDONLY), 0);
  EXPECT_NE(refusal(open(), root(), "linkdir/secret.txt", O_RDONLY), 0);
  EXPECT_NE(refusal(open(), root(), "relative.txt", O_RDONLY), 0);
  EXPECT_NE(refusal(open(), root(), "link.txt", O_WRONLY | O_CREAT | O_TRUNC), 0);
  EXPECT_EQ(contents(dir_ / "outside" / "secret.txt"), "secret");
}

// The name was checked while it was a plain directory; then it became a symlink out.
TEST_P(OpenBeneath, ASymlinkSwappedInAfterTheCheckIsRefused) {
  EXPECT_EQ(refusal(open(), root(), "sub/in.txt", O_RDONLY), 0);  // the check
  fs::rename(root() / "sub", root() / "old");
  fs::create_symlink(dir_ / "outside", root() / "sub");
  EXPECT_NE(refusal(open(), root(), "sub/secret.txt", O_RDONLY), 0);
  EXPECT_NE(refusal(open(), root(), "sub/new.txt", O_WRONLY | O_CREAT), 0);
  EXPECT_FALSE(fs::exists(dir_ / "outside" / "new.txt"));
}

INSTANTIATE_TEST_SUITE_P(Openat2AndFallback, OpenBeneath, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) { return p.param ? "openat2" : "components"; });

TEST(OpenWithin, FindsTheRootAndRefusesEverythingElse) {
  TempDir dir("open-within");
  fs::create_directories(dir / "a");
  fs::create_directories(dir / "b");
  std::ofstream(dir / "b" / "in.txt") << "b";
  const std::vector<fs::path> roots = {fs::canonical(dir / "a"), fs::canonical(dir / "b")};
  EXPECT_EQ(read_fd(open_within(dir / "b" / "in.txt", roots, O_RDONLY)), "b");
  try {
    open_within(dir.path() / "in.txt", roots, O_RDONLY);
    ADD_FAILURE() << "opened outside every root";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EXDEV);
  }
}

TEST(CreateWithin, NeverWritesThroughASymlinkOrAHardLink) {
  TempDir dir("create-within");
  const fs::path root = fs::canonical(dir.path()) / "out";
  fs::create_directories(root);
  std::ofstream(dir / "precious.txt") << "precious";
  fs::create_symlink(dir / "precious.txt", root / "link.mkv");
  fs::create_hard_link(dir / "precious.txt", root / "hard.mkv");
  EXPECT_THROW(create_within(root / "link.mkv", root), std::system_error);
  EXPECT_THROW(create_within(root / "hard.mkv", root), std::system_error);
  EXPECT_EQ(contents(dir / "precious.txt"), "precious");
  // A plain file is created, or emptied when it is there.
  std::ofstream(root / "old.mkv") << "old";
  const UniqueFd fd = create_within(root / "old.mkv", root);
  EXPECT_EQ(::write(fd.get(), "new", 3), 3);
  EXPECT_EQ(contents(root / "old.mkv"), "new");
  // Removed by name only while the name is still that file.
  fs::rename(root / "old.mkv", root / "moved.mkv");
  fs::create_symlink(dir / "precious.txt", root / "old.mkv");
  remove_within(root / "old.mkv", root, fd);
  EXPECT_TRUE(fs::is_symlink(root / "old.mkv"));
  EXPECT_EQ(contents(dir / "precious.txt"), "precious");
}

}  // namespace
}  // namespace fp
