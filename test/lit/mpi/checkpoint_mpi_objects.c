// A job that makes MPI objects a checkpoint holds before its checkpoints
// and uses them after: groups, a user-defined op, derived datatypes with a
// name, a split communicator, a duplicate with a name, an attribute whose
// copy callback runs when it is duplicated again and MPI_ERRORS_RETURN, a
// periodic cartesian ring, a communicator made from a group, and
// MPI_ERRORS_RETURN on MPI_COMM_WORLD. Killed right after its second
// checkpoint and resumed with --resume, its output and exit status must be
// an undisturbed run's and OpenMPI's. A datatype freed before the
// checkpoints leaves a hole in the handle table, which the resumed rank must
// keep. The objects are reached only through the handles the guest keeps
// in its memory.
// RUN: %mpi-diff --resume-after 2 %s %t 2 3 4
#include <mpi.h>
#include <stdio.h>
#include <string.h>

// A commutative op on pairs of ints: keeps the larger first field, adds the
// second.
static void max_and_sum(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  int* a = in;
  int* b = inout;
  for (int i = 0; i < *len; ++i) {
    if (a[2 * i] > b[2 * i]) b[2 * i] = a[2 * i];
    b[2 * i + 1] += a[2 * i + 1];
  }
}

// Counts the copies of the duplicate's attribute (the value is copied).
static int copies;
static int copy_attribute(MPI_Comm comm, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)comm;
  (void)keyval;
  (void)extra;
  ++copies;
  *(void**)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  MPI_Datatype scratch, pair, column, halo;
  MPI_Type_contiguous(3, MPI_DOUBLE, &scratch);
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  MPI_Type_vector(4, 1, 4, MPI_INT, &column);
  MPI_Type_create_resized(column, 0, sizeof(int), &halo);
  MPI_Type_commit(&halo);
  MPI_Type_set_name(halo, "halo_t");
  MPI_Type_free(&scratch);

  MPI_Op op;
  MPI_Op_create(max_and_sum, 1, &op);

  MPI_Group world, evens, odds;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int even_ranks[4], n_even = 0;
  for (int r = 0; r < size; r += 2) even_ranks[n_even++] = r;
  MPI_Group_incl(world, n_even, even_ranks, &evens);
  MPI_Group_excl(world, n_even, even_ranks, &odds);

  int keyval;
  MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &keyval, NULL);

  MPI_Comm halves, dup, ring, even_comm;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &halves);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_set_name(dup, "checkpointed dup");
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int comm_keyval;
  static int attribute_value = 42;
  MPI_Comm_create_keyval(copy_attribute, MPI_COMM_NULL_DELETE_FN, &comm_keyval, NULL);
  MPI_Comm_set_attr(dup, comm_keyval, &attribute_value);
  int dims[1] = {size}, periods[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  MPI_Comm_create(MPI_COMM_WORLD, evens, &even_comm);

  for (int phase = 0; phase < 4; ++phase) {
    int mine[2] = {rank * 10 + phase, rank + phase}, all[2];
    MPI_Allreduce(mine, all, 1, pair, op, MPI_COMM_WORLD);
    int matrix[16], got[16];
    for (int i = 0; i < 16; ++i) matrix[i] = rank * 100 + phase * 16 + i;
    memset(got, 0, sizeof got);
    // Column `phase` of rank 0's 4x4 matrix reaches every rank.
    if (rank == 0) memcpy(got, matrix, sizeof got);
    MPI_Bcast(got + phase, 1, halo, 0, MPI_COMM_WORLD);
    int sizes[2], translated[4];
    MPI_Group_size(evens, &sizes[0]);
    MPI_Group_size(odds, &sizes[1]);
    MPI_Group_translate_ranks(evens, n_even, (int[]){0, 1, 2, 3}, world, translated);
    printf("rank %d phase %d max %d sum %d column %d %d %d %d groups %d %d first %d\n", rank,
           phase, all[0], all[1], got[phase], got[phase + 4], got[phase + 8], got[phase + 12],
           sizes[0], sizes[1], translated[n_even - 1]);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
  }

  char name[MPI_MAX_OBJECT_NAME];
  int length, halo_size;
  MPI_Aint lb, extent;
  MPI_Type_get_name(halo, name, &length);
  MPI_Type_size(halo, &halo_size);
  MPI_Type_get_extent(halo, &lb, &extent);
  int integers, addresses, types, combiner;
  MPI_Type_get_envelope(column, &integers, &addresses, &types, &combiner);
  printf("rank %d type %s size %d extent %ld envelope %d %d %d vector %d\n", rank, name, halo_size,
         (long)extent, integers, addresses, types, combiner == MPI_COMBINER_VECTOR);
  fflush(stdout);
  int half_rank, half_size, half_sum;
  MPI_Comm_rank(halves, &half_rank);
  MPI_Comm_size(halves, &half_size);
  MPI_Allreduce(&rank, &half_sum, 1, MPI_INT, MPI_SUM, halves);
  char dup_name[MPI_MAX_OBJECT_NAME];
  int *value, found;
  MPI_Comm_get_name(dup, dup_name, &length);
  MPI_Comm_get_attr(dup, comm_keyval, &value, &found);
  MPI_Comm second;
  MPI_Comm_dup(dup, &second);
  int *copied, copied_found;
  MPI_Comm_get_attr(second, comm_keyval, &copied, &copied_found);
  int bad_rank = MPI_Send(&rank, 1, MPI_INT, size + 5, 0, dup), error_class;
  MPI_Error_class(bad_rank, &error_class);
  int world_error = MPI_Send(&rank, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD), world_class;
  MPI_Error_class(world_error, &world_class);
  int coords[1], left, right, from_left = -1;
  MPI_Cart_coords(ring, rank, 1, coords);
  MPI_Cart_shift(ring, 0, 1, &left, &right);
  MPI_Sendrecv(&rank, 1, MPI_INT, right, 7, &from_left, 1, MPI_INT, left, 7, ring, MPI_STATUS_IGNORE);
  int even_size = -1;
  if (even_comm != MPI_COMM_NULL) MPI_Comm_size(even_comm, &even_size);
  printf("rank %d half %d of %d sum %d dup '%s' attribute %d %d copies %d copied %d errors %d %d "
         "ring %d left %d right %d got %d evens %d\n",
         rank, half_rank, half_size, half_sum, dup_name, found, found ? *value : -1, copies,
         copied_found ? *copied : -1, error_class == MPI_ERR_RANK, world_class == MPI_ERR_RANK,
         coords[0], left, right, from_left, even_size);
  fflush(stdout);
  MPI_Comm_free(&second);
  if (even_comm != MPI_COMM_NULL) MPI_Comm_free(&even_comm);
  MPI_Comm_free(&ring);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&halves);
  MPI_Comm_free_keyval(&comm_keyval);
  MPI_Datatype again;
  MPI_Type_contiguous(2, MPI_DOUBLE, &again);
  MPI_Type_commit(&again);
  MPI_Type_free(&again);
  MPI_Type_free_keyval(&keyval);
  MPI_Group_free(&odds);
  MPI_Group_free(&evens);
  MPI_Group_free(&world);
  MPI_Op_free(&op);
  MPI_Type_free(&halo);
  MPI_Type_free(&column);
  MPI_Type_free(&pair);
  // Rank 1's status ends the job: every rank has printed by then.
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return rank == 1 ? 5 : 0;
}
