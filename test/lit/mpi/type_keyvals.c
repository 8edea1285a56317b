// Attributes on datatypes (MPI_Type_create_keyval and the rest) and MPI-1's
// keyval calls on communicators: MPI_Type_dup runs the copy callbacks (a
// counting one, MPI_TYPE_DUP_FN, MPI_TYPE_NULL_COPY_FN), replacing,
// deleting and freeing run the delete callbacks, in keyval order, with the
// handle, keyval, value and extra state the program gave; MPI_Keyval_create,
// MPI_Attr_put/get/delete and MPI_DUP_FN behave as their MPI-2 names. Under
// MPI_ERRORS_RETURN a keyval that was never made is an error (OpenMPI
// raises MPI_ERR_OTHER, this runtime MPI_ERR_KEYVAL) and a null datatype
// is MPI_ERR_TYPE.
// RUN: %mpi-diff %s %t 2 3
#include <mpi.h>
#include <stdio.h>

static int rank;
static MPI_Datatype pair, pair_dup;  // to print callbacks' handles by name
static int counting, duplicating, not_copied;

static const char* type_name(MPI_Datatype type) {
  return type == pair ? "pair" : type == pair_dup ? "pair_dup" : "?";
}

static const char* keyval_name(int keyval) {
  return keyval == counting ? "counting" : keyval == duplicating ? "duplicating"
         : keyval == not_copied ? "not_copied" : "?";
}

static int count_copies(MPI_Datatype type, int keyval, void* extra, void* in, void* out,
                        int* flag) {
  int* copies = extra;
  ++*copies;
  printf("rank %d: copy %s on %s, value %d, copy %d\n", rank, keyval_name(keyval), type_name(type),
         *(int*)in, *copies);
  *(void**)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

static int report_delete(MPI_Datatype type, int keyval, void* value, void* extra) {
  printf("rank %d: delete %s on %s, value %d, extra %d\n", rank, keyval_name(keyval),
         type_name(type), *(int*)value, *(int*)extra);
  return MPI_SUCCESS;
}

static int comm_deletes;
static int count_comm_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm;
  (void)keyval;
  (void)extra;
  printf("rank %d: comm delete, value %d\n", rank, *(int*)value);
  ++comm_deletes;
  return MPI_SUCCESS;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);

  static int copies = 0, extra = 42;
  static int first = 1, second = 2, third = 3, replaced = 4;
  MPI_Type_create_keyval(count_copies, report_delete, &counting, &copies);
  MPI_Type_create_keyval(MPI_TYPE_DUP_FN, report_delete, &duplicating, &extra);
  MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &not_copied, &extra);
  MPI_Type_set_attr(pair, counting, &first);
  MPI_Type_set_attr(pair, duplicating, &second);
  MPI_Type_set_attr(pair, not_copied, &third);
  MPI_Type_set_attr(pair, duplicating, &replaced);  // deletes the old value

  MPI_Type_dup(pair, &pair_dup);
  int keyvals[3] = {counting, duplicating, not_copied};
  for (int i = 0; i < 3; ++i) {
    int* value = NULL;
    int flag = -1;
    MPI_Type_get_attr(pair_dup, keyvals[i], &value, &flag);
    printf("rank %d: pair_dup %s: flag %d value %d\n", rank, keyval_name(keyvals[i]), flag,
           flag ? *value : 0);
  }
  MPI_Type_delete_attr(pair, counting);
  int* value = NULL;
  int flag = -1;
  MPI_Type_get_attr(pair, counting, &value, &flag);
  printf("rank %d: pair counting after delete: flag %d\n", rank, flag);
  MPI_Type_free_keyval(&counting);
  printf("rank %d: freed keyval is MPI_KEYVAL_INVALID %d\n", rank, counting == MPI_KEYVAL_INVALID);
  MPI_Type_free(&pair_dup);  // its attributes' delete callbacks run
  MPI_Type_free(&pair);

  // MPI-1's keyvals on a communicator.
  int keyval, attribute = 7 + rank;
  MPI_Keyval_create(MPI_DUP_FN, count_comm_delete, &keyval, NULL);
  MPI_Attr_put(MPI_COMM_WORLD, keyval, &attribute);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Attr_get(dup, keyval, &value, &flag);
  printf("rank %d: MPI-1 attribute on the duplicate: flag %d value %d\n", rank, flag, *value);
  MPI_Comm_free(&dup);
  MPI_Attr_delete(MPI_COMM_WORLD, keyval);
  MPI_Keyval_free(&keyval);
  printf("rank %d: comm deletes %d, keyval invalid %d\n", rank, comm_deletes,
         keyval == MPI_KEYVAL_INVALID);

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int unknown = MPI_Type_get_attr(MPI_INT, 12345, &value, &flag);
  printf("rank %d: unknown keyval is an error %d\n", rank, unknown != MPI_SUCCESS);
  int keyval_on_null;
  MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &keyval_on_null, NULL);
  int error = MPI_Type_set_attr(MPI_DATATYPE_NULL, keyval_on_null, &flag), error_class;
  MPI_Error_class(error, &error_class);
  printf("rank %d: null datatype gives MPI_ERR_TYPE %d\n", rank, error_class == MPI_ERR_TYPE);
  MPI_Finalize();
  return 0;
}
