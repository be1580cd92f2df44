#include "pipeline/streams/spec.hpp"

namespace fp {

const char* stream_source_name(StreamSource source) { return source == StreamSource::List ? "list" : "api"; }

}  // namespace fp
