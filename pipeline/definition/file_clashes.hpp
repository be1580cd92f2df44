// An output must never destroy an input, nor two outputs write one file: `-i x.y4m -o x.y4m`,
// or `inputs: {glob: 'cams/*.mp4'}` with `output: 'cams/{stream}.mp4'`, would otherwise
// truncate the sources before they are read (ffmpeg refuses "Output same as Input" too).
// Pure checks on paths, done before anything is opened, so that `validate`, `run` and a
// service that accepts pipelines all refuse the same requests.
#pragma once

#include <string>
#include <vector>

#include "pipeline/definition/config_error.hpp"

namespace fp {

// One file that a pipeline reads or writes, and where it was asked for.
struct FileUse {
  bool written = false;  // an output (else an input)
  std::string path;      // as configured, {stream} replaced; URIs that name no file are ignored
  std::string what;      // for messages: "output of stage 'cam1/out'", "input of stream cam1", "--stats-json"
  ConfigIssue where;     // file, line, column and key of the setting (its message unused)
};

// The local file a use names, or "" for what is no file here: null, network outputs and
// inputs (udp://, srt://, rtsp://...), testsrc:// and v4l2:// inputs. file:PATH and
// file://PATH name PATH, for inputs and outputs alike.
std::string file_path_of(const FileUse& use);

// An issue, at the output's setting, for every output that is an input (or, for an HLS
// playlist, whose segments NAME0.ts, NAME1.ts... beside it would be) and for every output
// that an earlier output also writes. Each message names both uses and both paths. Two paths
// name one file when they are the same lexically normalized absolute path with symlinks
// resolved where the file or its folders exist (std::filesystem::weakly_canonical), or, for
// existing files, the same device and inode (a hard link); character devices never clash.
void check_file_clashes(const std::vector<FileUse>& uses, std::vector<ConfigIssue>& issues);

// check_file_clashes' messages for `uses`, one a line; empty when nothing clashes.
std::string clash_message(const std::vector<FileUse>& uses);

}  // namespace fp
