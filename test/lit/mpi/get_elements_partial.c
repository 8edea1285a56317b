// MPI_Get_elements and MPI_Get_elements_x after a receive into a type of
// several element kinds that the message fills only in part: the count is
// that of the basic elements in the type map up to where the message
// stops, MPI_UNDEFINED when it stops inside an element, and MPI_Get_count
// is MPI_UNDEFINED. A struct of an int and chars (MPICH's
// datatype/getpartelm), a contiguous run and a vector of such structs, and
// a struct nesting one, received from messages of every length.
// RUN: %mpi-diff %s %t 2
#include <mpi.h>
#include <stdio.h>

static void show(const char* name, int length, MPI_Status* status, MPI_Datatype type) {
  int elements, count;
  MPI_Count elements_x;
  MPI_Get_elements(status, type, &elements);
  MPI_Get_elements_x(status, type, &elements_x);
  MPI_Get_count(status, type, &count);
  printf("%s, %2d bytes: elements %d, elements_x %lld, count %d\n", name, length,
         elements == MPI_UNDEFINED ? -1 : elements,
         elements_x == MPI_UNDEFINED ? -1LL : (long long)elements_x,
         count == MPI_UNDEFINED ? -1 : count);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  // { int; char[5] }: 9 data bytes, extent 12.
  MPI_Datatype int_chars, run, strided, nested, inner_types[2] = {MPI_INT, MPI_CHAR};
  int inner_lengths[2] = {1, 5};
  MPI_Aint inner_offsets[2] = {0, sizeof(int)};
  MPI_Type_create_struct(2, inner_lengths, inner_offsets, inner_types, &int_chars);
  MPI_Type_contiguous(3, int_chars, &run);
  MPI_Type_vector(2, 1, 2, int_chars, &strided);
  // { short[2]; int_chars; double }: 4 + 9 + 8 = 21 data bytes.
  MPI_Datatype outer_types[3] = {MPI_SHORT, int_chars, MPI_DOUBLE};
  int outer_lengths[3] = {2, 1, 1};
  MPI_Aint outer_offsets[3] = {0, 4, 16};
  MPI_Type_create_struct(3, outer_lengths, outer_offsets, outer_types, &nested);
  MPI_Datatype types[4] = {int_chars, run, strided, nested};
  const char* names[4] = {"int_chars", "run of 3", "vector of 2", "nested"};
  int longest[4] = {18, 27, 18, 42};
  for (int t = 0; t < 4; ++t) MPI_Type_commit(&types[t]);

  char bytes[64] = {0};
  double storage[32];
  for (int t = 0; t < 4; ++t)
    for (int length = 0; length <= longest[t]; ++length) {
      if (rank == 0) {
        MPI_Send(bytes, length, MPI_BYTE, 1, t, MPI_COMM_WORLD);
      } else if (rank == 1) {
        MPI_Status status;
        MPI_Recv(storage, 2, types[t], 0, t, MPI_COMM_WORLD, &status);
        show(names[t], length, &status, types[t]);
      }
    }

  for (int t = 0; t < 4; ++t) MPI_Type_free(&types[t]);
  MPI_Finalize();
  return 0;
}
