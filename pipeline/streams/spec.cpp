#include "pipeline/streams/spec.hpp"

namespace fp {

const char* stream_source_name(StreamSource source) {
  switch (source) {
    case StreamSource::List:
      return "list";
    case StreamSource::Command:
      return "run";
    case StreamSource::Api:
      break;
  }
  return "api";
}

}  // namespace fp
