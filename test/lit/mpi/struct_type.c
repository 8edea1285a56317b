// MPI_Type_create_struct over a C struct (with padding), used in point to
// point, MPI_Gather and MPI_Bcast; MPI_Type_create_resized.
// RUN: %mpi-diff %s %t 1 2 3 4
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

struct Particle {
  char kind;
  double position[3];
  int id;
  short flags;
};

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int lengths[4] = {1, 3, 1, 1};
  MPI_Aint displs[4] = {offsetof(struct Particle, kind), offsetof(struct Particle, position),
                        offsetof(struct Particle, id), offsetof(struct Particle, flags)};
  MPI_Datatype types[4] = {MPI_CHAR, MPI_DOUBLE, MPI_INT, MPI_SHORT};
  MPI_Datatype particle;
  MPI_Type_create_struct(4, lengths, displs, types, &particle);
  MPI_Type_commit(&particle);
  MPI_Aint lb, extent;
  int bytes;
  MPI_Type_get_extent(particle, &lb, &extent);
  MPI_Type_size(particle, &bytes);
  if (rank == 0)
    printf("extent matches sizeof: %d, size %d\n", extent == (MPI_Aint)sizeof(struct Particle),
           bytes);
  struct Particle mine = {(char)('A' + rank), {rank * 1.0, rank * 2.0, rank * 3.0}, 100 + rank,
                          (short)(rank * 3)};
  struct Particle* all = calloc(size, sizeof(struct Particle));
  MPI_Gather(&mine, 1, particle, all, 1, particle, 0, MPI_COMM_WORLD);
  if (rank == 0)
    for (int i = 0; i < size; ++i)
      printf("particle %c %.1f %.1f %.1f id %d flags %d\n", all[i].kind, all[i].position[0],
             all[i].position[1], all[i].position[2], all[i].id, all[i].flags);
  MPI_Bcast(all, size, particle, 0, MPI_COMM_WORLD);
  int ids = 0;
  for (int i = 0; i < size; ++i) ids += all[i].id;
  printf("rank %d ids %d\n", rank, ids);

  MPI_Datatype spaced;
  MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &spaced);
  MPI_Type_commit(&spaced);
  int values[8] = {0};
  if (rank == 0)
    for (int i = 0; i < 8; ++i) values[i] = i + 1;
  MPI_Bcast(values, 4, spaced, 0, MPI_COMM_WORLD);
  printf("rank %d resized: %d %d %d %d %d %d %d %d\n", rank, values[0], values[1], values[2],
         values[3], values[4], values[5], values[6], values[7]);
  MPI_Type_free(&spaced);
  MPI_Type_free(&particle);
  free(all);
  MPI_Finalize();
  return 0;
}
