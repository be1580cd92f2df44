// A file only its owner may read (the state file: input URIs with passwords), replaced whole
// so that a crash at any moment leaves the old content or the new one, never half of one.
#pragma once
#if !defined(FRAMEPIPE_ROOM_STREAM_SPEC)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/stream_spec/private_file.hpp is private to pipeline/stream_spec/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace fp {

// Writes `text` to a new temporary file in `file`'s folder (a name of its own each time,
// created with O_EXCL|O_NOFOLLOW and mode 0600, so that no link or file planted beside it is
// ever opened, truncated or chmod'ed), fsyncs it, renames it over `file` and fsyncs the
// folder. Every step goes through one descriptor of the folder, so the file is written where
// the folder was when it was opened. Throws std::runtime_error saying which step failed
// (without naming `file`: the caller does).
void replace_private_file(const std::filesystem::path& file, std::string_view text);

// The same with the temporary names' suffixes from `suffixes` (".NAME.tmp-SUFFIX", one a
// try, at most 100 tries) instead of random ones: a test plants links at the names it knows.
using TemporarySuffixes = std::function<std::string()>;
void replace_private_file(const std::filesystem::path& file, std::string_view text, const TemporarySuffixes& suffixes);

}  // namespace fp
