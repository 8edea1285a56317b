// Bad arguments to the graph topologies and neighbour collectives, under
// MPI_ERRORS_RETURN: each call returns the right class and makes nothing
// (the communicator handle stays as it was), and a neighbour collective
// with a bad block sends nothing, so the next one still matches. A process
// outside a mapped grid or graph gets MPI_UNDEFINED, as MPI says (OpenMPI
// 4.1.4 returns its rank). Under MPI_ERRORS_ARE_FATAL the job ends with a
// message naming the call.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %synergy-cc -O2 %s -o %t/errors.wasm
// RUN: %synergy-run -np 3 %t/errors.wasm return | env LC_ALL=C sort | FileCheck %s --check-prefix=RETURN
// RUN: not %synergy-run -np 2 %t/errors.wasm fatal 2>&1 | FileCheck %s --check-prefix=FATAL
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank;

static const char* class_of(int code) {
  int cls;
  MPI_Error_class(code, &cls);
  return cls == MPI_SUCCESS     ? "MPI_SUCCESS"
         : cls == MPI_ERR_RANK  ? "MPI_ERR_RANK"
         : cls == MPI_ERR_ARG   ? "MPI_ERR_ARG"
         : cls == MPI_ERR_TOPOLOGY ? "MPI_ERR_TOPOLOGY"
         : cls == MPI_ERR_TYPE  ? "MPI_ERR_TYPE"
         : cls == MPI_ERR_DIMS  ? "MPI_ERR_DIMS"
                                : "another class";
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
    int count;
    MPI_Graph_neighbors_count(MPI_COMM_WORLD, 0, &count);
    printf("not reached\n");
    MPI_Finalize();
    return 0;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm made = MPI_COMM_SELF;
  int index[3] = {1, 2, 3}, edges[3] = {1, 2, 7};
  int code = MPI_Graph_create(MPI_COMM_WORLD, 3, index, edges, 0, &made);
  if (rank == 0)
    printf("edge to node 7: %s, handle %s\n", class_of(code),
           made == MPI_COMM_SELF ? "unchanged" : "changed");
  int falling[3] = {2, 1, 3};
  code = MPI_Graph_create(MPI_COMM_WORLD, 3, falling, edges, 0, &made);
  if (rank == 0) printf("decreasing index: %s\n", class_of(code));
  code = MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, &made);
  if (rank == 0) printf("more nodes than processes: %s\n", class_of(code));
  int count, in, out, weighted;
  code = MPI_Graph_neighbors_count(MPI_COMM_WORLD, 0, &count);
  if (rank == 0) printf("graph query on a plain communicator: %s\n", class_of(code));
  code = MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &in, &out, &weighted);
  if (rank == 0) printf("dist graph query on a plain communicator: %s\n", class_of(code));
  int value = rank, got[4] = {-1, -1, -1, -1};
  code = MPI_Neighbor_allgather(&value, 1, MPI_INT, got, 1, MPI_INT, MPI_COMM_WORLD);
  if (rank == 0) printf("neighbour collective without a topology: %s\n", class_of(code));
  int sources[1] = {5}, weights[1] = {1};
  code = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, sources, weights, 0, sources,
                                        MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &made);
  if (rank == 0) printf("dist graph source 5: %s\n", class_of(code));
  int degree[1] = {-1};
  code = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, degree, sources, MPI_UNWEIGHTED,
                               MPI_INFO_NULL, 0, &made);
  if (rank == 0) printf("negative degree: %s\n", class_of(code));
  int negative[1] = {-3}, self[1] = {0};
  code = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, self, negative, 0, self,
                                        MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &made);
  if (rank == 0) printf("negative weight: %s\n", class_of(code));

  // A ring where a bad receive type refuses the call before anything is sent.
  int size, periods[1] = {1};
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm ring;
  MPI_Cart_create(MPI_COMM_WORLD, 1, &size, periods, 0, &ring);
  MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
  code = MPI_Neighbor_allgather(&value, 1, MPI_INT, got, 1, (MPI_Datatype)9999, ring);
  if (rank == 0) printf("bad receive type: %s\n", class_of(code));
  code = MPI_Neighbor_allgather(&value, 1, MPI_INT, got, 1, MPI_INT, ring);
  printf("rank %d after the refused call: %s, got %d %d\n", rank, class_of(code), got[0], got[1]);
  MPI_Comm_free(&ring);

  int dims[1] = {1}, newrank;
  MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &newrank);
  printf("rank %d cart_map: %s\n", rank, newrank == MPI_UNDEFINED ? "MPI_UNDEFINED" : "kept");
  int one_index[1] = {0};
  MPI_Graph_map(MPI_COMM_WORLD, 1, one_index, edges, &newrank);
  printf("rank %d graph_map: %s\n", rank, newrank == MPI_UNDEFINED ? "MPI_UNDEFINED" : "kept");
  code = MPI_Cart_map(MPI_COMM_WORLD, 1, (int[]){4}, periods, &newrank);
  if (rank == 0) printf("cart_map of 4 on 3: %s\n", class_of(code));
  MPI_Finalize();
  return 0;
}
// RETURN: bad receive type: MPI_ERR_TYPE
// RETURN-NEXT: cart_map of 4 on 3: MPI_ERR_DIMS
// RETURN-NEXT: decreasing index: MPI_ERR_ARG
// RETURN-NEXT: dist graph query on a plain communicator: MPI_ERR_TOPOLOGY
// RETURN-NEXT: dist graph source 5: MPI_ERR_RANK
// RETURN-NEXT: edge to node 7: MPI_ERR_RANK, handle unchanged
// RETURN-NEXT: graph query on a plain communicator: MPI_ERR_TOPOLOGY
// RETURN-NEXT: more nodes than processes: MPI_ERR_ARG
// RETURN-NEXT: negative degree: MPI_ERR_ARG
// RETURN-NEXT: negative weight: MPI_ERR_ARG
// RETURN-NEXT: neighbour collective without a topology: MPI_ERR_TOPOLOGY
// RETURN-NEXT: rank 0 after the refused call: MPI_SUCCESS, got 2 1
// RETURN-NEXT: rank 0 cart_map: kept
// RETURN-NEXT: rank 0 graph_map: kept
// RETURN-NEXT: rank 1 after the refused call: MPI_SUCCESS, got 0 2
// RETURN-NEXT: rank 1 cart_map: MPI_UNDEFINED
// RETURN-NEXT: rank 1 graph_map: MPI_UNDEFINED
// RETURN-NEXT: rank 2 after the refused call: MPI_SUCCESS, got 1 0
// RETURN-NEXT: rank 2 cart_map: MPI_UNDEFINED
// RETURN-NEXT: rank 2 graph_map: MPI_UNDEFINED
// FATAL: MPI_Graph_neighbors_count: communicator has no graph topology (MPI_ERR_TOPOLOGY)
// FATAL-NOT: not reached
