// Hostile arguments to one-sided calls: displacements and counts outside
// the target's window, buffers outside linear memory, a target type whose
// entries overlap (which would make an accumulate pack any amount),
// addresses no region
// of a dynamic window covers, wrong ops, datatypes and flavors, and
// synchronisation calls outside their epoch. Under MPI_ERRORS_RETURN each
// returns its error class and moves no byte: the window and the memory
// around it keep their contents. Under the default MPI_ERRORS_ARE_FATAL
// the first one ends the job with a message naming the rank, the call and
// the reason, and nothing after it runs.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %synergy-cc -O2 %s -o %t/hostile.wasm
// RUN: %synergy-run -np 2 %t/hostile.wasm return | FileCheck %s --check-prefix=RETURN
// RETURN-DAG: rank 0: negative displacement: MPI_ERR_RMA_RANGE
// RETURN-DAG: rank 0: count past the end: MPI_ERR_RMA_RANGE
// RETURN-DAG: rank 0: huge displacement: MPI_ERR_RMA_RANGE
// RETURN-DAG: rank 0: accumulate past the end: MPI_ERR_RMA_RANGE
// RETURN-DAG: rank 0: origin outside memory: MPI_ERR_BUFFER
// RETURN-DAG: rank 0: result outside memory: MPI_ERR_BUFFER
// RETURN-DAG: rank 0: fetch_and_op with a bad op: MPI_ERR_OP
// RETURN-DAG: rank 0: compare_and_swap on doubles: MPI_ERR_TYPE
// RETURN-DAG: rank 0: target rank 2: MPI_ERR_RANK
// RETURN-DAG: rank 0: accumulate through an overlapping type: MPI_ERR_TYPE
// RETURN-DAG: rank 0: lock type 7: MPI_ERR_ARG
// RETURN-DAG: rank 0: unlock without lock: MPI_ERR_RMA_SYNC
// RETURN-DAG: rank 0: flush without lock: MPI_ERR_RMA_SYNC
// RETURN-DAG: rank 0: lock twice: MPI_ERR_RMA_SYNC
// RETURN-DAG: rank 0: wait without post: MPI_ERR_RMA_SYNC
// RETURN-DAG: rank 0: complete without start: MPI_ERR_RMA_SYNC
// RETURN-DAG: rank 0: attach to a created window: MPI_ERR_RMA_FLAVOR
// RETURN-DAG: rank 0: shared_query of rank 5: MPI_ERR_RANK
// RETURN-DAG: rank 0: dynamic put outside every region: MPI_ERR_RMA_RANGE
// RETURN-DAG: rank 0: dynamic put across a region's end: MPI_ERR_RMA_RANGE
// RETURN-DAG: rank 0: detach of an unattached address: MPI_ERR_RMA_ATTACH
// RETURN-DAG: rank 0: attach outside memory: MPI_ERR_RMA_ATTACH
// RETURN-DAG: rank 0: shared_query output outside memory: MPI_ERR_ARG
// RETURN-DAG: rank 0: invalid window: MPI_ERR_WIN
// RETURN-DAG: rank 1: window and neighbours intact 1, dynamic region intact 1
// RUN: not %synergy-run -np 2 %t/hostile.wasm fatal 2>&1 | FileCheck %s --check-prefix=FATAL
// FATAL: synergy-run: rank 0: MPI_Put: target range is outside the target's window (MPI_ERR_RMA_RANGE)
// FATAL-NOT: not reached
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank;

static void expect(const char* what, int code) {
  char name[MPI_MAX_ERROR_STRING];
  int cls;
  MPI_Error_class(code, &cls);
  static const struct { int cls; const char* name; } names[] = {
      {MPI_ERR_RMA_RANGE, "MPI_ERR_RMA_RANGE"},   {MPI_ERR_BUFFER, "MPI_ERR_BUFFER"},
      {MPI_ERR_OP, "MPI_ERR_OP"},                 {MPI_ERR_TYPE, "MPI_ERR_TYPE"},
      {MPI_ERR_RANK, "MPI_ERR_RANK"},             {MPI_ERR_ARG, "MPI_ERR_ARG"},
      {MPI_ERR_RMA_SYNC, "MPI_ERR_RMA_SYNC"},     {MPI_ERR_RMA_FLAVOR, "MPI_ERR_RMA_FLAVOR"},
      {MPI_ERR_RMA_ATTACH, "MPI_ERR_RMA_ATTACH"}, {MPI_ERR_RMA_SHARED, "MPI_ERR_RMA_SHARED"},
      {MPI_ERR_WIN, "MPI_ERR_WIN"},               {MPI_SUCCESS, "MPI_SUCCESS"}};
  snprintf(name, sizeof(name), "class %d", cls);
  for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); ++i)
    if (names[i].cls == cls) snprintf(name, sizeof(name), "%s", names[i].name);
  printf("rank %d: %s: %s\n", rank, what, name);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* mode = argc > 1 ? argv[1] : "return";
  struct { int before[4], window[4], after[4]; } memory;
  for (int i = 0; i < 4; ++i) {
    memory.before[i] = 1000 + i;
    memory.window[i] = 2000 + i;
    memory.after[i] = 3000 + i;
  }
  MPI_Win win;
  MPI_Win_create(memory.window, sizeof(memory.window), sizeof(int), MPI_INFO_NULL,
                 MPI_COMM_WORLD, &win);
  int values[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
  if (!strcmp(mode, "fatal")) {
    MPI_Win_fence(0, win);
    if (rank == 0) MPI_Put(values, 2, MPI_INT, 1, 3, 2, MPI_INT, win);
    MPI_Win_fence(0, win);
    printf("rank %d not reached\n", rank);
    MPI_Finalize();
    return 0;
  }
  int* part;
  MPI_Win shared;

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  MPI_Win_fence(0, win);
  if (rank == 0) {
    expect("negative displacement", MPI_Put(values, 1, MPI_INT, 1, -1, 1, MPI_INT, win));
    expect("count past the end", MPI_Put(values, 5, MPI_INT, 1, 0, 5, MPI_INT, win));
    expect("huge displacement", MPI_Put(values, 1, MPI_INT, 1, 0x7fffffff, 1, MPI_INT, win));
    expect("accumulate past the end",
           MPI_Accumulate(values, 2, MPI_INT, 1, 3, 2, MPI_INT, MPI_SUM, win));
    expect("origin outside memory",
           MPI_Get((void*)0xfffffff8, 4, MPI_INT, 1, 0, 4, MPI_INT, win));
    expect("result outside memory",
           MPI_Get_accumulate(values, 1, MPI_INT, (void*)0xfffffffc, 1, MPI_INT, 1, 0, 1,
                              MPI_INT, MPI_SUM, win));
    expect("fetch_and_op with a bad op",
           MPI_Fetch_and_op(values, values + 1, MPI_INT, 1, 0, (MPI_Op)99, win));
    double d = 1, e = 2, f;
    expect("compare_and_swap on doubles",
           MPI_Compare_and_swap(&d, &e, &f, MPI_DOUBLE, 1, 0, win));
    expect("target rank 2", MPI_Put(values, 1, MPI_INT, 2, 0, 1, MPI_INT, win));
    // 4096 ints, all on one cell: 16 KiB to pack for a 4-byte target.
    MPI_Datatype overlapping;
    MPI_Type_create_hvector(4096, 1, 0, MPI_INT, &overlapping);
    MPI_Type_commit(&overlapping);
    expect("accumulate through an overlapping type",
           MPI_Accumulate(values, 1, overlapping, 1, 0, 1, overlapping, MPI_SUM, win));
    MPI_Type_free(&overlapping);
  }
  MPI_Win_fence(0, win);
  if (rank == 0) {
    expect("lock type 7", MPI_Win_lock(7, 1, 0, win));
    expect("unlock without lock", MPI_Win_unlock(1, win));
    expect("flush without lock", MPI_Win_flush(1, win));
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    expect("lock twice", MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
    MPI_Win_unlock(1, win);
    expect("wait without post", MPI_Win_wait(win));
    expect("complete without start", MPI_Win_complete(win));
    expect("attach to a created window", MPI_Win_attach(win, values, sizeof(values)));
    MPI_Aint size;
    int unit;
    int* base;
    expect("shared_query of rank 5", MPI_Win_shared_query(win, 5, &size, &unit, &base));
  }
  MPI_Barrier(MPI_COMM_WORLD);

  MPI_Win dynamic;
  int region[4] = {7, 7, 7, 7};
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dynamic);
  MPI_Win_set_errhandler(dynamic, MPI_ERRORS_RETURN);
  MPI_Win_attach(dynamic, region, sizeof(region));
  MPI_Aint address;
  MPI_Get_address(region, &address);
  MPI_Aint addresses[2];
  MPI_Allgather(&address, 1, MPI_AINT, addresses, 1, MPI_AINT, MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, dynamic);
    expect("dynamic put outside every region",
           MPI_Put(values, 1, MPI_INT, 1, addresses[1] - 64, 1, MPI_INT, dynamic));
    expect("dynamic put across a region's end",
           MPI_Put(values, 2, MPI_INT, 1, addresses[1] + 12, 2, MPI_INT, dynamic));
    MPI_Win_unlock(1, dynamic);
    expect("detach of an unattached address", MPI_Win_detach(dynamic, values));
    expect("attach outside memory", MPI_Win_attach(dynamic, (void*)0xfffffff0, 64));
  }
  MPI_Barrier(MPI_COMM_WORLD);

  MPI_Win_allocate_shared(16, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &part, &shared);
  MPI_Win_set_errhandler(shared, MPI_ERRORS_RETURN);
  if (rank == 0) {
    MPI_Aint size;
    int unit;
    expect("shared_query output outside memory",
           MPI_Win_shared_query(shared, 1, &size, &unit, (int**)0xfffffff0u));
    expect("invalid window", MPI_Win_fence(0, (MPI_Win)12345));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    int intact = 1;
    for (int i = 0; i < 4; ++i)
      intact &= memory.before[i] == 1000 + i && memory.window[i] == 2000 + i &&
                memory.after[i] == 3000 + i;
    int region_intact = region[0] == 7 && region[1] == 7 && region[2] == 7 && region[3] == 7;
    printf("rank %d: window and neighbours intact %d, dynamic region intact %d\n", rank, intact,
           region_intact);
  }
  MPI_Win_free(&shared);
  MPI_Win_detach(dynamic, region);
  MPI_Win_free(&dynamic);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
