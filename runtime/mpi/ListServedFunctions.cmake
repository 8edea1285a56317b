#===- ListServedFunctions.cmake - the MPI names a granule may import -----===#
#
# Writes the linker's list of MPI control points from the host functions
# the MPI library defines, so the list cannot admit a name the runtime does
# not serve: synergy-cc passes it to wasm-ld with --allow-undefined-file,
# and any other MPI_* call stays an undefined symbol, which synergy-cc
# reports as a function this runtime does not support.
#
# A host function for import env.NAME is the C symbol Z_envZ_NAME (wasm2c's
# name for it), so the list is the archive's defined Z_envZ_MPI_* and
# Z_envZ_PMPI_* symbols with that prefix removed.
#
# Usage: cmake -DNM=<nm> -DARCHIVE=<libsynergy_mpi.a> -DOUTPUT=<file> -P ListServedFunctions.cmake
#
#===----------------------------------------------------------------------===#
execute_process(COMMAND ${NM} --defined-only --extern-only ${ARCHIVE}
                OUTPUT_VARIABLE symbols RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${NM} could not list the symbols of ${ARCHIVE}")
endif()
string(REGEX MATCHALL "T Z_envZ_P?MPI_[A-Za-z0-9_]+" definitions "${symbols}")
set(names)
foreach(definition IN LISTS definitions)
  string(REGEX REPLACE "^T Z_envZ_" "" name "${definition}")
  list(APPEND names ${name})
endforeach()
list(REMOVE_DUPLICATES names)
list(SORT names)
list(LENGTH names count)
if(count EQUAL 0)
  message(FATAL_ERROR "${ARCHIVE} defines no MPI host functions")
endif()
string(REPLACE ";" "\n" lines "${names}")
file(WRITE ${OUTPUT}.new
     "# MPI functions the Synergy runtime serves, generated from the host functions\n"
     "# that runtime/mpi defines (ListServedFunctions.cmake). Do not edit.\n"
     "${lines}\n")
# Only a changed list touches the file, so an unchanged one rebuilds nothing.
file(COPY_FILE ${OUTPUT}.new ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.new)
