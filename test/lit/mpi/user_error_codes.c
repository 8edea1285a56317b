// MPI_Add_error_class, MPI_Add_error_code and MPI_Add_error_string: the new
// codes come after MPI_ERR_LASTCODE (printed relative to the value of the
// MPI_LASTUSEDCODE attribute before the first one, since each MPI numbers
// its own codes), MPI_Error_class maps a code to its class, MPI_Error_string
// returns the added text, and MPI_LASTUSEDCODE follows. A code that was not
// added cannot get a string. Compared with OpenMPI at 1 and 3 ranks.
// RUN: %mpi-diff %s %t 1 3
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, flag, *lastUsed;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastUsed, &flag);
  int base = *lastUsed;
  printf("rank %d: LASTUSEDCODE set %d, at least MPI_ERR_LASTCODE %d\n", rank, flag,
         base >= MPI_ERR_LASTCODE);

  int libraryClass, fileCode, netCode, otherClass;
  MPI_Add_error_class(&libraryClass);
  MPI_Add_error_code(libraryClass, &fileCode);
  MPI_Add_error_code(libraryClass, &netCode);
  MPI_Add_error_class(&otherClass);
  MPI_Add_error_string(libraryClass, "library failure");
  MPI_Add_error_string(fileCode, "library: the file is missing");
  MPI_Add_error_string(netCode, "library: the peer went away");

  int codes[4] = {libraryClass, fileCode, netCode, otherClass};
  for (int i = 0; i < 4; ++i) {
    int errorClass, length;
    char text[MPI_MAX_ERROR_STRING];
    MPI_Error_class(codes[i], &errorClass);
    MPI_Error_string(codes[i], text, &length);
    // Only a code's class is compared: OpenMPI 4.1 does not map an added
    // class to itself, as MPI-3.1 §8.5 asks.
    printf("rank %d: code %d above the base, in the library's class %d: '%s'\n", rank,
           codes[i] > base, (i == 1 || i == 2) ? errorClass == libraryClass : -1,
           i == 3 ? "" : text);
  }
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastUsed, &flag);
  printf("rank %d: LASTUSEDCODE now covers every new code: %d\n", rank,
         *lastUsed >= libraryClass && *lastUsed >= netCode && *lastUsed >= otherClass);

  int predefinedClass;
  MPI_Error_class(MPI_ERR_TRUNCATE, &predefinedClass);
  printf("rank %d: MPI_ERR_TRUNCATE's class is itself: %d\n", rank,
         predefinedClass == MPI_ERR_TRUNCATE);
  int userCode;
  MPI_Add_error_code(MPI_ERR_TRUNCATE, &userCode);
  MPI_Error_class(userCode, &predefinedClass);
  printf("rank %d: a code added to MPI_ERR_TRUNCATE has that class: %d\n", rank,
         predefinedClass == MPI_ERR_TRUNCATE);
  MPI_Finalize();
  return 0;
}
