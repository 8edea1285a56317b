// MPI_Pack, MPI_Unpack and MPI_Pack_size with basic, strided and struct
// datatypes: the packed bytes, the positions, a packed buffer sent as
// MPI_PACKED and unpacked into other layouts, and the _x size queries.
// RUN: %mpi-diff %s %t 2 3
#include <mpi.h>
#include <stdio.h>

struct Particle {
  char kind;
  double mass;
  int cell[3];
};

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  MPI_Datatype column, particle;
  MPI_Type_vector(3, 1, 4, MPI_SHORT, &column);
  MPI_Type_commit(&column);
  int lengths[3] = {1, 1, 3};
  MPI_Aint displs[3] = {offsetof(struct Particle, kind), offsetof(struct Particle, mass),
                        offsetof(struct Particle, cell)};
  MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
  MPI_Type_create_struct(3, lengths, displs, types, &particle);
  MPI_Type_commit(&particle);

  int sizes[4];
  MPI_Pack_size(5, MPI_INT, MPI_COMM_WORLD, &sizes[0]);
  MPI_Pack_size(2, column, MPI_COMM_WORLD, &sizes[1]);
  MPI_Pack_size(2, particle, MPI_COMM_WORLD, &sizes[2]);
  MPI_Pack_size(0, particle, MPI_COMM_WORLD, &sizes[3]);
  MPI_Count sizeX, lbX, extentX, trueLbX, trueExtentX;
  MPI_Type_size_x(column, &sizeX);
  MPI_Type_get_extent_x(column, &lbX, &extentX);
  MPI_Type_get_true_extent_x(particle, &trueLbX, &trueExtentX);
  if (rank == 0) {
    printf("pack sizes %d %d %d %d\n", sizes[0], sizes[1], sizes[2], sizes[3]);
    printf("column size_x %lld extent_x %lld %lld, particle true extent_x %lld %lld\n",
           (long long)sizeX, (long long)lbX, (long long)extentX, (long long)trueLbX,
           (long long)trueExtentX);
  }

  unsigned char packed[256];
  int position = 0;
  if (rank == 0) {
    int ints[5] = {1, -2, 300, 70000, -5};
    short grid[12];
    for (int i = 0; i < 12; ++i) grid[i] = (short)(i * 11);
    struct Particle p[2] = {{'a', 1.5, {1, 2, 3}}, {'z', -0.25, {7, 8, 9}}};
    MPI_Pack(ints, 5, MPI_INT, packed, sizeof packed, &position, MPI_COMM_WORLD);
    printf("after ints position %d\n", position);
    MPI_Pack(grid, 1, column, packed, sizeof packed, &position, MPI_COMM_WORLD);
    printf("after column position %d\n", position);
    MPI_Pack(p, 2, particle, packed, sizeof packed, &position, MPI_COMM_WORLD);
    printf("after particles position %d\n", position);
    printf("packed bytes:");
    for (int i = 0; i < position; ++i) printf(" %02x", packed[i]);
    printf("\n");
    for (int to = 1; to < size; ++to)
      MPI_Send(packed, position, MPI_PACKED, to, 0, MPI_COMM_WORLD);
  } else {
    MPI_Status status;
    MPI_Recv(packed, sizeof packed, MPI_PACKED, 0, 0, MPI_COMM_WORLD, &status);
    int received;
    MPI_Get_count(&status, MPI_PACKED, &received);
    int ints[5];
    short column3[3];
    struct Particle p[2];
    MPI_Unpack(packed, received, &position, ints, 5, MPI_INT, MPI_COMM_WORLD);
    MPI_Unpack(packed, received, &position, column3, 3, MPI_SHORT, MPI_COMM_WORLD);
    MPI_Unpack(packed, received, &position, p, 2, particle, MPI_COMM_WORLD);
    printf("rank %d received %d, unpacked to %d: ints %d %d %d %d %d column %d %d %d\n", rank,
           received, position, ints[0], ints[1], ints[2], ints[3], ints[4], column3[0],
           column3[1], column3[2]);
    for (int i = 0; i < 2; ++i)
      printf("rank %d particle %c %.2f %d %d %d\n", rank, p[i].kind, p[i].mass, p[i].cell[0],
             p[i].cell[1], p[i].cell[2]);
  }

  // A packed message received as the typed data it holds, and typed data
  // received as packed bytes; Get_elements(_x) count basic elements.
  if (rank == 0) {
    int ints[4] = {5, 6, 7, 8};
    position = 0;
    MPI_Pack(ints, 4, MPI_INT, packed, sizeof packed, &position, MPI_COMM_WORLD);
    MPI_Send(packed, position, MPI_PACKED, 1, 1, MPI_COMM_WORLD);
    struct Particle q = {'q', 2.0, {4, 5, 6}};
    MPI_Send(&q, 1, particle, 1, 2, MPI_COMM_WORLD);
  } else if (rank == 1) {
    int ints[4];
    MPI_Status status;
    MPI_Recv(ints, 4, MPI_INT, 0, 1, MPI_COMM_WORLD, &status);
    int elements;
    MPI_Count elementsX;
    MPI_Get_elements(&status, MPI_INT, &elements);
    MPI_Get_elements_x(&status, MPI_INT, &elementsX);
    printf("typed receive of packed: %d %d %d %d, elements %d %lld\n", ints[0], ints[1], ints[2],
           ints[3], elements, (long long)elementsX);
    unsigned char bytes[64];
    MPI_Recv(bytes, sizeof bytes, MPI_PACKED, 0, 2, MPI_COMM_WORLD, &status);
    int count;
    MPI_Get_count(&status, MPI_PACKED, &count);
    struct Particle q;
    position = 0;
    MPI_Unpack(bytes, count, &position, &q, 1, particle, MPI_COMM_WORLD);
    printf("packed receive of typed: %d bytes, %c %.1f %d %d %d\n", count, q.kind, q.mass,
           q.cell[0], q.cell[1], q.cell[2]);
  }

  MPI_Type_free(&column);
  MPI_Type_free(&particle);
  MPI_Finalize();
  return 0;
}
