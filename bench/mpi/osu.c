// OSU-style micro-benchmarks, written for Synergy's bench/mpi.
//
//   osu latency   : ping-pong half round-trip time between ranks 0 and 1,
//                   0 B to 4 MiB (other ranks idle in a barrier)
//   osu bandwidth : rank 0 streams a window of 64 nonblocking sends to
//                   rank 1, which acknowledges each window; 1 B to 4 MiB
//   osu allreduce : MPI_Allreduce of floats, 8 B to 1 MiB, all ranks
//   osu bcast     : MPI_Bcast of bytes from rank 0, 8 B to 1 MiB
//   osu alltoall  : MPI_Alltoall of bytes, 8 B to 256 KiB to each rank
//
// An optional second argument caps the message size in bytes (a quick run).
// Rank 0 prints one line per size: "<test> <bytes> <value>", the value in
// microseconds (latency, collectives) or MB/s (bandwidth). Each size runs a
// fixed number of iterations after a warm-up, like the OSU suite.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t maxBytes = 4 << 20;

static int iterationsFor(size_t bytes) {
  if (bytes >= (1 << 20)) return 20;
  if (bytes >= (64 << 10)) return 100;
  return 1000;
}

static void latency(int rank, char* buffer) {
  for (size_t bytes = 0; bytes <= maxBytes; bytes = bytes ? bytes * 4 : 1) {
    int iterations = iterationsFor(bytes), warmup = iterations / 10;
    double start = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iterations + warmup; ++i) {
      if (i == warmup) start = MPI_Wtime();
      if (rank == 0) {
        MPI_Send(buffer, (int)bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(buffer, (int)bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        MPI_Recv(buffer, (int)bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buffer, (int)bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
      }
    }
    double elapsed = MPI_Wtime() - start;
    if (rank == 0) printf("latency %zu %.3f\n", bytes, elapsed * 1e6 / (2.0 * iterations));
  }
}

static void bandwidth(int rank, char* buffer) {
  enum { kWindow = 64 };
  MPI_Request requests[kWindow];
  for (size_t bytes = 1; bytes <= maxBytes; bytes *= 4) {
    // The OSU suite's counts: 100 windows (10 warm-up) up to 8 KiB, 20 (2
    // warm-up) above; fewer make a small size's whole run too short to time.
    int large = bytes > (8 << 10);
    int iterations = large ? 20 : 100, warmup = large ? 2 : 10;
    double start = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iterations + warmup; ++i) {
      if (i == warmup) start = MPI_Wtime();
      char ack;
      if (rank == 0) {
        for (int w = 0; w < kWindow; ++w)
          MPI_Isend(buffer, (int)bytes, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &requests[w]);
        MPI_Waitall(kWindow, requests, MPI_STATUSES_IGNORE);
        MPI_Recv(&ack, 1, MPI_CHAR, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        for (int w = 0; w < kWindow; ++w)
          MPI_Irecv(buffer + (size_t)w * 0, (int)bytes, MPI_CHAR, 0, 2, MPI_COMM_WORLD,
                    &requests[w]);
        MPI_Waitall(kWindow, requests, MPI_STATUSES_IGNORE);
        MPI_Send(&ack, 1, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
      }
    }
    double elapsed = MPI_Wtime() - start;
    if (rank == 0)
      printf("bandwidth %zu %.3f\n", bytes, (double)bytes * kWindow * iterations / elapsed / 1e6);
  }
}

static void collective(int rank, char* buffer, char* result, int isBcast) {
  for (size_t bytes = 8; bytes <= maxBytes && bytes <= (1 << 20); bytes *= 4) {
    int iterations = iterationsFor(bytes), warmup = iterations / 10;
    double start = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iterations + warmup; ++i) {
      if (i == warmup) start = MPI_Wtime();
      if (isBcast)
        MPI_Bcast(buffer, (int)bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
      else
        MPI_Allreduce(buffer, result, (int)(bytes / 4), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    }
    double local = (MPI_Wtime() - start) * 1e6 / iterations, slowest;
    MPI_Reduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("%s %zu %.3f\n", isBcast ? "bcast" : "allreduce", bytes, slowest);
  }
}

static void alltoall(int rank, int size) {
  enum { kLargestBlock = 256 << 10 };
  char* send = calloc((size_t)kLargestBlock * size, 1);
  char* receive = calloc((size_t)kLargestBlock * size, 1);
  for (size_t bytes = 8; bytes <= maxBytes && bytes <= kLargestBlock; bytes *= 4) {
    int iterations = iterationsFor(bytes * size), warmup = iterations / 10;
    double start = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iterations + warmup; ++i) {
      if (i == warmup) start = MPI_Wtime();
      MPI_Alltoall(send, (int)bytes, MPI_CHAR, receive, (int)bytes, MPI_CHAR, MPI_COMM_WORLD);
    }
    double local = (MPI_Wtime() - start) * 1e6 / iterations, slowest;
    MPI_Reduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("alltoall %zu %.3f\n", bytes, slowest);
  }
  free(send);
  free(receive);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* test = argc > 1 ? argv[1] : "latency";
  if (argc > 2 && atol(argv[2]) > 0 && (size_t)atol(argv[2]) < maxBytes)
    maxBytes = (size_t)atol(argv[2]);
  char* buffer = calloc(4 << 20, 1);
  char* result = calloc(4 << 20, 1);
  if (!strcmp(test, "latency") && size >= 2)
    latency(rank, buffer);
  else if (!strcmp(test, "bandwidth") && size >= 2)
    bandwidth(rank, buffer);
  else if (!strcmp(test, "allreduce"))
    collective(rank, buffer, result, 0);
  else if (!strcmp(test, "bcast"))
    collective(rank, buffer, result, 1);
  else if (!strcmp(test, "alltoall"))
    alltoall(rank, size);
  else if (rank == 0)
    fprintf(stderr, "osu: unknown test '%s' or too few ranks\n", test);
  free(buffer);
  free(result);
  MPI_Finalize();
  return 0;
}
