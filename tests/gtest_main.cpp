// The main of every test binary: GoogleTest's, and a `--gtest_filter` that selects no test
// fails instead of passing with nothing run. A suite renamed under a ctest entry that names
// it (Nlmeans.WithCpuFeatures_*: --gtest_filter=Nlmeans.*) would otherwise stop testing
// anything in silence; and a test named in a negative filter (-Parallel.UsesSeveralThreads)
// that no longer exists is no longer left out, so it must be renamed there too. GoogleTest
// 1.12 (Debian 12) has no flag of its own for either.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>
#include <string_view>

namespace {

// The names a filter names exactly (no '*' or '?'), positive and negative alike.
std::set<std::string> exact_names(std::string_view filter) {
  std::set<std::string> names;
  std::size_t start = 0;
  while (start <= filter.size()) {
    std::size_t end = filter.find_first_of(":-", start);
    if (end == std::string_view::npos) end = filter.size();
    const std::string_view name = filter.substr(start, end - start);
    if (!name.empty() && name.find_first_of("*?") == std::string_view::npos) names.emplace(name);
    start = end + 1;
  }
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const std::string filter = GTEST_FLAG_GET(filter);
  if (!GTEST_FLAG_GET(list_tests) && filter != "*") {
    const testing::UnitTest& unit = *testing::UnitTest::GetInstance();
    std::set<std::string> known;
    for (int s = 0; s < unit.total_test_suite_count(); ++s) {
      const testing::TestSuite& suite = *unit.GetTestSuite(s);
      for (int t = 0; t < suite.total_test_count(); ++t)
        known.insert(std::string(suite.name()) + "." + suite.GetTestInfo(t)->name());
    }
    for (const std::string& name : exact_names(filter))
      if (!known.contains(name)) {
        std::fprintf(stderr, "--gtest_filter=%s names %s, which is no test of this binary\n", filter.c_str(), name.c_str());
        return 1;
      }
  }
  const int result = RUN_ALL_TESTS();
  // Which tests the filter selects is known once they ran (GoogleTest filters inside the run).
  if (!GTEST_FLAG_GET(list_tests) && testing::UnitTest::GetInstance()->test_to_run_count() == 0) {
    std::fprintf(stderr, "--gtest_filter=%s selects no test of this binary\n", filter.c_str());
    return 1;
  }
  return result;
}
