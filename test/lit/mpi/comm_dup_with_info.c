// MPI_Comm_dup_with_info: the duplicate of an intracommunicator and of an
// intercommunicator is congruent with the original, carries the attributes
// whose keyval copies them, and keeps its messages apart from the
// original's; the hints change nothing observable. MPI_INFO_NULL, no
// hints, is taken by it and by MPI_Comm_idup_with_info (MPICH's
// comm/dup_with_info and comm_info2 pass it); OpenMPI 4 has no
// MPI_Comm_idup_with_info, so its build uses MPI_Comm_idup, which it is
// without hints.
// RUN: %mpi-diff %s %t 2 3
#include <mpi.h>
#include <stdio.h>

#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION < 5
#define IDUP_WITHOUT_HINTS(comm, info, newcomm, request) MPI_Comm_idup(comm, newcomm, request)
#else
#define IDUP_WITHOUT_HINTS MPI_Comm_idup_with_info
#endif

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
  int keyval, value = 40 + rank;
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
  MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, &value);

  MPI_Comm dup;
  MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &dup);
  int result, sum, flag, *copied;
  MPI_Comm_compare(MPI_COMM_WORLD, dup, &result);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup);
  MPI_Comm_get_attr(dup, keyval, &copied, &flag);
  printf("rank %d: congruent %d, sum %d, attribute %d %d\n", rank, result == MPI_CONGRUENT, sum,
         flag, flag ? *copied : -1);

  MPI_Comm local, inter, inter_dup;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - rank % 2, 8, &inter);
  MPI_Comm_dup_with_info(inter, info, &inter_dup);
  int inter_flag, remote_size;
  MPI_Comm_test_inter(inter_dup, &inter_flag);
  MPI_Comm_remote_size(inter_dup, &remote_size);
  MPI_Comm_compare(inter, inter_dup, &result);
  int local_rank;
  MPI_Comm_rank(inter_dup, &local_rank);
  if (local_rank == 0) {
    int on_dup = 100 + rank, on_inter = 200 + rank, a, b;
    MPI_Send(&on_dup, 1, MPI_INT, 0, 1, inter_dup);
    MPI_Send(&on_inter, 1, MPI_INT, 0, 1, inter);
    MPI_Recv(&a, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE);
    MPI_Recv(&b, 1, MPI_INT, 0, 1, inter_dup, MPI_STATUS_IGNORE);
    printf("rank %d: on inter %d, on dup %d\n", rank, a, b);
  }
  printf("rank %d: intercommunicator dup: inter %d, remote size %d, congruent %d\n", rank,
         inter_flag, remote_size, result == MPI_CONGRUENT);

  MPI_Comm no_hints, no_hints_nonblocking;
  MPI_Request request;
  MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &no_hints);
  IDUP_WITHOUT_HINTS(no_hints, MPI_INFO_NULL, &no_hints_nonblocking, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_MAX, no_hints_nonblocking);
  MPI_Comm_compare(no_hints, no_hints_nonblocking, &result);
  printf("rank %d: without hints: max %d, congruent %d\n", rank, sum, result == MPI_CONGRUENT);
  MPI_Comm_free(&no_hints_nonblocking);
  MPI_Comm_free(&no_hints);

  MPI_Comm_free(&inter_dup);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  MPI_Comm_free(&dup);
  MPI_Comm_free_keyval(&keyval);
  MPI_Info_free(&info);
  MPI_Finalize();
  return 0;
}
