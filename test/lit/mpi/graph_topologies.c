// Graph and distributed-graph topologies against OpenMPI: MPI_Graph_create
// (a ring with chords, and a graph with fewer nodes than processes, whose
// extra process gets MPI_COMM_NULL) with MPI_Graphdims_get, Graph_get,
// Graph_neighbors(_count) and Graph_map; MPI_Cart_map;
// MPI_Dist_graph_create, where every rank names edges of other ranks
// (weighted, with a repeated edge), and MPI_Dist_graph_create_adjacent
// unweighted, with MPI_Dist_graph_neighbors(_count); MPI_Topo_test for
// every kind, on a duplicate too, which keeps the topology.
// RUN: %mpi-diff %s %t 1 2 3 4
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size;

static const char* kind_name(int status) {
  return status == MPI_CART         ? "MPI_CART"
         : status == MPI_GRAPH      ? "MPI_GRAPH"
         : status == MPI_DIST_GRAPH ? "MPI_DIST_GRAPH"
         : status == MPI_UNDEFINED  ? "MPI_UNDEFINED"
                                    : "something else";
}

static void topo(const char* what, MPI_Comm comm) {
  int status;
  MPI_Topo_test(comm, &status);
  printf("%d %s: %s\n", rank, what, kind_name(status));
}

static int compare_pairs(const void* a, const void* b) {
  const int* x = a;
  const int* y = b;
  return x[0] != y[0] ? x[0] - y[0] : x[1] - y[1];
}

// A distributed graph's neighbours as sorted (rank, weight) pairs: the
// order MPI_Dist_graph_create gives them is the implementation's.
static void show_dist(const char* what, MPI_Comm comm) {
  int in, out, weighted;
  MPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
  int sources[16], sweights[16], dests[16], dweights[16], pairs[32];
  MPI_Dist_graph_neighbors(comm, in, sources, weighted ? sweights : MPI_UNWEIGHTED, out, dests,
                           weighted ? dweights : MPI_UNWEIGHTED);
  printf("%d %s: in %d out %d weighted %d; in:", rank, what, in, out, weighted);
  for (int i = 0; i < in; ++i) {
    pairs[2 * i] = sources[i];
    pairs[2 * i + 1] = weighted ? sweights[i] : -1;
  }
  qsort(pairs, in, 2 * sizeof(int), compare_pairs);
  for (int i = 0; i < in; ++i) printf(" %d/%d", pairs[2 * i], pairs[2 * i + 1]);
  printf("; out:");
  for (int i = 0; i < out; ++i) {
    pairs[2 * i] = dests[i];
    pairs[2 * i + 1] = weighted ? dweights[i] : -1;
  }
  qsort(pairs, out, 2 * sizeof(int), compare_pairs);
  for (int i = 0; i < out; ++i) printf(" %d/%d", pairs[2 * i], pairs[2 * i + 1]);
  printf("\n");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  topo("world", MPI_COMM_WORLD);

  // A ring where node 0 also links to every node: index and edges.
  int index[16], edges[64], nedges = 0;
  for (int node = 0; node < size; ++node) {
    if (size > 1) {
      edges[nedges++] = (node + 1) % size;
      edges[nedges++] = (node + size - 1) % size;
    }
    if (node == 0)
      for (int other = 2; other < size - 1; ++other) edges[nedges++] = other;
    else if (node >= 2 && node < size - 1)
      edges[nedges++] = 0;
    index[node] = nedges;
  }
  MPI_Comm graph, graph_dup;
  MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph);
  topo("graph", graph);
  MPI_Comm_dup(graph, &graph_dup);
  topo("graph dup", graph_dup);
  int nnodes, nnedges;
  MPI_Graphdims_get(graph_dup, &nnodes, &nnedges);
  int got_index[16], got_edges[64];
  MPI_Graph_get(graph, nnodes, nnedges, got_index, got_edges);
  printf("%d graph: %d nodes %d edges; index", rank, nnodes, nnedges);
  for (int i = 0; i < nnodes; ++i) printf(" %d", got_index[i]);
  printf("; edges");
  for (int i = 0; i < nnedges; ++i) printf(" %d", got_edges[i]);
  printf("\n");
  for (int node = 0; node < size; ++node) {
    int count, neighbours[16];
    MPI_Graph_neighbors_count(graph, node, &count);
    MPI_Graph_neighbors(graph, node, count, neighbours);
    printf("%d graph node %d: %d neighbours:", rank, node, count);
    for (int i = 0; i < count; ++i) printf(" %d", neighbours[i]);
    printf("\n");
  }
  int newrank;
  MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &newrank);
  printf("%d graph_map: %d\n", rank, newrank);
  MPI_Comm_free(&graph_dup);
  MPI_Comm_free(&graph);

  // One node fewer than processes: the last process is left out.
  if (size > 1) {
    int small_index[16], small_edges[16];
    for (int node = 0; node < size - 1; ++node) {
      small_index[node] = node + 1;
      small_edges[node] = (node + 1) % (size - 1);
    }
    MPI_Comm small;
    MPI_Graph_create(MPI_COMM_WORLD, size - 1, small_index, small_edges, 0, &small);
    printf("%d small graph: %s\n", rank, small == MPI_COMM_NULL ? "MPI_COMM_NULL" : "member");
    if (small != MPI_COMM_NULL) {
      topo("small graph", small);
      MPI_Comm_free(&small);
    }
    // A process outside the graph gets MPI_UNDEFINED, which OpenMPI 4.1.4
    // does not give (graph_topologies_errors.c checks ours).
    MPI_Graph_map(MPI_COMM_WORLD, size - 1, small_index, small_edges, &newrank);
    if (rank < size - 1) printf("%d small graph_map: %d\n", rank, newrank);
  }

  int dims[1] = {size > 1 ? size - 1 : 1}, periods[1] = {0};
  MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &newrank);
  if (rank < dims[0]) printf("%d cart_map: %d\n", rank, newrank);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 1, &size, periods, 0, &cart);
  topo("cart", cart);
  MPI_Comm_free(&cart);

  // Rank r names the edges (r+1 -> r+2) with weight 10r and (r -> r+1)
  // twice, with weights r and r + 100: other ranks' edges as well as its own.
  int sources[2] = {(rank + 1) % size, rank}, degrees[2] = {1, 2};
  int dests[3] = {(rank + 2) % size, (rank + 1) % size, (rank + 1) % size};
  int weights[3] = {10 * rank, rank, rank + 100};
  MPI_Comm dist, dist_dup;
  MPI_Dist_graph_create(MPI_COMM_WORLD, 2, sources, degrees, dests, weights, MPI_INFO_NULL, 0,
                        &dist);
  topo("dist", dist);
  show_dist("dist", dist);
  MPI_Comm_dup(dist, &dist_dup);
  show_dist("dist dup", dist_dup);
  MPI_Comm_free(&dist_dup);
  MPI_Comm_free(&dist);

  int adjacent_in[1] = {(rank + size - 1) % size}, adjacent_out[2] = {(rank + 1) % size, rank};
  MPI_Comm adjacent;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, adjacent_in, MPI_UNWEIGHTED, 2, adjacent_out,
                                 MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &adjacent);
  topo("adjacent", adjacent);
  show_dist("adjacent", adjacent);
  MPI_Comm_free(&adjacent);

  MPI_Finalize();
  return 0;
}
