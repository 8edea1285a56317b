// The MPI tool information interface (MPI_T), on what every implementation
// must do alike whatever variables it exposes, compared with OpenMPI: calls
// before MPI_T_init_thread return MPI_T_ERR_NOT_INITIALIZED; init and
// finalize nest, independently of MPI_Init, and outlive MPI_Finalize; the
// counts are never negative; a name no variable has is
// MPI_T_ERR_INVALID_NAME; a performance-variable session can be created and
// freed (the handle becomes MPI_T_PVAR_SESSION_NULL).
// What OpenMPI 4.1 gets wrong is checked on Synergy alone, with `errors`:
// an index past a count is MPI_T_ERR_INVALID_INDEX (MPI-3.1 §14.3.6-14.3.8;
// OpenMPI says MPI_T_ERR_INVALID), a freed session is
// MPI_T_ERR_INVALID_SESSION (OpenMPI accepts it), and calls after the last
// MPI_T_finalize return MPI_T_ERR_NOT_INITIALIZED (OpenMPI crashes).
// RUN: %mpi-diff %s %t 1 2
// RUN: %synergy-run -np 1 %t/granule.wasm errors | FileCheck %s --check-prefix=ERRORS
#include <mpi.h>
#include <stdio.h>

static void show(const char* what, int code) { printf("%s: %d\n", what, code); }

int main(int argc, char** argv) {
  int errors = argc > 1;
  int count = -1;
  // Before any MPI_T_init_thread, and before MPI_Init.
  show("cvar_get_num before init", MPI_T_cvar_get_num(&count));
  show("finalize before init", MPI_T_finalize());

  int provided = -1;
  show("init_thread", MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  printf("provided single: %d\n", provided == MPI_THREAD_SINGLE);
  show("init_thread again", MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));

  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  int cvars = -1, pvars = -1, categories = -1;
  show("cvar_get_num", MPI_T_cvar_get_num(&cvars));
  show("pvar_get_num", MPI_T_pvar_get_num(&pvars));
  show("category_get_num", MPI_T_category_get_num(&categories));
  printf("counts not negative: %d\n", cvars >= 0 && pvars >= 0 && categories >= 0);

  if (errors) {
    char name[256];
    char desc[256];
    int nameLength = sizeof name, descLength = sizeof desc;
    int verbosity, bind, scope, varClass, readonly, continuous, atomic;
    MPI_Datatype type;
    MPI_T_enum enumtype;
    show("cvar_get_info past the end",
         MPI_T_cvar_get_info(cvars, name, &nameLength, &verbosity, &type, &enumtype, desc,
                             &descLength, &bind, &scope));
    nameLength = sizeof name;
    descLength = sizeof desc;
    show("pvar_get_info past the end",
         MPI_T_pvar_get_info(pvars, name, &nameLength, &verbosity, &varClass, &type, &enumtype,
                             desc, &descLength, &bind, &readonly, &continuous, &atomic));
    int cvarsIn, pvarsIn, categoriesIn;
    nameLength = sizeof name;
    descLength = sizeof desc;
    show("category_get_info past the end",
         MPI_T_category_get_info(categories, name, &nameLength, desc, &descLength, &cvarsIn,
                                 &pvarsIn, &categoriesIn));
    int indices[4];
    show("category_get_cvars past the end", MPI_T_category_get_cvars(categories, 4, indices));
  }

  int index = -1;
  show("cvar_get_index of no such name",
       MPI_T_cvar_get_index("synergy_test_no_such_variable", &index));
  show("pvar_get_index of no such name",
       MPI_T_pvar_get_index("synergy_test_no_such_variable", MPI_T_PVAR_CLASS_COUNTER, &index));
  show("category_get_index of no such name",
       MPI_T_category_get_index("synergy_test_no_such_category", &index));

  MPI_T_pvar_session session = MPI_T_PVAR_SESSION_NULL;
  show("pvar_session_create", MPI_T_pvar_session_create(&session));
  MPI_T_pvar_handle handle;
  int handleCount;
  if (errors)
    show("pvar_handle_alloc past the end",
         MPI_T_pvar_handle_alloc(session, pvars, NULL, &handle, &handleCount));
  MPI_T_pvar_session freed = session;
  show("pvar_session_free", MPI_T_pvar_session_free(&session));
  printf("session now null: %d\n", session == MPI_T_PVAR_SESSION_NULL);
  if (errors) {
    show("pvar_start in a freed session", MPI_T_pvar_start(freed, MPI_T_PVAR_ALL_HANDLES));
    show("pvar_session_free of a freed session", MPI_T_pvar_session_free(&freed));
  }

  int stamp;
  show("category_changed", MPI_T_category_changed(&stamp));

  MPI_Finalize();
  // The tool interface outlives MPI_Finalize until its own last finalize.
  show("cvar_get_num after MPI_Finalize", MPI_T_cvar_get_num(&count));
  show("finalize", MPI_T_finalize());
  if (errors) {
    show("finalize the outer init", MPI_T_finalize());
    show("cvar_get_num after the last finalize", MPI_T_cvar_get_num(&count));
    show("finalize once more", MPI_T_finalize());
  }
  return 0;
}

// ERRORS: cvar_get_info past the end: 57
// ERRORS: pvar_get_info past the end: 57
// ERRORS: category_get_info past the end: 57
// ERRORS: category_get_cvars past the end: 57
// ERRORS: pvar_handle_alloc past the end: 57
// ERRORS: pvar_start in a freed session: 62
// ERRORS: pvar_session_free of a freed session: 62
// ERRORS: finalize the outer init: 0
// ERRORS: cvar_get_num after the last finalize: 55
// ERRORS: finalize once more: 55
