// The network inputs `framepipe serve` lets a client name, each with the FFmpeg protocols it
// needs beneath it: one table for both what the service accepts (pipeline/streams/template)
// and the protocol_whitelist FFmpeg gets when it opens such an input for the service, which
// also binds every URL a demuxer opens on its own (HLS segments and keys, RTSP's RTP) and
// keeps `file` (and subfile, concat, pipe, data...) out of them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fp {

// The schemes served ("rtsp://", "http://"...), for messages.
std::vector<std::string> served_network_schemes();

// The protocol_whitelist for a network input of the service: its protocol (url_protocol)
// and those beneath it, e.g. rtsp: rtsp,rtsps,rtp,srtp,udp,tcp,tls,http,https,httpproxy.
// nullopt when the URL is not one of the served network inputs (its scheme must be followed
// by "//": "rtsp:x" is none).
std::optional<std::string> served_protocol_whitelist(std::string_view url);

}  // namespace fp
