// Info objects: set, overwrite, get with a short buffer, value lengths, keys
// in order, delete, dup independence, free; MPI_INFO_ENV read-only reads;
// communicator hints through MPI_Comm_set_info/get_info; and the errors of
// bad keys and handles under MPI_ERRORS_RETURN.
// RUN: %mpi-diff %s %t 1 2
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void dump(int rank, const char* what, MPI_Info info) {
  int nkeys;
  MPI_Info_get_nkeys(info, &nkeys);
  printf("rank %d %s: %d keys", rank, what, nkeys);
  for (int i = 0; i < nkeys; ++i) {
    char key[MPI_MAX_INFO_KEY], value[MPI_MAX_INFO_VAL];
    int flag, length;
    MPI_Info_get_nthkey(info, i, key);
    MPI_Info_get_valuelen(info, key, &length, &flag);
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL - 1, value, &flag);
    printf(" [%s=%s len %d]", key, value, length);
  }
  printf("\n");
}

static void report(const char* what, int code) {
  int cls;
  MPI_Error_class(code, &cls);
  printf("%s: class %d\n", what, cls);
}

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Info info, copy;
  MPI_Info_create(&info);
  dump(rank, "empty", info);
  MPI_Info_set(info, "striping_factor", "4");
  MPI_Info_set(info, "cb_nodes", "2");
  MPI_Info_set(info, "access_style", "read_once,write_mostly");
  MPI_Info_set(info, "striping_factor", "16");
  dump(rank, "three", info);
  char small[5];
  int flag;
  memset(small, 'x', sizeof small);
  MPI_Info_get(info, "access_style", 4, small, &flag);
  printf("rank %d truncated get: flag %d value %s\n", rank, flag, small);
  MPI_Info_get(info, "missing", 4, small, &flag);
  printf("rank %d missing key flag %d\n", rank, flag);
  MPI_Info_dup(info, &copy);
  MPI_Info_delete(info, "cb_nodes");
  MPI_Info_set(copy, "new_key", "v");
  dump(rank, "after delete", info);
  dump(rank, "dup", copy);
  MPI_Info_free(&info);
  printf("rank %d freed is null %d\n", rank, info == MPI_INFO_NULL);

  char value[MPI_MAX_INFO_VAL];
  MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL - 1, value, &flag);
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  printf("rank %d env maxprocs present %d\n", rank, flag);

  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_set_info(dup, copy);
  MPI_Info used;
  MPI_Comm_get_info(dup, &used);
  MPI_Info_get(used, "new_key", MPI_MAX_INFO_VAL - 1, value, &flag);
  printf("rank %d unknown comm hint reported as used %d\n", rank, flag);
  MPI_Info_free(&used);
  MPI_Info_free(&copy);
  MPI_Comm_free(&dup);

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Info bad;
  MPI_Info_create(&bad);
  char longKey[100];
  memset(longKey, 'k', sizeof longKey - 1);
  longKey[sizeof longKey - 1] = 0;
  if (rank == 0) {
    report("key too long", MPI_Info_set(bad, longKey, "v"));
    report("delete missing key", MPI_Info_delete(bad, "absent"));
    report("nthkey out of range", MPI_Info_get_nthkey(bad, 3, value));
    MPI_Info freed = bad;
    MPI_Info_free(&freed);
    report("set on freed info", MPI_Info_set(bad, "a", "b"));
    report("free null info", MPI_Info_free(&freed));
    int nkeys;
    MPI_Info_create(&bad);
    MPI_Info_get_nkeys(bad, &nkeys);
    printf("after errors nkeys %d\n", nkeys);
  }
  MPI_Finalize();
  return 0;
}
