#include "tests/e2e/doc_fences.hpp"

#include <fstream>

namespace fp::test {

namespace {

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

// A fence line: up to three spaces, then ``` (CommonMark); returns its info string.
bool is_fence(const std::string& line, std::string& info) {
  const auto start = line.find_first_not_of(' ');
  if (start == std::string::npos || start > 3 || line.compare(start, 3, "```") != 0) return false;
  info = trim(line.substr(start + 3));
  return true;
}

// `text` up to a `#` that starts a shell comment: outside quotes, at the start or after a blank.
std::string without_comment(const std::string& text) {
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t')) {
      return trim(text.substr(0, i));
    }
  }
  return trim(text);
}

}  // namespace

DocFences read_fences(const std::filesystem::path& file, const std::string& name) {
  DocFences result;
  std::ifstream in(file);
  if (!in) {
    result.problems.push_back(name + ": cannot be read");
    return result;
  }
  Fence* open = nullptr;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const std::string where = name + ":" + std::to_string(number);
    std::string info;
    if (!is_fence(line, info)) {
      if (open != nullptr) open->lines.push_back({number, line});
      continue;
    }
    if (open == nullptr) {
      // In these docs every fence names its language, so a bare ``` that opens one is
      // almost always the closing fence of the block above, left out.
      if (info.empty())
        result.problems.push_back(where +
                                  ": a fence without a language (```sh, ```yaml, ```text): is the ``` that closes "
                                  "the block above it missing?");
      result.fences.push_back({where, info.substr(0, info.find(' ')), {}});
      open = &result.fences.back();
    } else if (info.empty()) {
      open = nullptr;
    } else {
      // A closing fence takes no info string: this ```LANG is text of the open block.
      result.problems.push_back(where + ": ```" + info + " inside the block opened at " + open->where +
                                ": a closing ``` is missing before it");
      open->lines.push_back({number, line});
    }
  }
  if (open != nullptr) result.problems.push_back(open->where + ": this block is never closed");
  return result;
}

std::vector<DocCommand> shell_commands(const Fence& fence) {
  std::vector<DocCommand> commands;
  bool continues = false;
  for (const auto& line : fence.lines) {
    std::string text = trim(line.text);
    if (!continues && (text.empty() || text[0] == '#')) continue;
    // A continued line's `\` comes after any comment on it, so the comment is cut first.
    text = without_comment(text);
    const bool next_continues = !text.empty() && text.back() == '\\';
    if (next_continues) text = trim(text.substr(0, text.size() - 1));
    if (continues) {
      commands.back().text += " " + text;
    } else {
      const auto name_end = fence.where.rfind(':');
      commands.push_back({fence.where.substr(0, name_end) + ":" + std::to_string(line.number), text});
    }
    continues = next_continues;
  }
  return commands;
}

}  // namespace fp::test
