# Runs one libFuzzer target for a bounded time, as a ctest entry:
#   cmake -DFUZZER=<binary> -DSEED_DIRS=<dir;dir> -DDICTIONARY=<file|>
#         -DWORK_DIR=<dir> -DSECONDS=<n> -P RunFuzzer.cmake
# The seed corpus and the regression inputs are copied into a fresh
# WORK_DIR/corpus, so the fuzzer never writes into the source tree and every
# run starts from the same inputs. libFuzzer executes every corpus input
# before it mutates any, so each regression input is replayed first. Any
# crash, leak, timeout (10 s per input) or out-of-memory fails the test, and
# the input that caused it is left in WORK_DIR/artifacts.
foreach(var FUZZER SEED_DIRS WORK_DIR SECONDS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "RunFuzzer.cmake: -D${var}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/corpus ${WORK_DIR}/artifacts)
foreach(dir ${SEED_DIRS})
  set(inputs)
  if(IS_DIRECTORY ${dir})
    file(GLOB inputs ${dir}/*)
  endif()
  if(inputs)
    file(COPY ${inputs} DESTINATION ${WORK_DIR}/corpus)
  endif()
endforeach()

set(options -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048
            -artifact_prefix=${WORK_DIR}/artifacts/ -print_final_stats=1)
if(DICTIONARY AND EXISTS ${DICTIONARY})
  list(APPEND options -dict=${DICTIONARY})
endif()

# UBSan prints a stack only when asked; the stack is what a report needs.
execute_process(COMMAND ${CMAKE_COMMAND} -E env UBSAN_OPTIONS=print_stacktrace=1
                        ${FUZZER} ${options} ${WORK_DIR}/corpus
                WORKING_DIRECTORY ${WORK_DIR}
                RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  file(GLOB artifacts ${WORK_DIR}/artifacts/*)
  message(FATAL_ERROR "${FUZZER} failed (${result}); reproduce with: ${FUZZER} ${artifacts}")
endif()
