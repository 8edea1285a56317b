// A delete callback that fails refuses the deletion: MPI_*_delete_attr and
// a replacing MPI_*_set_attr return its error and the attribute stays set
// (MPI-4.0 §7.7.2), so a later duplicate still runs the attribute's copy
// callback, whose error MPI_Comm_dup / MPI_Type_dup return, and a later
// free still runs the delete callback. On communicators, datatypes and
// windows; the shape of MPICH's attr/attrerr, attrerrcomm and attrerrtype.
// The error a failing callback makes its call return is any but
// MPI_SUCCESS (MPI-1.2 §3.2.5); for MPI_Comm_dup MPICH and OpenMPI return
// the callback's own code, for MPI_Type_dup OpenMPI does not.
// RUN: %mpi-diff %s %t 2 3
#include <mpi.h>
#include <stdio.h>

static int refuse_deletes = 1;
static int copies, deletes;

static int copy_refused(int copy_errors, void* in, void* out, int* flag) {
  ++copies;
  *(void**)out = in;
  *flag = 1;
  return copy_errors ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int delete_maybe_refused(void) {
  ++deletes;
  return refuse_deletes ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int comm_copy(MPI_Comm c, int k, void* extra, void* in, void* out, int* flag) {
  (void)c;
  (void)k;
  return copy_refused(*(int*)extra, in, out, flag);
}
static int comm_delete(MPI_Comm c, int k, void* value, void* extra) {
  (void)c;
  (void)k;
  (void)value;
  (void)extra;
  return delete_maybe_refused();
}
static int type_copy(MPI_Datatype t, int k, void* extra, void* in, void* out, int* flag) {
  (void)t;
  (void)k;
  return copy_refused(*(int*)extra, in, out, flag);
}
static int type_delete(MPI_Datatype t, int k, void* value, void* extra) {
  (void)t;
  (void)k;
  (void)value;
  (void)extra;
  return delete_maybe_refused();
}
static int win_delete(MPI_Win w, int k, void* value, void* extra) {
  (void)w;
  (void)k;
  (void)value;
  (void)extra;
  return delete_maybe_refused();
}

static int rank;

static void report(const char* what, int err) {
  printf("rank %d: %s: %s copies=%d deletes=%d\n", rank, what,
         err == MPI_SUCCESS ? "success" : "error", copies, deletes);
}

static void report_class(const char* what, int err) {
  int cls = MPI_SUCCESS;
  if (err != MPI_SUCCESS) MPI_Error_class(err, &cls);
  printf("rank %d: %s: %s\n", rank, what, cls == MPI_ERR_OTHER ? "MPI_ERR_OTHER" : "another class");
}

static void show(const char* what, int found, void* value) {
  printf("rank %d: %s: %s %ld\n", rank, what, found ? "set" : "unset",
         found ? (long)(MPI_Aint)value : -1L);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int copy_errors = 1, copy_succeeds = 0;
  void* value;
  int found;

  // Communicators.
  MPI_Comm comm, copy = MPI_COMM_WORLD;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int comm_key;
  MPI_Comm_create_keyval(comm_copy, comm_delete, &comm_key, &copy_errors);
  report("comm first set", MPI_Comm_set_attr(comm, comm_key, (void*)(MPI_Aint)(10 + rank)));
  report("comm replace", MPI_Comm_set_attr(comm, comm_key, (void*)(MPI_Aint)(20 + rank)));
  MPI_Comm_get_attr(comm, comm_key, &value, &found);
  show("comm after refused replace", found, value);
  report("comm delete", MPI_Comm_delete_attr(comm, comm_key));
  MPI_Comm_get_attr(comm, comm_key, &value, &found);
  show("comm after refused delete", found, value);
  int err = MPI_Comm_dup(comm, &copy);
  report("comm dup", err);
  report_class("comm dup error class", err);
  printf("rank %d: comm dup result is MPI_COMM_NULL: %d\n", rank, copy == MPI_COMM_NULL);
  refuse_deletes = 0;
  report("comm delete allowed", MPI_Comm_delete_attr(comm, comm_key));
  MPI_Comm_get_attr(comm, comm_key, &value, &found);
  show("comm after delete", found, value);
  MPI_Comm_set_attr(comm, comm_key, (void*)(MPI_Aint)(30 + rank));
  report("comm free", MPI_Comm_free(&comm));
  MPI_Comm_free_keyval(&comm_key);

  // Datatypes.
  refuse_deletes = 1;
  copies = deletes = 0;
  MPI_Datatype type, type_copy_made;
  MPI_Type_dup(MPI_DOUBLE, &type);
  int type_key;
  MPI_Type_create_keyval(type_copy, type_delete, &type_key, &copy_errors);
  report("type first set", MPI_Type_set_attr(type, type_key, (void*)(MPI_Aint)(40 + rank)));
  report("type replace", MPI_Type_set_attr(type, type_key, (void*)(MPI_Aint)(50 + rank)));
  MPI_Type_get_attr(type, type_key, &value, &found);
  show("type after refused replace", found, value);
  report("type delete", MPI_Type_delete_attr(type, type_key));
  MPI_Type_get_attr(type, type_key, &value, &found);
  show("type after refused delete", found, value);
  report("type dup", MPI_Type_dup(type, &type_copy_made));
  refuse_deletes = 0;
  report("type free", MPI_Type_free(&type));
  MPI_Type_free_keyval(&type_key);

  // A copy callback that succeeds after refused deletes: the duplicate
  // carries the attribute, and freeing both runs two deletes.
  refuse_deletes = 1;
  copies = deletes = 0;
  MPI_Type_dup(MPI_INT, &type);
  MPI_Type_create_keyval(type_copy, type_delete, &type_key, &copy_succeeds);
  MPI_Type_set_attr(type, type_key, (void*)(MPI_Aint)(60 + rank));
  report("type delete refused again", MPI_Type_delete_attr(type, type_key));
  report("type dup with copy", MPI_Type_dup(type, &type_copy_made));
  MPI_Type_get_attr(type_copy_made, type_key, &value, &found);
  show("type copy", found, value);
  refuse_deletes = 0;
  MPI_Type_free(&type_copy_made);
  MPI_Type_free(&type);
  report("type both freed", MPI_SUCCESS);
  MPI_Type_free_keyval(&type_key);

  // Windows.
  refuse_deletes = 1;
  copies = deletes = 0;
  int* base;
  MPI_Win win;
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  int win_key;
  MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_delete, &win_key, NULL);
  report("win first set", MPI_Win_set_attr(win, win_key, (void*)(MPI_Aint)(70 + rank)));
  report("win delete", MPI_Win_delete_attr(win, win_key));
  MPI_Win_get_attr(win, win_key, &value, &found);
  show("win after refused delete", found, value);
  refuse_deletes = 0;
  report("win delete allowed", MPI_Win_delete_attr(win, win_key));
  MPI_Win_get_attr(win, win_key, &value, &found);
  show("win after delete", found, value);
  MPI_Win_free(&win);
  MPI_Win_free_keyval(&win_key);

  MPI_Finalize();
  return 0;
}
