// Point-to-point with MPI_PROC_NULL and MPI_DATATYPE_NULL, against OpenMPI
// 4.1: MPI_DATATYPE_NULL is not a datatype, so every call given it fails
// with MPI_ERR_TYPE, whatever the peer and even with count 0 (MPICH accepts
// it towards MPI_PROC_NULL; the standard names no exception). With a real
// datatype, MPI_PROC_NULL completes at once: the status says MPI_PROC_NULL,
// MPI_ANY_TAG and 0 elements, and the request of a nonblocking call is
// complete.
// RUN: %mpi-diff %s %t 1 2
#include <mpi.h>
#include <stdio.h>

static int rank;

static void report(const char* what, int code) {
  int cls;
  MPI_Error_class(code, &cls);
  printf("%d %s: %s\n", rank, what,
         cls == MPI_SUCCESS    ? "MPI_SUCCESS"
         : cls == MPI_ERR_TYPE ? "MPI_ERR_TYPE"
                               : "another class");
}

static void report_status(const char* what, const MPI_Status* status) {
  int count;
  MPI_Get_count(status, MPI_INT, &count);
  printf("%d %s: source %s, tag %s, count %d\n", rank, what,
         status->MPI_SOURCE == MPI_PROC_NULL ? "MPI_PROC_NULL" : "another",
         status->MPI_TAG == MPI_ANY_TAG ? "MPI_ANY_TAG" : "another", count);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Status status;
  MPI_Request request;
  int buffer[4] = {1, 2, 3, 4};

  report("Irecv of MPI_DATATYPE_NULL from MPI_PROC_NULL",
         MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 10, MPI_COMM_WORLD, &request));
  report("Recv of MPI_DATATYPE_NULL from MPI_PROC_NULL",
         MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 10, MPI_COMM_WORLD, &status));
  report("Isend of MPI_DATATYPE_NULL to MPI_PROC_NULL",
         MPI_Isend(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 10, MPI_COMM_WORLD, &request));
  report("Send of MPI_DATATYPE_NULL to MPI_PROC_NULL",
         MPI_Send(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 10, MPI_COMM_WORLD));
  report("Send of MPI_DATATYPE_NULL to itself",
         MPI_Send(NULL, 0, MPI_DATATYPE_NULL, rank, 10, MPI_COMM_WORLD));
  report("Sendrecv of MPI_DATATYPE_NULL with MPI_PROC_NULL",
         MPI_Sendrecv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 1, NULL, 0, MPI_DATATYPE_NULL,
                      MPI_PROC_NULL, 1, MPI_COMM_WORLD, &status));

  report("Recv of MPI_INT from MPI_PROC_NULL",
         MPI_Recv(buffer, 4, MPI_INT, MPI_PROC_NULL, 10, MPI_COMM_WORLD, &status));
  report_status("its status", &status);
  report("Irecv of MPI_INT from MPI_PROC_NULL",
         MPI_Irecv(buffer, 4, MPI_INT, MPI_PROC_NULL, 10, MPI_COMM_WORLD, &request));
  int done = 0;
  MPI_Test(&request, &done, &status);
  printf("%d it is complete at once: %d, request freed: %d\n", rank, done,
         request == MPI_REQUEST_NULL);
  report_status("its status", &status);
  report("Isend of MPI_INT to MPI_PROC_NULL",
         MPI_Isend(buffer, 4, MPI_INT, MPI_PROC_NULL, 10, MPI_COMM_WORLD, &request));
  report("its wait", MPI_Wait(&request, &status));
  report("Probe of MPI_PROC_NULL", MPI_Probe(MPI_PROC_NULL, 10, MPI_COMM_WORLD, &status));
  report_status("its status", &status);
  printf("%d buffer untouched: %d %d %d %d\n", rank, buffer[0], buffer[1], buffer[2], buffer[3]);
  MPI_Finalize();
  return 0;
}
