#include "pipeline/definition/file_clashes.hpp"

#include "pipeline/definition/file_identity.hpp"

#include "media/output_target.hpp"
#include "media/stream_uri.hpp"

namespace fp {

namespace {


void report(const FileUse& output, const std::string& message, std::vector<ConfigIssue>& issues) {
  ConfigIssue issue = output.where;
  // URIs may carry a password (file:// does not, but a message must never risk one).
  issue.message = mask_uris_in_text(message);
  issues.push_back(std::move(issue));
}

}  // namespace

std::string file_path_of(const FileUse& use) {
  const std::string& path = use.path;
  if (path.empty() || path == "null") return "";
  bool file = path.find("://") == std::string::npos || std::string_view(path).starts_with("file://");
  if (use.written) {
    try {
      const OutputKind kind = parse_output_target(path).kind;
      file = kind == OutputKind::File || kind == OutputKind::Hls;
    } catch (const std::exception&) {
      // Not a media output (luma_histogram's text file), or a bad one (reported elsewhere).
    }
  }
  if (!file) return "";
  // FFmpeg's file protocol, spelled out, names the same file.
  if (std::string_view(path).starts_with("file://")) return path.substr(7);
  if (std::string_view(path).starts_with("file:")) return path.substr(5);
  return path;
}

void check_file_clashes(const std::vector<FileUse>& uses, std::vector<ConfigIssue>& issues) {
  struct Known {
    const FileUse* use;
    FileIdentity id;
  };
  std::vector<Known> inputs;
  std::vector<Known> outputs;
  for (const auto& use : uses)
    if (const std::string path = file_path_of(use); !path.empty())
      if (FileIdentity id = identity_of(path); !id.character_device)
        (use.written ? outputs : inputs).push_back({&use, std::move(id)});
  for (const auto& output : outputs) {
    const FileUse& out = *output.use;
    for (const auto& input : inputs)
      if (clash(output.id, input.id)) {
        report(out, "'" + out.path + "' (" + out.what + ") would overwrite '" + input.use->path + "' (" +
                        input.use->what +
                        (same_identity(output.id, input.id) ? "): the same file" : "), as one of its HLS segments") +
                        "; write elsewhere",
               issues);
        break;
      }
    for (const auto& earlier : outputs) {
      if (&earlier == &output) break;
      if (clash(output.id, earlier.id)) {
        report(out, "'" + out.path + "' (" + out.what + ") and '" + earlier.use->path + "' (" + earlier.use->what +
                        ") are one file: each output needs a file of its own",
               issues);
        break;
      }
    }
  }
}

std::string clash_message(const std::vector<FileUse>& uses) {
  std::vector<ConfigIssue> issues;
  check_file_clashes(uses, issues);
  std::string message;
  for (const auto& issue : issues) message += (message.empty() ? "" : "\n") + issue.message;
  return message;
}

}  // namespace fp
