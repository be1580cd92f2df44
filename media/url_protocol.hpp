// Which of FFmpeg's protocols opens a URL, decided exactly as libavformat decides it
// (url_find_protocol in avio.c), so that what the service checks is what FFmpeg will open:
// "subfile,,start,0,end,0,,:/x" is read by the subfile protocol although a '/' comes before
// its ':', and "file://name" opens "//name", not "name".
#pragma once

#include <string>
#include <string_view>

namespace fp {

struct UrlProtocol {
  // As FFmpeg matches it (case-sensitive: "FILE:x" names no protocol FFmpeg has):
  // "file", "subfile", "http", "hls+http".
  std::string name;
  // The part before a '+' ("hls" of "hls+http"): FFmpeg's nested protocols (hls, crypto)
  // are found by it. The whole name when it has no '+'.
  std::string outer;
  bool is_file() const { return name == "file"; }
};

// The scheme is the longest run of [A-Za-z0-9+.-] at the start, when a ':' follows it;
// else, for a URL starting "subfile," with a ':' somewhere after that run, "subfile"; else
// "file" (a plain path).
UrlProtocol url_protocol(std::string_view url);

// The path FFmpeg's file protocol opens for a URL whose protocol is "file": the URL
// without a leading "file:" ("file:///a" opens "///a", that is "/a"; "file://a" opens "/a").
std::string file_protocol_path(std::string_view url);

}  // namespace fp
