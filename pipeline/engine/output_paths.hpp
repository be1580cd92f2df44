// Can an output file be created? Checked for every output before a run opens anything, so
// a missing or read-only directory fails the run at once with no file half made, instead
// of after the inputs were opened and the earlier outputs created.
#pragma once

#include <string>

namespace fp {

// The reason `path` cannot be created or written (strerror text: "No such file or
// directory", "Not a directory", "Read-only file system", "Permission denied", "Is a
// directory"), or "" when it looks writable. An existing file (/dev/full included) needs
// only to be writable itself; a new one needs a writable directory. A full disk shows only
// when written: that is the writers' to report.
std::string cannot_create_reason(const std::string& path);

}  // namespace fp
