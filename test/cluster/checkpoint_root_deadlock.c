// A deadlock with the root of a broadcast at a barrier control point, for
// checkpoint_cluster_test.py's checkpoint-deadlock case: under
// --checkpoint-every, rank 0 leaves its MPI_Bcast at once and waits at the
// control point for the others, which wait in MPI_Recv for a message rank 0
// never sends. Over three hosts rank 0's part waits for the other parts'
// votes; the job must end with the single-host run's report and status.
#include <mpi.h>

int main(int argc, char** argv) {
  int rank, value = 7;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) MPI_Recv(&value, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
