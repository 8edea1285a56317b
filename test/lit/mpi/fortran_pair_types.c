// Fortran's MINLOC/MAXLOC pair types used from C, against OpenMPI:
// MPI_2REAL (two REALs) and MPI_2DOUBLE_PRECISION (two DOUBLE PRECISIONs),
// whose index has the value's type; ties resolve to the lower index. Their
// sizes, extents and names, point-to-point of them, and MPI_SUM refused on
// them (MPI_ERR_OP). Also MPI_Message_c2f/f2c, which round-trip a probed
// message's handle and MPI_MESSAGE_NULL.
// RUN: %mpi-diff %s %t 1 2 3 4
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  MPI_Datatype types[2] = {MPI_2REAL, MPI_2DOUBLE_PRECISION};
  for (int t = 0; t < 2; ++t) {
    int typeSize, nameLength;
    MPI_Aint lb, extent;
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Type_size(types[t], &typeSize);
    MPI_Type_get_extent(types[t], &lb, &extent);
    MPI_Type_get_name(types[t], name, &nameLength);
    printf("%d %s: size %d, lb %ld, extent %ld\n", rank, name, typeSize, (long)lb, (long)extent);
  }

  struct { float value, index; } reals[3] = {{(float)(rank % 3), (float)rank},
                                             {(float)-rank, (float)rank},
                                             {1.5f, (float)(size - rank)}},
                                  realsOut[3];
  MPI_Allreduce(reals, realsOut, 3, MPI_2REAL, MPI_MAXLOC, MPI_COMM_WORLD);
  for (int i = 0; i < 3; ++i)
    printf("%d 2real maxloc %d: (%g, %g)\n", rank, i, realsOut[i].value, realsOut[i].index);
  MPI_Allreduce(reals, realsOut, 3, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD);
  for (int i = 0; i < 3; ++i)
    printf("%d 2real minloc %d: (%g, %g)\n", rank, i, realsOut[i].value, realsOut[i].index);

  struct { double value, index; } doubles[2] = {{(rank * 7) % 5 + 0.25, 10.0 * rank},
                                                {-0.5 * rank, 3.0 - rank}},
                                  doublesOut[2];
  MPI_Reduce(doubles, doublesOut, 2, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("2double_precision maxloc: (%g, %g) (%g, %g)\n", doublesOut[0].value,
           doublesOut[0].index, doublesOut[1].value, doublesOut[1].index);
  MPI_Reduce(doubles, doublesOut, 2, MPI_2DOUBLE_PRECISION, MPI_MINLOC, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("2double_precision minloc: (%g, %g) (%g, %g)\n", doublesOut[0].value,
           doublesOut[0].index, doublesOut[1].value, doublesOut[1].index);

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int code = MPI_Allreduce(reals, realsOut, 1, MPI_2REAL, MPI_SUM, MPI_COMM_WORLD), cls;
  MPI_Error_class(code, &cls);
  printf("%d MPI_SUM on MPI_2REAL: %s\n", rank, cls == MPI_ERR_OP ? "MPI_ERR_OP" : "another class");

  // Each rank sends its pair to the next and receives through a message
  // handle that went through its Fortran form.
  MPI_Send(&doubles[0], 1, MPI_2DOUBLE_PRECISION, (rank + 1) % size, 5, MPI_COMM_WORLD);
  MPI_Message message;
  MPI_Mprobe((rank + size - 1) % size, 5, MPI_COMM_WORLD, &message, MPI_STATUS_IGNORE);
  MPI_Message again = MPI_Message_f2c(MPI_Message_c2f(message));
  printf("%d message handle round-trips: %d\n", rank, again == message);
  MPI_Mrecv(&doublesOut[0], 1, MPI_2DOUBLE_PRECISION, &again, MPI_STATUS_IGNORE);
  printf("%d received (%g, %g), handle now MPI_MESSAGE_NULL: %d\n", rank, doublesOut[0].value,
         doublesOut[0].index, again == MPI_MESSAGE_NULL);
  printf("%d MPI_MESSAGE_NULL round-trips: %d\n", rank,
         MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NULL)) == MPI_MESSAGE_NULL);
  MPI_Finalize();
  return 0;
}
