# synergy_link_static_if_present(<out-var> <pkg-config prefix> <archive name>)
#
# Sets <out-var> to what a target links for the pkg-config module found
# under <prefix> (pkg_check_modules(<prefix> IMPORTED_TARGET ...)): its
# static archive <archive name> from the module's library directories when
# Debian ships one, else the imported target with its shared library.
# synergy-run links the runtime libraries, and each shared library of its
# own is loaded and relocated at every start, granule or not; the archives
# must be position independent (libffi_pic.a, libhiredis.a).
function(synergy_link_static_if_present out_var prefix archive)
  find_library(${prefix}_ARCHIVE NAMES ${archive} HINTS ${${prefix}_LIBRARY_DIRS})
  if(${prefix}_ARCHIVE)
    set(${out_var} ${${prefix}_ARCHIVE} PARENT_SCOPE)
  else()
    set(${out_var} PkgConfig::${prefix} PARENT_SCOPE)
  endif()
endfunction()
