// MPI-4.0's MPI_Info_get_string, as MPICH's info/infogetstring uses it: a
// missing key leaves buflen and the value alone; buflen 0 writes no value;
// a short buffer gets the value cut and terminated; buflen always comes
// back as the whole value's length plus one. OpenMPI 4 has no
// MPI_Info_get_string, so its build answers from the MPI-3 calls
// MPI_Info_get_valuelen and MPI_Info_get the way MPI-4.0 §10 defines it.
// RUN: %mpi-diff %s %t 1
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION < 5
static int get_string(MPI_Info info, const char* key, int* buflen, char* value, int* flag) {
  int length;
  MPI_Info_get_valuelen(info, key, &length, flag);
  if (!*flag) return MPI_SUCCESS;
  if (*buflen > 0) {
    char whole[MPI_MAX_INFO_VAL + 1];
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, whole, flag);
    int kept = length < *buflen - 1 ? length : *buflen - 1;
    memcpy(value, whole, (size_t)kept);
    value[kept] = '\0';
  }
  *buflen = length + 1;
  return MPI_SUCCESS;
}
#else
#define get_string MPI_Info_get_string
#endif

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "file", "runfile.txt");
  MPI_Info_set(info, "host", "myhost.myorg.org");
  const char* keys[] = {"file", "host", "absent"};
  int buflens[] = {0, 1, 2, 5, 12, 17, 40};
  for (int k = 0; k < 3; ++k)
    for (int b = 0; b < 7; ++b) {
      char value[64];
      memset(value, 'C', sizeof value);
      value[63] = '\0';
      int buflen = buflens[b], flag = -1;
      get_string(info, keys[k], &buflen, value, &flag);
      printf("%s, buflen %2d: flag %d, buflen %2d, value \"%.20s\"\n", keys[k], buflens[b], flag,
             buflen, value);
    }
  MPI_Info_free(&info);
  MPI_Finalize();
  return 0;
}
