# cmake -DFRAMEPIPE=BIN -DSECTIONS=ROFF -DOUT=DIR -P cli_docs.cmake
# Writes what is generated from the program's own options (tools/framepipe/cli_docs/):
#   DIR/framepipe.1               the man page: `framepipe man-page`, then the hand-written
#                                 SECTIONS (docs/man/framepipe-sections.roff.in, configured)
#   DIR/framepipe.1.gz            the same, as installed (gzip -9n: no name, no time stamp)
#   DIR/framepipe.bash-completion `framepipe completion bash`
find_program(GZIP gzip REQUIRED)
execute_process(COMMAND "${FRAMEPIPE}" man-page OUTPUT_VARIABLE generated RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "${FRAMEPIPE} man-page failed: ${failed}")
endif()
file(READ "${SECTIONS}" sections)
file(WRITE "${OUT}/framepipe.1" "${generated}${sections}")
execute_process(COMMAND "${GZIP}" -9n -c "${OUT}/framepipe.1" OUTPUT_FILE "${OUT}/framepipe.1.gz" RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "gzip of the man page failed: ${failed}")
endif()
execute_process(COMMAND "${FRAMEPIPE}" completion bash OUTPUT_FILE "${OUT}/framepipe.bash-completion"
                RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "${FRAMEPIPE} completion bash failed: ${failed}")
endif()
