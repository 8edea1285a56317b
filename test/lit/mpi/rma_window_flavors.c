// Window flavors and properties: MPI_Win_create_dynamic with
// MPI_Win_attach/detach (targets named by MPI_Get_address), the window
// attributes of each flavor, MPI_Win_allocate_shared with
// MPI_Win_shared_query of the caller's own part, MPI_Win_get_group,
// the window error handler (default, set, get, call, and errors returned
// under MPI_ERRORS_RETURN), MPI_Win_set/get_name and MPI_Win_set/get_info.
// RUN: %mpi-diff %s %t 2 3 4
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static const char* flavor_name(int flavor) {
  switch (flavor) {
    case MPI_WIN_FLAVOR_CREATE: return "create";
    case MPI_WIN_FLAVOR_ALLOCATE: return "allocate";
    case MPI_WIN_FLAVOR_DYNAMIC: return "dynamic";
    case MPI_WIN_FLAVOR_SHARED: return "shared";
  }
  return "other";
}

static void show_attributes(int rank, const char* what, MPI_Win win, void* expected_base) {
  void* base;
  MPI_Aint* size;
  int *disp_unit, *flavor, *model, flag;
  MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
  MPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flag);
  MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &disp_unit, &flag);
  MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
  MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
  printf("rank %d %s: base %s size %ld disp_unit %d flavor %s unified %d\n", rank, what,
         base == expected_base ? "ok" : "wrong", (long)*size, *disp_unit, flavor_name(*flavor),
         *model == MPI_WIN_UNIFIED);
}

static void report(int rank, const char* what, int code) {
  int cls;
  MPI_Error_class(code, &cls);
  printf("rank %d %s: class %d\n", rank, what, cls);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  // Dynamic: each rank attaches two arrays and publishes their addresses.
  MPI_Win win;
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  show_attributes(rank, "dynamic", win, MPI_BOTTOM);
  int first[4] = {0}, second[2] = {0};
  MPI_Win_attach(win, first, sizeof(first));
  MPI_Win_attach(win, second, sizeof(second));
  MPI_Aint mine[2], addresses[2 * 16];
  MPI_Get_address(first, &mine[0]);
  MPI_Get_address(second, &mine[1]);
  MPI_Allgather(mine, 2, MPI_AINT, addresses, 2, MPI_AINT, MPI_COMM_WORLD);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int values[2] = {rank * 10 + 1, rank * 10 + 2};
  MPI_Win_lock_all(0, win);
  MPI_Put(values, 2, MPI_INT, right, MPI_Aint_add(addresses[2 * right], 2 * sizeof(int)), 2,
          MPI_INT, win);
  MPI_Accumulate(&values[0], 1, MPI_INT, right, addresses[2 * right + 1], 1, MPI_INT, MPI_SUM,
                 win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d dynamic first %d %d %d %d second %d %d\n", rank, first[0], first[1], first[2],
         first[3], second[0], second[1]);
  int fetched = -1;
  MPI_Win_lock(MPI_LOCK_SHARED, left, 0, win);
  MPI_Get(&fetched, 1, MPI_INT, left, (MPI_Aint)((char*)MPI_BOTTOM + addresses[2 * left] +
                                                 3 * sizeof(int)), 1, MPI_INT, win);
  MPI_Win_unlock(left, win);
  printf("rank %d dynamic get from left %d\n", rank, fetched);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_detach(win, second);
  MPI_Win_detach(win, first);
  MPI_Win_free(&win);

  // Shared: each rank allocates its part and reaches its own by pointer,
  // its neighbour's through RMA (win_shared_memory.c reaches them by
  // pointer).
  int* part;
  MPI_Win_allocate_shared(3 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &part,
                          &win);
  show_attributes(rank, "shared", win, part);
  MPI_Aint part_size;
  int part_disp;
  int* queried;
  MPI_Win_shared_query(win, rank, &part_size, &part_disp, &queried);
  printf("rank %d shared_query self: same base %d size %ld disp_unit %d\n", rank, queried == part,
         (long)part_size, part_disp);
  for (int i = 0; i < 3; ++i) part[i] = rank;
  MPI_Win_fence(0, win);
  int stamp = 50 + rank;
  MPI_Put(&stamp, 1, MPI_INT, right, 2, 1, MPI_INT, win);
  MPI_Win_fence(0, win);
  printf("rank %d shared part %d %d %d\n", rank, part[0], part[1], part[2]);

  // Group, name, info.
  MPI_Group win_group, world_group;
  int compared;
  MPI_Win_get_group(win, &win_group);
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  MPI_Group_compare(win_group, world_group, &compared);
  printf("rank %d window group ident %d\n", rank, compared == MPI_IDENT);
  MPI_Group_free(&win_group);
  MPI_Group_free(&world_group);
  char name[MPI_MAX_OBJECT_NAME];
  int length;
  MPI_Win_set_name(win, "halo window");
  MPI_Win_get_name(win, name, &length);
  printf("rank %d name '%s' length %d\n", rank, name, length);
  MPI_Info info, used;
  MPI_Info_create(&info);
  MPI_Info_set(info, "no_locks", "true");
  MPI_Win_set_info(win, info);
  MPI_Win_get_info(win, &used);
  MPI_Info_free(&info);
  MPI_Info_free(&used);
  printf("rank %d info round trip done\n", rank);

  MPI_Win_free(&win);

  // Error handlers, on a window of MPI_Win_allocate (OpenMPI's shared
  // windows do not check target ranges).
  MPI_Win_allocate(3 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &part, &win);
  for (int i = 0; i < 3; ++i) part[i] = rank;
  MPI_Errhandler handler;
  MPI_Win_get_errhandler(win, &handler);
  printf("rank %d default handler fatal %d\n", rank, handler == MPI_ERRORS_ARE_FATAL);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  MPI_Win_get_errhandler(win, &handler);
  printf("rank %d handler now return %d\n", rank, handler == MPI_ERRORS_RETURN);
  report(rank, "call_errhandler", MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
  int x = 1;
  MPI_Win_fence(0, win);
  report(rank, "put past the end", MPI_Put(&x, 1, MPI_INT, right, 3, 1, MPI_INT, win));
  report(rank, "put to rank size", MPI_Put(&x, 1, MPI_INT, size, 0, 1, MPI_INT, win));
  report(rank, "attach to an allocated window", MPI_Win_attach(win, &x, sizeof(x)));
  MPI_Win_fence(0, win);
  printf("rank %d part after refused puts %d %d %d\n", rank, part[0], part[1], part[2]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
