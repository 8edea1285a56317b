// MPI_MAXLOC and MPI_MINLOC on the pair types, with ties resolved to the
// lower index.
// RUN: %mpi-diff %s %t 1 2 3 4 8
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  struct { int value, index; } ii[2] = {{rank % 3, rank}, {-rank, rank}}, iio[2];
  MPI_Allreduce(ii, iio, 2, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD);
  printf("rank %d 2int maxloc (%d,%d) (%d,%d)\n", rank, iio[0].value, iio[0].index,
         iio[1].value, iio[1].index);
  MPI_Allreduce(ii, iio, 2, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD);
  printf("rank %d 2int minloc (%d,%d) (%d,%d)\n", rank, iio[0].value, iio[0].index,
         iio[1].value, iio[1].index);
  struct { double value; int index; } di = {(rank * 7) % 5 + 0.5, rank}, dio;
  MPI_Reduce(&di, &dio, 1, MPI_DOUBLE_INT, MPI_MAXLOC, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("double_int maxloc (%.1f,%d)\n", dio.value, dio.index);
  MPI_Reduce(&di, &dio, 1, MPI_DOUBLE_INT, MPI_MINLOC, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("double_int minloc (%.1f,%d)\n", dio.value, dio.index);
  struct { float value; int index; } fi = {1.0f - rank * 0.5f, 10 + rank}, fio;
  MPI_Allreduce(&fi, &fio, 1, MPI_FLOAT_INT, MPI_MINLOC, MPI_COMM_WORLD);
  printf("rank %d float_int minloc (%.1f,%d)\n", rank, fio.value, fio.index);
  struct { short value; int index; } si = {(short)(rank / 2), rank}, sio;
  MPI_Allreduce(&si, &sio, 1, MPI_SHORT_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  printf("rank %d short_int maxloc (%d,%d)\n", rank, sio.value, sio.index);
  struct { long value; int index; } li = {100 - rank, rank}, lio;
  MPI_Allreduce(&li, &lio, 1, MPI_LONG_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  printf("rank %d long_int maxloc (%ld,%d)\n", rank, lio.value, lio.index);
  MPI_Finalize();
  return 0;
}
