# Turns a text file into a C++ source that defines it as a std::string_view, at build time:
#   cmake -DINPUT=page.html -DOUTPUT=page_text.cpp -DSYMBOL=fp::service::detail::page_text
#         [-DCSP_HASHES=ON] -P embed_text.cmake
# Run by an add_custom_command that depends on INPUT, so editing the file rebuilds the binary
# (a file(READ) at configure time would not). The text goes into a raw string literal, which
# keeps it readable in the generated file; a text that contains the literal's end is refused.
# CSP_HASHES=ON (an HTML page) also defines SYMBOL_script_hashes and SYMBOL_style_hashes: the
# Content-Security-Policy sources ('sha256-BASE64' ...) of its inline <script> and <style>
# elements, so that a CSP can allow exactly those and no other inline code (an injected
# element or event handler would not run).
cmake_policy(VERSION 3.25)  # a -P script starts with no policies set
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

# The base64 of the bytes a hex string spells (as CSP writes a digest).
function(hex_to_base64 hex out)
  set(alphabet "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
  string(LENGTH "${hex}" length)
  set(result "")
  set(at 0)
  while(at LESS length)
    math(EXPR left "${length} - ${at}")
    if(left GREATER 6)
      set(left 6)
    endif()
    string(SUBSTRING "${hex}" ${at} ${left} chunk)
    math(EXPR chars "${left} / 2 + 1")  # 3 bytes -> 4 characters, 2 -> 3, 1 -> 2
    while(left LESS 6)
      string(APPEND chunk "00")
      math(EXPR left "${left} + 2")
    endwhile()
    math(EXPR value "0x${chunk}")
    foreach(shift 18 12 6 0)
      if(chars GREATER 0)
        math(EXPR index "(${value} >> ${shift}) & 63")
        string(SUBSTRING "${alphabet}" ${index} 1 c)
        string(APPEND result "${c}")
        math(EXPR chars "${chars} - 1")
      else()
        string(APPEND result "=")
      endif()
    endforeach()
    math(EXPR at "${at} + 6")
  endwhile()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

# The CSP sources of every <TAG>...</TAG> element's content (TAG without attributes).
function(inline_hashes text tag out)
  set(sources "")
  set(rest "${text}")
  while(TRUE)
    string(FIND "${rest}" "<${tag}>" open)
    if(open EQUAL -1)
      break()
    endif()
    string(LENGTH "<${tag}>" open_length)
    math(EXPR begin "${open} + ${open_length}")
    string(SUBSTRING "${rest}" ${begin} -1 rest)
    string(FIND "${rest}" "</${tag}>" close)
    if(close EQUAL -1)
      message(FATAL_ERROR "embed_text.cmake: ${INPUT}: <${tag}> without </${tag}>")
    endif()
    string(SUBSTRING "${rest}" 0 ${close} content)
    string(SHA256 digest "${content}")
    hex_to_base64("${digest}" encoded)
    list(APPEND sources "'sha256-${encoded}'")
    string(SUBSTRING "${rest}" ${close} -1 rest)
  endwhile()
  list(JOIN sources " " sources)
  set(${out} "${sources}" PARENT_SCOPE)
endfunction()

set(hashes "")
if(CSP_HASHES)
  inline_hashes("${text}" script script_hashes)
  inline_hashes("${text}" style style_hashes)
  set(hashes "extern const std::string_view ${name}_script_hashes;
const std::string_view ${name}_script_hashes = \"${script_hashes}\";
extern const std::string_view ${name}_style_hashes;
const std::string_view ${name}_style_hashes = \"${style_hashes}\";
")
endif()

get_filename_component(input_name "${INPUT}" NAME)
file(WRITE "${OUTPUT}" "// Generated from ${input_name} by cmake/embed_text.cmake at build time: edit ${input_name}.
#include <string_view>

namespace ${namespace} {
extern const std::string_view ${name};
const std::string_view ${name} = R\"${delimiter}(${text})${delimiter}\";
${hashes}}  // namespace ${namespace}
")
