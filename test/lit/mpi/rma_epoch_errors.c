// One-sided calls outside their epoch return MPI_ERR_RMA_SYNC through the
// window's error handler, and move no byte (MPI-3.1 11.5; MPICH's
// errors/rma/win_sync_* tests). Every case is followed by correct calls,
// whose results are printed too, so that a refused call must leave the
// window usable. The "common" cases are those OpenMPI 4.1 refuses as well,
// compared with it; the "strict" ones it lets through (MPICH refuses them):
// freeing a window or fencing inside an epoch, a second lock on one target
// under MPI_MODE_NOCHECK, MPI_Win_complete without MPI_Win_start, an
// operation after a fence that said MPI_MODE_NOSUCCEED, and a request-based
// operation outside a passive-target epoch.
// RUN: %mpi-diff --arg common %s %t 2 3
// RUN: %synergy-cc -O2 %s -o %t/epochs.wasm
// RUN: %synergy-run -np 2 %t/epochs.wasm strict | FileCheck %s --check-prefix=STRICT
// STRICT-DAG: rank 0: free while locked: MPI_ERR_RMA_SYNC
// STRICT-DAG: rank 0: free in an access and exposure epoch: MPI_ERR_RMA_SYNC
// STRICT-DAG: rank 0: fence while locked: MPI_ERR_RMA_SYNC
// STRICT-DAG: rank 0: second nocheck lock: MPI_ERR_RMA_SYNC
// STRICT-DAG: rank 0: complete without start: MPI_ERR_RMA_SYNC
// STRICT-DAG: rank 0: put after a nosucceed fence: MPI_ERR_RMA_SYNC
// STRICT-DAG: rank 0: rput in a fence epoch: MPI_ERR_RMA_SYNC
// STRICT-DAG: rank 0: raccumulate in a start epoch: MPI_ERR_RMA_SYNC
// STRICT-DAG: rank 0: rget under a lock: MPI_SUCCESS
// STRICT-DAG: rank 0: start while locked: MPI_ERR_RMA_SYNC
// STRICT-DAG: rank 0: got 30
// STRICT-DAG: rank 0: window 11 20 30 40
// STRICT-DAG: rank 1: window 11 20 30 40
// RUN: not %synergy-run -np 2 %t/epochs.wasm fatal 2>&1 | FileCheck %s --check-prefix=FATAL
// FATAL: synergy-run: rank {{[01]}}: MPI_Get: no access epoch is open towards target 0 (MPI_ERR_RMA_SYNC)
// FATAL-NOT: not reached
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank, size;

static void expect(const char* what, int code) {
  int cls;
  MPI_Error_class(code, &cls);
  const char* name = cls == MPI_SUCCESS        ? "MPI_SUCCESS"
                     : cls == MPI_ERR_RMA_SYNC ? "MPI_ERR_RMA_SYNC"
                                               : "another class";
  printf("rank %d: %s: %s\n", rank, what, name);
}

// What every rank's window holds at the end, after the correct calls.
static void show(const int* cells) {
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: window %d %d %d %d\n", rank, cells[0], cells[1], cells[2], cells[3]);
}

// The cases OpenMPI refuses too.
static void common(MPI_Win win, int* cells, MPI_Group world) {
  int got = -1;
  expect("get outside any epoch", MPI_Get(&got, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
  expect("unlock without lock", MPI_Win_unlock(0, win));

  // A lock after a fence ends the fence epoch; after the unlock no epoch
  // is open.
  MPI_Win_fence(0, win);
  MPI_Win_lock(MPI_LOCK_SHARED, 0, MPI_MODE_NOCHECK, win);
  expect("get under a lock after a fence", MPI_Get(&got, 1, MPI_INT, 0, 1, 1, MPI_INT, win));
  MPI_Win_unlock(0, win);
  printf("rank %d: got %d\n", rank, got);
  expect("get after the unlock", MPI_Get(&got, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
  MPI_Win_fence(0, win);

  // Inside an access epoch of MPI_Win_start.
  MPI_Win_post(world, 0, win);
  MPI_Win_start(world, 0, win);
  int right = (rank + 1) % size;
  int mine = 100 + rank;
  MPI_Put(&mine, 1, MPI_INT, right, 0, 1, MPI_INT, win);
  expect("lock in a start epoch", MPI_Win_lock(MPI_LOCK_SHARED, 0, MPI_MODE_NOCHECK, win));
  expect("start in a start epoch", MPI_Win_start(world, 0, win));
  MPI_Win_complete(win);
  expect("complete twice", MPI_Win_complete(win));
  MPI_Win_wait(win);
  show(cells);
}

// The cases OpenMPI 4.1 lets through.
static void strict(MPI_Win win, int* cells, MPI_Group world) {
  int value = 5, got = -1;
  MPI_Request request;
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 1, MPI_MODE_NOCHECK, win);
    expect("second nocheck lock", MPI_Win_lock(MPI_LOCK_SHARED, 1, MPI_MODE_NOCHECK, win));
    expect("start while locked", MPI_Win_start(world, 0, win));
    expect("rget under a lock", MPI_Rget(&got, 1, MPI_INT, 1, 2, 1, MPI_INT, win, &request));
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    expect("free while locked", MPI_Win_free(&win));
    expect("fence while locked", MPI_Win_fence(0, win));
    MPI_Win_unlock(1, win);
    expect("complete without start", MPI_Win_complete(win));
    printf("rank %d: got %d\n", rank, got);
  }
  MPI_Win_fence(0, win);
  if (rank == 0)
    expect("rput in a fence epoch",
           MPI_Rput(&value, 1, MPI_INT, 1, 3, 1, MPI_INT, win, &request));
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  if (rank == 0)
    expect("put after a nosucceed fence", MPI_Put(&value, 1, MPI_INT, 1, 3, 1, MPI_INT, win));

  MPI_Win_post(world, 0, win);
  MPI_Win_start(world, 0, win);
  if (rank == 0) {
    expect("raccumulate in a start epoch",
           MPI_Raccumulate(&value, 1, MPI_INT, 1, 3, 1, MPI_INT, MPI_SUM, win, &request));
    expect("free in an access and exposure epoch", MPI_Win_free(&win));
  }
  int one = 1;
  MPI_Accumulate(&one, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, MPI_SUM, win);
  MPI_Win_complete(win);
  MPI_Win_wait(win);
  show(cells);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* mode = argc > 1 ? argv[1] : "common";
  int cells[4];
  for (int i = 0; i < 4; ++i) cells[i] = 10 * (i + 1) + (strcmp(mode, "strict") ? rank : 0);
  MPI_Win win;
  MPI_Win_create(cells, sizeof(cells), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  if (!strcmp(mode, "fatal")) {
    int got;
    MPI_Get(&got, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    printf("rank %d not reached\n", rank);
  } else {
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    if (!strcmp(mode, "strict"))
      strict(win, cells, world);
    else
      common(win, cells, world);
  }
  MPI_Group_free(&world);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
