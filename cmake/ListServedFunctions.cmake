#===- ListServedFunctions.cmake - the control points a granule may import -===#
#
# Writes a linker list of control points from the host functions a runtime
# library defines, so the list cannot admit a name the runtime does not
# serve: synergy-cc passes the lists to wasm-ld with --allow-undefined-file,
# and any other call stays an undefined symbol, which synergy-cc reports as
# a function this runtime does not support.
#
# A host function for import env.NAME is the C symbol Z_envZ_NAME (wasm2c's
# name for it), so the list is the archive's defined Z_envZ_ symbols whose
# NAME matches PATTERN, with that prefix removed.
#
# Usage: cmake -DNM=<nm> -DARCHIVE=<lib.a> -DPATTERN=<regex> -DWHAT=<text>
#              -DOUTPUT=<file> -P ListServedFunctions.cmake
#   PATTERN  the names to list, e.g. "P?MPI_[A-Za-z0-9_]+"
#   WHAT     what they are, for the file's header and errors, e.g. "MPI functions"
#
#===----------------------------------------------------------------------===#
execute_process(COMMAND ${NM} --defined-only --extern-only ${ARCHIVE}
                OUTPUT_VARIABLE symbols RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${NM} could not list the symbols of ${ARCHIVE}")
endif()
string(REGEX MATCHALL "T Z_envZ_${PATTERN}" definitions "${symbols}")
set(names)
foreach(definition IN LISTS definitions)
  string(REGEX REPLACE "^T Z_envZ_" "" name "${definition}")
  list(APPEND names ${name})
endforeach()
list(REMOVE_DUPLICATES names)
list(SORT names)
list(LENGTH names count)
if(count EQUAL 0)
  message(FATAL_ERROR "${ARCHIVE} defines no host functions for ${WHAT}")
endif()
get_filename_component(archive_name ${ARCHIVE} NAME)
string(REPLACE ";" "\n" lines "${names}")
file(WRITE ${OUTPUT}.new
     "# ${WHAT} the Synergy runtime serves, generated from the host functions\n"
     "# ${archive_name} defines (cmake/ListServedFunctions.cmake). Do not edit.\n"
     "${lines}\n")
# Only a changed list touches the file, so an unchanged one rebuilds nothing.
file(COPY_FILE ${OUTPUT}.new ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.new)
