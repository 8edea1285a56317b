// Keyvals and attributes on communicators: set, get, replace and delete
// run the delete callback; MPI_Comm_dup runs each copy callback
// (MPI_COMM_DUP_FN, MPI_COMM_NULL_COPY_FN, a counting one, one that
// declines) and MPI_Comm_free runs the delete callbacks; a keyval freed
// while attributes use it keeps serving them; extra_state reaches every
// callback; a callback's error fails the call that ran it.
// RUN: %mpi-diff %s %t 1 2 3
#include <mpi.h>
#include <stdio.h>

static int copies, deletes;
static int rank;

static int count_copy(MPI_Comm comm, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)comm;
  (void)keyval;
  ++copies;
  *(int*)extra += 1;
  *(long*)out = *(long*)&in + 1000;
  *flag = 1;
  return MPI_SUCCESS;
}

static int decline_copy(MPI_Comm comm, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)comm;
  (void)keyval;
  (void)extra;
  (void)in;
  (void)out;
  *flag = 0;
  return MPI_SUCCESS;
}

static int log_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm;
  (void)keyval;
  ++deletes;
  if (rank == 0) printf("delete value %ld extra %d\n", (long)value, *(int*)extra);
  return MPI_SUCCESS;
}

static int failing_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm;
  (void)keyval;
  (void)value;
  (void)extra;
  return MPI_ERR_OTHER;
}

static void show(MPI_Comm comm, int keyval, const char* name) {
  void* value;
  int flag;
  MPI_Comm_get_attr(comm, keyval, &value, &flag);
  if (rank == 0) printf("%s: flag %d value %ld\n", name, flag, flag ? (long)value : -1L);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int extra = 7;
  int dupKey, nullKey, countKey, declineKey, failKey;
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, log_delete, &dupKey, &extra);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &nullKey, NULL);
  MPI_Comm_create_keyval(count_copy, log_delete, &countKey, &extra);
  MPI_Comm_create_keyval(decline_copy, MPI_COMM_NULL_DELETE_FN, &declineKey, NULL);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, failing_delete, &failKey, NULL);

  MPI_Comm base;
  MPI_Comm_dup(MPI_COMM_WORLD, &base);
  show(base, dupKey, "unset");
  MPI_Comm_set_attr(base, dupKey, (void*)11L);
  MPI_Comm_set_attr(base, nullKey, (void*)22L);
  MPI_Comm_set_attr(base, countKey, (void*)33L);
  MPI_Comm_set_attr(base, declineKey, (void*)44L);
  MPI_Comm_set_attr(base, dupKey, (void*)12L);  // replaces 11: its delete runs
  show(base, dupKey, "base dup key");
  show(base, countKey, "base count key");

  MPI_Comm copy;
  MPI_Comm_dup(base, &copy);
  show(copy, dupKey, "copy dup key");
  show(copy, nullKey, "copy null key");
  show(copy, countKey, "copy count key");
  show(copy, declineKey, "copy decline key");
  if (rank == 0) printf("copies %d extra %d\n", copies, extra);

  MPI_Comm_free_keyval(&countKey);
  if (rank == 0) printf("freed keyval is invalid %d\n", countKey == MPI_KEYVAL_INVALID);
  MPI_Comm_delete_attr(base, nullKey);
  show(base, nullKey, "deleted null key");
  MPI_Comm_free(&copy);
  if (rank == 0) printf("deletes after freeing the copy %d\n", deletes);
  MPI_Comm_free(&base);
  if (rank == 0) printf("deletes after freeing the base %d\n", deletes);

  MPI_Comm failing;
  MPI_Comm_dup(MPI_COMM_WORLD, &failing);
  MPI_Comm_set_errhandler(failing, MPI_ERRORS_RETURN);
  MPI_Comm_set_attr(failing, failKey, (void*)1L);
  int code = MPI_Comm_delete_attr(failing, failKey);
  if (rank == 0) printf("failing delete callback: error %d\n", code != MPI_SUCCESS);
  MPI_Comm_free(&failing);

  int tagUb, flag;
  int* tagUbPointer;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tagUbPointer, &flag);
  tagUb = *tagUbPointer;
  if (rank == 0) printf("tag_ub still served %d\n", flag && tagUb >= 32767);
  MPI_Comm_free_keyval(&dupKey);
  MPI_Comm_free_keyval(&nullKey);
  MPI_Comm_free_keyval(&declineKey);
  MPI_Comm_free_keyval(&failKey);
  MPI_Finalize();
  return 0;
}
