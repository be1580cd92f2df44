// Where the files of one stream of `framepipe serve` may be, handed from the service's plan
// to the code that opens them: a path checked when the stream was accepted is opened beneath
// its root's directory, so that what changed on disk in between (a symlink swapped in) cannot
// lead the open outside. `framepipe run` has none: its user opens what they name.
#pragma once

#include <filesystem>
#include <vector>

namespace fp {

struct PathConfinement {
  // Files and cameras read: beneath one of these (serve --allow-root), canonical.
  std::vector<std::filesystem::path> input_roots;
  // Files written: beneath this (serve --output-root), canonical.
  std::filesystem::path output_root;
};

}  // namespace fp
