// Environment queries: MPI_Initialized/Finalized around Init and Finalize,
// MPI_Init_thread, MPI_Get_version, processor name, MPI_Wtime/Wtick, the
// MPI_TAG_UB attribute, communicator names, MPI_COMM_SELF.
// RUN: %mpi-diff %s %t 1 2 4
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  int flag, provided, rank;
  MPI_Initialized(&flag);
  printf("initialized before %d\n", flag);
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Initialized(&flag);
  printf("rank %d initialized %d provided>=funneled %d\n", rank, flag,
         provided >= MPI_THREAD_FUNNELED);
  int version, subversion;
  MPI_Get_version(&version, &subversion);
  printf("rank %d version %d.%d macros %d.%d\n", rank, version, subversion, MPI_VERSION,
         MPI_SUBVERSION);
  char name[MPI_MAX_PROCESSOR_NAME];
  int length;
  MPI_Get_processor_name(name, &length);
  printf("rank %d processor name ok %d\n", rank, length > 0 && (int)strlen(name) == length);
  double t0 = MPI_Wtime();
  double work = 0;
  for (int i = 0; i < 1000000; ++i) work += i;
  double t1 = MPI_Wtime();
  printf("rank %d wtime monotonic %d tick positive %d (%d)\n", rank, t1 >= t0, MPI_Wtick() > 0,
         work > 0);
  int* tagUb;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tagUb, &flag);
  printf("rank %d tag_ub found %d at least 32767 %d\n", rank, flag, flag && *tagUb >= 32767);
  char commName[MPI_MAX_OBJECT_NAME];
  MPI_Comm_get_name(MPI_COMM_WORLD, commName, &length);
  printf("rank %d world is called %s\n", rank, commName);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_set_name(dup, "my-dup");
  MPI_Comm_get_name(dup, commName, &length);
  printf("rank %d dup is called %s (%d)\n", rank, commName, length);
  int selfRank, selfSize;
  MPI_Comm_rank(MPI_COMM_SELF, &selfRank);
  MPI_Comm_size(MPI_COMM_SELF, &selfSize);
  printf("rank %d self %d/%d\n", rank, selfRank, selfSize);
  MPI_Comm_free(&dup);
  MPI_Finalized(&flag);
  printf("rank %d finalized before %d\n", rank, flag);
  MPI_Finalize();
  MPI_Finalized(&flag);
  printf("rank %d finalized after %d\n", rank, flag);
  return 0;
}
