// A deadlock inside a collective over hosts, for cluster_test.py's
// deadlock case: rank 0 waits in MPI_Barrier while every other rank waits
// in MPI_Recv for a message nobody sends. Run over three hosts, the job must
// end with the same report and exit status as on one host.
#include <mpi.h>

int main(int argc, char** argv) {
  int rank, value;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    MPI_Barrier(MPI_COMM_WORLD);
  else
    MPI_Recv(&value, 1, MPI_INT, 0, rank, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
