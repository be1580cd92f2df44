// Reads the code fences of a Markdown file, and the shell commands in its ```sh fences, for
// the tests that run what the documentation shows. A fence that is not closed where it should
// be swallows the prose and headings after it and hides the commands in them, so the reader
// also reports the signs of one: an opening fence without a language, a fence opened inside
// another, a fence never closed.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace fp::test {

struct DocLine {
  int number = 0;  // 1-based line number in the file
  std::string text;
};

struct Fence {
  std::string where;     // FILE:LINE of the opening ```
  std::string language;  // the info string's first word: sh, yaml, text...
  std::vector<DocLine> lines;
};

struct DocFences {
  std::vector<Fence> fences;
  std::vector<std::string> problems;  // "FILE:LINE: what is wrong"
};

// `name` is how messages name the file (e.g. "README.md").
DocFences read_fences(const std::filesystem::path& file, const std::string& name);

struct DocCommand {
  std::string where;    // FILE:LINE of its first line
  std::string text;     // `\` continuations joined, the trailing `# comment` removed
};

// The commands of a ```sh fence: every line that is not blank or a `#` comment, with the
// lines it continues with `\`.
std::vector<DocCommand> shell_commands(const Fence& fence);

}  // namespace fp::test
