// MPI_Alloc_mem/MPI_Free_mem, and the window attributes MPI_WIN_BASE, SIZE,
// DISP_UNIT, CREATE_FLAVOR and MODEL of windows from MPI_Win_create (over
// MPI_Alloc_mem memory) and MPI_Win_allocate, with a fence epoch of puts
// through each, as the ParRes kernels use them.
// RUN: %mpi-diff %s %t 2 3 4
#include <mpi.h>
#include <stdio.h>

static void show(int rank, const char* what, MPI_Win win, void* expected_base) {
  void* base;
  MPI_Aint* size;
  int *disp_unit, *flavor, *model, flags[5];
  MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flags[0]);
  MPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flags[1]);
  MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &disp_unit, &flags[2]);
  MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flags[3]);
  MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flags[4]);
  printf("rank %d %s: flags %d%d%d%d%d base %s size %ld disp_unit %d flavor %s model %s\n", rank,
         what, flags[0], flags[1], flags[2], flags[3], flags[4],
         base == expected_base ? "ok" : "wrong", (long)*size, *disp_unit,
         *flavor == MPI_WIN_FLAVOR_CREATE     ? "create"
         : *flavor == MPI_WIN_FLAVOR_ALLOCATE ? "allocate"
                                              : "other",
         *model == MPI_WIN_UNIFIED ? "unified" : *model == MPI_WIN_SEPARATE ? "separate" : "other");
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  int count = 4 * (rank + 1);
  int* buffer;
  MPI_Alloc_mem(count * sizeof(int), MPI_INFO_NULL, &buffer);
  for (int i = 0; i < count; ++i) buffer[i] = -1;
  MPI_Win created;
  MPI_Win_create(buffer, count * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                 &created);
  show(rank, "created", created, buffer);

  double* allocated;
  MPI_Win window;
  MPI_Win_allocate(8 * sizeof(double), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &allocated, &window);
  show(rank, "allocated", window, allocated);

  // Each rank writes its number into slot `rank` of its right neighbour.
  int right = (rank + 1) % size;
  double value = rank + 0.5;
  MPI_Win_fence(0, created);
  MPI_Put(&rank, 1, MPI_INT, right, rank, 1, MPI_INT, created);
  MPI_Win_fence(0, created);
  MPI_Win_fence(0, window);
  MPI_Put(&value, 1, MPI_DOUBLE, right, 0, 1, MPI_DOUBLE, window);
  MPI_Win_fence(0, window);
  int left = (rank + size - 1) % size;
  printf("rank %d: slot %d = %d (count %d), allocated[0] = %.1f\n", rank, left,
         left < count ? buffer[left] : -2, count, allocated[0]);

  MPI_Win_free(&window);
  MPI_Win_free(&created);
  MPI_Free_mem(buffer);
  MPI_Finalize();
  return 0;
}
