// The largest and fastest input a service takes (`framepipe serve --max-input-size WxH
// --max-input-fps N`): a stream's memory grows with its frame's area and its CPU with its
// frames a second, and one API call must not be able to ask for any amount of either.
// Checked when a stream is planned, where its URI states the size or rate (testsrc://,
// v4l2://...?size=&fps=), and when its input opens (a file's or a camera's real size).
#pragma once

#include <string>
#include <string_view>

namespace fp {

struct InputLimits {
  // A frame fits when it fits in max_width x max_height either way round: a portrait
  // camera costs what the same landscape one does. 0: no limit (framepipe run).
  int max_width = 0;
  int max_height = 0;
  double max_fps = 0;  // 0: no limit
};

// "" when a width x height frame fits, else why not, naming the limit and its option.
std::string input_size_problem(int width, int height, const InputLimits& limits);
// "" when `fps` frames a second (`written` as the URI has it: "30", "29.97", "30000/1001")
// is within the limit, else why not.
std::string input_rate_problem(double fps, std::string_view written, const InputLimits& limits);

// "WxH" (both at least 1) into width and height; false for anything else.
bool parse_frame_size(std::string_view text, int& width, int& height);

}  // namespace fp
