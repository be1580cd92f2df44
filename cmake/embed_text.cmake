# Turns a text file into a C++ source that defines it as a std::string_view, at build time:
#   cmake -DINPUT=page.html -DOUTPUT=page_text.cpp -DSYMBOL=fp::service::detail::page_text -P embed_text.cmake
# Run by an add_custom_command that depends on INPUT, so editing the file rebuilds the binary
# (a file(READ) at configure time would not). The text goes into a raw string literal, which
# keeps it readable in the generated file; a text that contains the literal's end is refused.
foreach(var INPUT OUTPUT SYMBOL)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "embed_text.cmake: -D${var}=... is required")
  endif()
endforeach()
file(READ "${INPUT}" text)
set(delimiter "framepipe_embed")
string(FIND "${text}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "embed_text.cmake: ${INPUT} contains ')${delimiter}\"', which would end the raw string")
endif()
string(REGEX MATCH "^(.*)::([^:]+)$" _ "${SYMBOL}")
set(namespace "${CMAKE_MATCH_1}")
set(name "${CMAKE_MATCH_2}")
if(NOT namespace OR NOT name)
  message(FATAL_ERROR "embed_text.cmake: SYMBOL=${SYMBOL} is not NAMESPACE::NAME")
endif()
get_filename_component(input_name "${INPUT}" NAME)
file(WRITE "${OUTPUT}" "// Generated from ${input_name} by cmake/embed_text.cmake at build time: edit ${input_name}.
#include <string_view>

namespace ${namespace} {
extern const std::string_view ${name};
const std::string_view ${name} = R\"${delimiter}(${text})${delimiter}\";
}  // namespace ${namespace}
")
