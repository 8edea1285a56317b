// MPI-4.0's MPI_Isendrecv and MPI_Isendrecv_replace (MPICH's
// pt2pt/isendrecv, isendrecv_replace and sendrecv3 -isendrecv): both parts
// start at once, several requests may be outstanding, the replace form
// receives into the buffer it sends from, the send side may use a derived
// type, and the completed request's status is that of the receive (its
// source, tag and count); MPI_PROC_NULL on either side. OpenMPI 4 has
// neither call, so its build runs each exchange as the blocking
// MPI_Sendrecv(_replace) in the order the requests are waited for, whose
// results and statuses the nonblocking ones must equal.
// RUN: %mpi-diff %s %t 1 2 3 4
#include <mpi.h>
#include <stdio.h>

#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION < 5
static MPI_Status blocking_status[4];
#define EXCHANGE(slot, sb, sc, st, d, stag, rb, rc, rt, s, rtag, comm, req) \
  (MPI_Sendrecv(sb, sc, st, d, stag, rb, rc, rt, s, rtag, comm, &blocking_status[slot]), \
   *(req) = MPI_REQUEST_NULL)
#define EXCHANGE_REPLACE(slot, b, c, t, d, stag, s, rtag, comm, req) \
  (MPI_Sendrecv_replace(b, c, t, d, stag, s, rtag, comm, &blocking_status[slot]), \
   *(req) = MPI_REQUEST_NULL)
#define STATUS_OF(slot, statuses) (&blocking_status[slot])
#else
#define EXCHANGE(slot, ...) MPI_Isendrecv(__VA_ARGS__)
#define EXCHANGE_REPLACE(slot, ...) MPI_Isendrecv_replace(__VA_ARGS__)
#define STATUS_OF(slot, statuses) (&(statuses)[slot])
#endif

static int rank, size;

static void show(const char* what, MPI_Status* status, MPI_Datatype type, const int* data,
                 int shown) {
  int count;
  MPI_Get_count(status, type, &count);
  printf("rank %d: %s: source %d, tag %d, count %d:", rank, what, status->MPI_SOURCE,
         status->MPI_TAG, count);
  for (int i = 0; i < shown; ++i) printf(" %d", data[i]);
  printf("\n");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;

  // Every other int of `strided` goes right; `replaced` goes left and is
  // replaced by what comes from the right; nothing to and from PROC_NULL.
  int strided[8], from_left[4] = {-1, -1, -1, -1}, replaced[3], untouched[2] = {-7, -7};
  for (int i = 0; i < 8; ++i) strided[i] = 100 * rank + i;
  for (int i = 0; i < 3; ++i) replaced[i] = 1000 * rank + i;
  MPI_Datatype every_other;
  MPI_Type_vector(4, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);

  MPI_Request requests[3];
  MPI_Status statuses[3];
  EXCHANGE(0, strided, 1, every_other, right, 10 + rank, from_left, 4, MPI_INT, left,
           MPI_ANY_TAG, MPI_COMM_WORLD, &requests[0]);
  EXCHANGE_REPLACE(1, replaced, 3, MPI_INT, left, 20 + rank, right, 20 + right, MPI_COMM_WORLD,
                   &requests[1]);
  EXCHANGE(2, strided, 2, MPI_INT, MPI_PROC_NULL, 30, untouched, 2, MPI_INT, MPI_PROC_NULL, 30,
           MPI_COMM_WORLD, &requests[2]);
  MPI_Waitall(3, requests, statuses);
  show("from the left", STATUS_OF(0, statuses), MPI_INT, from_left, 4);
  show("replaced from the right", STATUS_OF(1, statuses), MPI_INT, replaced, 3);
  show("with MPI_PROC_NULL", STATUS_OF(2, statuses), MPI_INT, untouched, 2);

  // A wider message than the receive announces is allowed to be shorter:
  // the count is the receive's.
  int two[2] = {rank, -rank}, room[5] = {0};
  MPI_Request request;
  MPI_Status status;
  EXCHANGE(0, two, 2, MPI_INT, left, 40, room, 5, MPI_INT, right, 40, MPI_COMM_WORLD, &request);
  MPI_Wait(&request, &status);
#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION < 5
  status = blocking_status[0];
#endif
  show("short message", &status, MPI_INT, room, 5);

  MPI_Type_free(&every_other);
  MPI_Finalize();
  return 0;
}
