// MPI_Pack_external / MPI_Unpack_external / MPI_Pack_external_size with
// "external32" (MPI-3.1 §13.5.2): big-endian, fixed sizes, so the packed
// bytes are the same on every implementation and printed in hex. Basic
// types (negative values, MPI_AINT, which is 4 bytes in a granule and 8 in
// external32), a struct with padding, a strided vector, several packs into
// one buffer at advancing positions, then unpacking all of it back.
// RUN: %mpi-diff %s %t 1 2
#include <mpi.h>
#include <stdio.h>
#include <string.h>

struct record {
  int id;
  double weight;
  char tag[3];
  short level;
};

static void dump(const char* what, const unsigned char* bytes, MPI_Aint n) {
  printf("%s (%ld bytes):", what, (long)n);
  for (MPI_Aint i = 0; i < n; ++i) printf(" %02x", bytes[i]);
  printf("\n");
}

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    MPI_Finalize();
    return 0;
  }
  int ints[3] = {1, -2, 0x12345678};
  short shorts[2] = {-1, 0x0102};
  double doubles[2] = {1.5, -0.25};
  float floats[1] = {3.0f};
  char chars[4] = "abc";
  long long wide[1] = {-1234567890123LL};
  MPI_Aint addresses[2] = {-5, 70000};

  struct record records[2] = {{7, 2.5, "xy", -3}, {-8, -1.0, "z", 300}};
  int blocklengths[4] = {1, 1, 3, 1};
  MPI_Aint displs[4] = {offsetof(struct record, id), offsetof(struct record, weight),
                        offsetof(struct record, tag), offsetof(struct record, level)};
  MPI_Datatype types[4] = {MPI_INT, MPI_DOUBLE, MPI_CHAR, MPI_SHORT};
  MPI_Datatype record_type, strided;
  MPI_Type_create_struct(4, blocklengths, displs, types, &record_type);
  MPI_Type_commit(&record_type);
  MPI_Type_vector(2, 1, 2, MPI_INT, &strided);  // ints[0] and ints[2]
  MPI_Type_commit(&strided);

  struct {
    const void* data;
    int count;
    MPI_Datatype type;
    const char* name;
  } items[] = {
      {ints, 3, MPI_INT, "int"},          {shorts, 2, MPI_SHORT, "short"},
      {doubles, 2, MPI_DOUBLE, "double"}, {floats, 1, MPI_FLOAT, "float"},
      {chars, 3, MPI_CHAR, "char"},       {wide, 1, MPI_LONG_LONG, "long long"},
      {addresses, 2, MPI_AINT, "aint"},   {records, 2, record_type, "struct"},
      {ints, 1, strided, "vector"},
  };
  int n = sizeof items / sizeof items[0];
  unsigned char buffer[512];
  MPI_Aint position = 0, total = 0;
  for (int i = 0; i < n; ++i) {
    MPI_Aint size, start = position;
    MPI_Pack_external_size("external32", items[i].count, items[i].type, &size);
    MPI_Pack_external("external32", items[i].data, items[i].count, items[i].type, buffer,
                      sizeof buffer, &position);
    dump(items[i].name, buffer + start, position - start);
    printf("%s: size %ld\n", items[i].name, (long)size);
    total += size;
  }
  printf("total %ld, position %ld\n", (long)total, (long)position);

  // Unpack everything back into cleared buffers.
  memset(ints, 0, sizeof ints);
  memset(shorts, 0, sizeof shorts);
  memset(doubles, 0, sizeof doubles);
  memset(floats, 0, sizeof floats);
  memset(chars, 0, sizeof chars);
  memset(wide, 0, sizeof wide);
  memset(addresses, 0, sizeof addresses);
  memset(records, 0, sizeof records);
  int strided_out[3] = {0, 0, 0};
  void* targets[] = {ints, shorts, doubles, floats, chars, wide, addresses, records, strided_out};
  position = 0;
  for (int i = 0; i < n; ++i)
    MPI_Unpack_external("external32", buffer, total, &position, targets[i], items[i].count,
                        items[i].type);
  printf("ints %d %d %d, shorts %d %d, doubles %g %g, float %g, chars %s, wide %lld\n", ints[0],
         ints[1], ints[2], shorts[0], shorts[1], doubles[0], doubles[1], floats[0], chars, wide[0]);
  printf("aints %ld %ld\n", (long)addresses[0], (long)addresses[1]);
  for (int i = 0; i < 2; ++i)
    printf("record %d: %d %g %s %d\n", i, records[i].id, records[i].weight, records[i].tag,
           records[i].level);
  printf("strided %d %d %d, position %ld\n", strided_out[0], strided_out[1], strided_out[2],
         (long)position);
  MPI_Type_free(&record_type);
  MPI_Type_free(&strided);
  MPI_Finalize();
  return 0;
}
