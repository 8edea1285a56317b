//===- GraphTopologies.cpp - graph and distributed-graph topologies -------===//
//
// MPI_Graph_create and its queries, MPI_Dist_graph_create(_adjacent) and
// theirs, MPI_Graph_map and MPI_Cart_map, and the neighbour lists the
// neighbour collectives use for every kind of topology (GraphTopologies.h).
//
// A graph communicator is made like any other (the comm-split collective
// of Communicators.h); its topology hangs on each member's handle, where a
// duplicate shares it: MPI_Graph_create gives every member the whole graph,
// and a distributed graph is known only by its members' own sides.
// MPI_Dist_graph_create lets any member name any edge, so its members
// first send each other the edges that touch them (two rounds of
// point-to-point messages built like a nonblocking collective's: the
// counts, then the edges), and each keeps its own in- and out-edges in the
// order of the members that named them. Neither constructor reorders
// ranks, which MPI allows.
//
// The neighbour order of a Cartesian topology is MPI's: in each dimension
// the neighbour below, then the one above. A periodic dimension of one or
// two members has the same member on both sides, so a member sends the
// block for the neighbour above before the one for the neighbour below,
// and receives from below before above: the two messages then land as MPI
// says, the block a member sent upward arriving in the receiver's block
// from below.
//
//===----------------------------------------------------------------------===//
#include "mpi/GraphTopologies.h"

#include <algorithm>

#include "mpi/Communicators.h"
#include "mpi/MpiAbi.h"
#include "mpi/NonblockingCollectives.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

// Finds the caller's handle of an intracommunicator; returns 0 or the
// raised error.
int intracommOf(HostCall& call, int comm, CommHandle*& out) {
  out = call.rank.comm(comm);
  if (!out) return call.fail(comm, abi::kErrComm, "invalid communicator");
  if (out->comm->inter) return call.fail(comm, abi::kErrComm, "a topology needs an intracommunicator");
  return abi::kSuccess;
}

// Finds the graph topology of `kind` on communicator handle `comm`;
// returns 0 or the raised error.
int graphOf(HostCall& call, int comm, int kind, const GraphNeighbors*& out) {
  CommHandle* handle = call.rank.comm(comm);
  if (!handle) return call.fail(comm, abi::kErrComm, "invalid communicator");
  if (!handle->graph || handle->graph->kind != kind)
    return call.fail(comm, abi::kErrTopology,
                     kind == abi::kTopoGraph ? "communicator has no graph topology"
                                             : "communicator has no distributed graph topology");
  out = handle->graph.get();
  return abi::kSuccess;
}

// Checks MPI_Graph_create's arrays for `nodes` nodes; returns 0 or the
// raised error.
int readGraph(HostCall& call, int comm, int nodes, u32 indexAddr, u32 edgesAddr,
              std::vector<int>& index, std::vector<int>& edges) {
  const int32_t* indices = intArray(call, comm, indexAddr, nodes, "index array");
  if (!indices) return abi::kErrArg;
  int previous = 0;
  for (int i = 0; i < nodes; ++i) {
    if (indices[i] < previous)
      return call.fail(comm, abi::kErrArg, "index array decreases at node " + std::to_string(i));
    previous = indices[i];
  }
  int edgeCount = nodes ? indices[nodes - 1] : 0;
  const int32_t* targets = intArray(call, comm, edgesAddr, edgeCount, "edges array");
  if (!targets) return abi::kErrArg;
  for (int e = 0; e < edgeCount; ++e)
    if (targets[e] < 0 || targets[e] >= nodes)
      return call.fail(comm, abi::kErrRank, "edge to node " + std::to_string(targets[e]) +
                                                " of a graph with " + std::to_string(nodes));
  index.assign(indices, indices + nodes);
  edges.assign(targets, targets + edgeCount);
  return abi::kSuccess;
}

// The neighbours of node `node` in MPI_Graph_create's arrays.
std::vector<int> graphNeighbors(const GraphNeighbors& graph, int node) {
  int first = node ? graph.graphIndex[size_t(node - 1)] : 0;
  int last = graph.graphIndex[size_t(node)];
  return std::vector<int>(graph.graphEdges.begin() + first, graph.graphEdges.begin() + last);
}

// Makes the new communicator of a graph topology (the members that chose
// color 0, in parent rank order) and gives it `graph`.
int makeGraphCommunicator(HostCall& call, int comm, bool member, u32 newcommOut,
                          std::shared_ptr<GraphNeighbors> graph) {
  int me = call.rank.comm(comm)->comm->rankOfWorld[call.rank.worldRank];
  if (int error = splitCommunicator(call, comm, member ? 0 : abi::kUndefined, me, newcommOut,
                                    std::nullopt))
    return error;
  int32_t made = abi::kCommNull;
  call.load(newcommOut, made);
  if (made != abi::kCommNull) call.rank.comm(made)->graph = std::move(graph);
  return abi::kSuccess;
}

// Whether a weights argument names no array.
bool isWeightsSentinel(u32 weights) {
  return weights == abi::kUnweighted || weights == abi::kWeightsEmpty;
}

// Reads `count` weights at `addr` into `out` (zeros when unweighted);
// returns 0 or the raised error.
int readWeights(HostCall& call, int comm, u32 addr, int count, std::vector<int>& out) {
  out.assign(size_t(count), 0);
  if (isWeightsSentinel(addr) || count == 0) return abi::kSuccess;
  const int32_t* weights = intArray(call, comm, addr, count, "weights");
  if (!weights) return abi::kErrArg;
  for (int i = 0; i < count; ++i) {
    if (weights[i] < 0)
      return call.fail(comm, abi::kErrArg, "negative edge weight " + std::to_string(weights[i]));
    out[size_t(i)] = weights[i];
  }
  return abi::kSuccess;
}

// Reads `count` ranks of a communicator of `size` at `addr`.
int readRanks(HostCall& call, int comm, u32 addr, int count, int size, std::vector<int>& out) {
  if (count < 0) return call.fail(comm, abi::kErrArg, "negative degree " + std::to_string(count));
  const int32_t* ranks = count ? intArray(call, comm, addr, count, "rank array") : nullptr;
  if (count && !ranks) return abi::kErrArg;
  out.assign(ranks, ranks + count);
  for (int rank : out)
    if (rank < 0 || rank >= size)
      return call.fail(comm, abi::kErrRank, "invalid rank " + std::to_string(rank) + " in the graph");
  return abi::kSuccess;
}

// One edge of MPI_Dist_graph_create as it travels between members.
struct GraphEdge {
  int32_t source, destination, weight;
};

// Sends every member of `comm` the edges of `named` that touch it and
// gathers those that touch the caller, in the order of the members that
// named them; returns 0 or the raised error.
int exchangeEdges(HostCall& call, int comm, CommHandle& handle, const std::vector<GraphEdge>& named,
                  std::vector<GraphEdge>& touching) {
  int size = handle.comm->size();
  const size_t members = size_t(size);
  std::vector<std::vector<GraphEdge>> outgoing(members);
  for (const GraphEdge& edge : named) {
    outgoing[size_t(edge.source)].push_back(edge);
    if (edge.destination != edge.source) outgoing[size_t(edge.destination)].push_back(edge);
  }
  const Layout& bytes = call.rank.type(abi::kTypeByte);
  std::vector<int32_t> sendCounts(members), receiveCounts(members);
  ScheduleBuilder counts(call, comm, handle, CollectiveKind::DistGraphCreate);
  for (int peer = 0; peer < size; ++peer) {
    sendCounts[size_t(peer)] = int32_t(outgoing[size_t(peer)].size());
    counts.send(peer, reinterpret_cast<const uint8_t*>(&sendCounts[size_t(peer)]), bytes, 4);
    counts.receive(peer, reinterpret_cast<uint8_t*>(&receiveCounts[size_t(peer)]), bytes, 4);
  }
  if (int error = int(counts.start(0))) return error;
  std::vector<std::vector<GraphEdge>> incoming(members);
  ScheduleBuilder edges(call, comm, handle, CollectiveKind::DistGraphCreate);
  for (int peer = 0; peer < size; ++peer) {
    if (receiveCounts[size_t(peer)] < 0 || receiveCounts[size_t(peer)] > INT32_MAX / 12)
      return call.fail(comm, abi::kErrIntern, "corrupt edge count from rank " + std::to_string(peer));
    incoming[size_t(peer)].resize(size_t(receiveCounts[size_t(peer)]));
    const std::vector<GraphEdge>& out = outgoing[size_t(peer)];
    edges.send(peer, reinterpret_cast<const uint8_t*>(out.data()), bytes,
               int64_t(out.size() * sizeof(GraphEdge)));
    edges.receive(peer, reinterpret_cast<uint8_t*>(incoming[size_t(peer)].data()), bytes,
                  int64_t(incoming[size_t(peer)].size() * sizeof(GraphEdge)));
  }
  if (int error = int(edges.start(0))) return error;
  for (const std::vector<GraphEdge>& from : incoming)
    touching.insert(touching.end(), from.begin(), from.end());
  return abi::kSuccess;
}

// Writes `values` to guest `addr`, at most `max` of them.
bool storeInts(HostCall& call, u32 addr, const std::vector<int>& values, int max) {
  for (int i = 0; i < max && size_t(i) < values.size(); ++i)
    if (!call.store<int32_t>(addr + 4 * u32(i), values[size_t(i)])) return false;
  return true;
}

}  // namespace

namespace synergy::mpi {

int neighborsOf(HostCall& call, int comm, NeighborExchange& out) {
  CommHandle* handle = call.rank.comm(comm);
  if (!handle) return call.fail(comm, abi::kErrComm, "invalid communicator");
  out = NeighborExchange();
  const Communicator& c = *handle->comm;
  int me = c.rankOfWorld[call.rank.worldRank];
  if (c.cart) {
    for (int d = 0; d < int(c.cart->dims.size()); ++d) {
      int below = cartShift(*c.cart, me, d, -1), above = cartShift(*c.cart, me, d, 1);
      out.receives.push_back({below, 2 * d});
      out.receives.push_back({above, 2 * d + 1});
      out.sends.push_back({above, 2 * d + 1});
      out.sends.push_back({below, 2 * d});
    }
    return abi::kSuccess;
  }
  if (!handle->graph)
    return call.fail(comm, abi::kErrTopology, "communicator has no topology for neighbour collectives");
  const GraphNeighbors& graph = *handle->graph;
  for (size_t i = 0; i < graph.sources.size(); ++i)
    out.receives.push_back({graph.sources[i], int(i)});
  for (size_t i = 0; i < graph.destinations.size(); ++i)
    out.sends.push_back({graph.destinations[i], int(i)});
  return abi::kSuccess;
}

}  // namespace synergy::mpi

extern "C" {

u32 Z_envZ_MPI_Graph_create(void* instance, u32 comm, u32 nnodes, u32 indexAddr, u32 edgesAddr,
                            u32 reorder, u32 newcommOut) {
  HostCall call(instance, "MPI_Graph_create");
  (void)reorder;
  int c = int(comm);
  CommHandle* handle = nullptr;
  if (int error = intracommOf(call, c, handle)) return error;
  int nodes = int(nnodes);
  if (nodes < 0 || nodes > handle->comm->size())
    return call.fail(c, abi::kErrArg, "graph of " + std::to_string(nodes) + " nodes on " +
                                          std::to_string(handle->comm->size()) + " processes");
  auto graph = std::make_shared<GraphNeighbors>();
  graph->kind = abi::kTopoGraph;
  if (int error = readGraph(call, c, nodes, indexAddr, edgesAddr, graph->graphIndex,
                            graph->graphEdges))
    return error;
  int me = handle->comm->rankOfWorld[call.rank.worldRank];
  if (me < nodes) {
    graph->sources = graphNeighbors(*graph, me);
    graph->destinations = graph->sources;
    graph->sourceWeights.assign(graph->sources.size(), 0);
    graph->destinationWeights = graph->sourceWeights;
  }
  return makeGraphCommunicator(call, c, me < nodes, newcommOut, std::move(graph));
}

u32 Z_envZ_MPI_Graphdims_get(void* instance, u32 comm, u32 nnodesOut, u32 nedgesOut) {
  HostCall call(instance, "MPI_Graphdims_get");
  const GraphNeighbors* graph = nullptr;
  if (int error = graphOf(call, int(comm), abi::kTopoGraph, graph)) return error;
  if (!call.store<int32_t>(nnodesOut, int32_t(graph->graphIndex.size())) ||
      !call.store<int32_t>(nedgesOut, int32_t(graph->graphEdges.size())))
    return call.fail(int(comm), abi::kErrArg, "output pointer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Graph_get(void* instance, u32 comm, u32 maxindex, u32 maxedges, u32 indexOut,
                         u32 edgesOut) {
  HostCall call(instance, "MPI_Graph_get");
  const GraphNeighbors* graph = nullptr;
  if (int error = graphOf(call, int(comm), abi::kTopoGraph, graph)) return error;
  if (!storeInts(call, indexOut, graph->graphIndex, int(maxindex)) ||
      !storeInts(call, edgesOut, graph->graphEdges, int(maxedges)))
    return call.fail(int(comm), abi::kErrArg, "output array outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Graph_neighbors_count(void* instance, u32 comm, u32 rank, u32 countOut) {
  HostCall call(instance, "MPI_Graph_neighbors_count");
  const GraphNeighbors* graph = nullptr;
  if (int error = graphOf(call, int(comm), abi::kTopoGraph, graph)) return error;
  if (int(rank) < 0 || int(rank) >= int(graph->graphIndex.size()))
    return call.fail(int(comm), abi::kErrRank, "invalid rank " + std::to_string(int(rank)));
  if (!call.store<int32_t>(countOut, int32_t(graphNeighbors(*graph, int(rank)).size())))
    return call.fail(int(comm), abi::kErrArg, "count pointer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Graph_neighbors(void* instance, u32 comm, u32 rank, u32 maxneighbors,
                               u32 neighborsOut) {
  HostCall call(instance, "MPI_Graph_neighbors");
  const GraphNeighbors* graph = nullptr;
  if (int error = graphOf(call, int(comm), abi::kTopoGraph, graph)) return error;
  if (int(rank) < 0 || int(rank) >= int(graph->graphIndex.size()))
    return call.fail(int(comm), abi::kErrRank, "invalid rank " + std::to_string(int(rank)));
  if (!storeInts(call, neighborsOut, graphNeighbors(*graph, int(rank)), int(maxneighbors)))
    return call.fail(int(comm), abi::kErrArg, "neighbors array outside linear memory");
  return abi::kSuccess;
}

// Without reordering, a member keeps its rank if the graph has a node for it.
u32 Z_envZ_MPI_Graph_map(void* instance, u32 comm, u32 nnodes, u32 indexAddr, u32 edgesAddr,
                         u32 newrankOut) {
  HostCall call(instance, "MPI_Graph_map");
  int c = int(comm);
  CommHandle* handle = nullptr;
  if (int error = intracommOf(call, c, handle)) return error;
  int nodes = int(nnodes);
  if (nodes < 1 || nodes > handle->comm->size())
    return call.fail(c, abi::kErrArg, "graph of " + std::to_string(nodes) + " nodes on " +
                                          std::to_string(handle->comm->size()) + " processes");
  std::vector<int> index, edges;
  if (int error = readGraph(call, c, nodes, indexAddr, edgesAddr, index, edges)) return error;
  int me = handle->comm->rankOfWorld[call.rank.worldRank];
  if (!call.store<int32_t>(newrankOut, me < nodes ? me : abi::kUndefined))
    return call.fail(c, abi::kErrArg, "newrank pointer outside linear memory");
  return abi::kSuccess;
}

// As MPI_Graph_map, for a grid of dims[0] x ... x dims[ndims-1] members.
u32 Z_envZ_MPI_Cart_map(void* instance, u32 comm, u32 ndims, u32 dimsAddr, u32 periodsAddr,
                        u32 newrankOut) {
  HostCall call(instance, "MPI_Cart_map");
  (void)periodsAddr;
  int c = int(comm);
  CommHandle* handle = nullptr;
  if (int error = intracommOf(call, c, handle)) return error;
  int n = int(ndims);
  if (n < 0) return call.fail(c, abi::kErrDims, "negative ndims " + std::to_string(n));
  const int32_t* dims = intArray(call, c, dimsAddr, n, "dims");
  if (!dims) return abi::kErrArg;
  int64_t product = 1;
  for (int d = 0; d < n; ++d) {
    if (dims[d] <= 0) return call.fail(c, abi::kErrDims, "invalid dimension size");
    product *= dims[d];
    if (product > handle->comm->size())
      return call.fail(c, abi::kErrDims, "grid has more processes than the communicator");
  }
  int me = handle->comm->rankOfWorld[call.rank.worldRank];
  if (!call.store<int32_t>(newrankOut, me < product ? me : abi::kUndefined))
    return call.fail(c, abi::kErrArg, "newrank pointer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Dist_graph_create_adjacent(void* instance, u32 comm, u32 indegree, u32 sourcesAddr,
                                          u32 sourceWeightsAddr, u32 outdegree,
                                          u32 destinationsAddr, u32 destinationWeightsAddr,
                                          u32 info, u32 reorder, u32 newcommOut) {
  HostCall call(instance, "MPI_Dist_graph_create_adjacent");
  (void)info;
  (void)reorder;
  int c = int(comm);
  CommHandle* handle = nullptr;
  if (int error = intracommOf(call, c, handle)) return error;
  int size = handle->comm->size();
  auto graph = std::make_shared<GraphNeighbors>();
  graph->kind = abi::kTopoDistGraph;
  graph->weighted =
      sourceWeightsAddr != abi::kUnweighted && destinationWeightsAddr != abi::kUnweighted;
  if (int error = readRanks(call, c, sourcesAddr, int(indegree), size, graph->sources)) return error;
  if (int error = readRanks(call, c, destinationsAddr, int(outdegree), size, graph->destinations))
    return error;
  if (int error = readWeights(call, c, sourceWeightsAddr, int(indegree), graph->sourceWeights))
    return error;
  if (int error = readWeights(call, c, destinationWeightsAddr, int(outdegree),
                              graph->destinationWeights))
    return error;
  return makeGraphCommunicator(call, c, true, newcommOut, std::move(graph));
}

u32 Z_envZ_MPI_Dist_graph_create(void* instance, u32 comm, u32 n, u32 sourcesAddr,
                                 u32 degreesAddr, u32 destinationsAddr, u32 weightsAddr, u32 info,
                                 u32 reorder, u32 newcommOut) {
  HostCall call(instance, "MPI_Dist_graph_create");
  (void)info;
  (void)reorder;
  int c = int(comm);
  CommHandle* handle = nullptr;
  if (int error = intracommOf(call, c, handle)) return error;
  int size = handle->comm->size();
  std::vector<int> sources, degrees, destinations, weights;
  if (int error = readRanks(call, c, sourcesAddr, int(n), size, sources)) return error;
  const int32_t* degreeArray = int(n) ? intArray(call, c, degreesAddr, int(n), "degrees") : nullptr;
  if (int(n) && !degreeArray) return abi::kErrArg;
  int64_t edgeCount = 0;
  for (int i = 0; i < int(n); ++i) {
    if (degreeArray[i] < 0)
      return call.fail(c, abi::kErrArg, "negative degree " + std::to_string(degreeArray[i]));
    edgeCount += degreeArray[i];
    if (edgeCount > INT32_MAX / 12) return call.fail(c, abi::kErrArg, "too many edges");
  }
  if (int error = readRanks(call, c, destinationsAddr, int(edgeCount), size, destinations))
    return error;
  if (int error = readWeights(call, c, weightsAddr, int(edgeCount), weights)) return error;
  std::vector<GraphEdge> named;
  for (int i = 0, edge = 0; i < int(n); ++i)
    for (int k = 0; k < degreeArray[i]; ++k, ++edge)
      named.push_back({sources[size_t(i)], destinations[size_t(edge)], weights[size_t(edge)]});
  std::vector<GraphEdge> touching;
  if (int error = exchangeEdges(call, c, *handle, named, touching)) return error;
  auto graph = std::make_shared<GraphNeighbors>();
  graph->kind = abi::kTopoDistGraph;
  graph->weighted = weightsAddr != abi::kUnweighted;
  int me = handle->comm->rankOfWorld[call.rank.worldRank];
  for (const GraphEdge& edge : touching) {
    if (edge.destination == me) {
      graph->sources.push_back(edge.source);
      graph->sourceWeights.push_back(edge.weight);
    }
    if (edge.source == me) {
      graph->destinations.push_back(edge.destination);
      graph->destinationWeights.push_back(edge.weight);
    }
  }
  return makeGraphCommunicator(call, c, true, newcommOut, std::move(graph));
}

u32 Z_envZ_MPI_Dist_graph_neighbors_count(void* instance, u32 comm, u32 indegreeOut,
                                          u32 outdegreeOut, u32 weightedOut) {
  HostCall call(instance, "MPI_Dist_graph_neighbors_count");
  const GraphNeighbors* graph = nullptr;
  if (int error = graphOf(call, int(comm), abi::kTopoDistGraph, graph)) return error;
  if (!call.store<int32_t>(indegreeOut, int32_t(graph->sources.size())) ||
      !call.store<int32_t>(outdegreeOut, int32_t(graph->destinations.size())) ||
      !call.store<int32_t>(weightedOut, graph->weighted ? 1 : 0))
    return call.fail(int(comm), abi::kErrArg, "output pointer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Dist_graph_neighbors(void* instance, u32 comm, u32 maxindegree, u32 sourcesOut,
                                    u32 sourceWeightsOut, u32 maxoutdegree, u32 destinationsOut,
                                    u32 destinationWeightsOut) {
  HostCall call(instance, "MPI_Dist_graph_neighbors");
  const GraphNeighbors* graph = nullptr;
  if (int error = graphOf(call, int(comm), abi::kTopoDistGraph, graph)) return error;
  bool stored = storeInts(call, sourcesOut, graph->sources, int(maxindegree)) &&
                storeInts(call, destinationsOut, graph->destinations, int(maxoutdegree));
  if (stored && graph->weighted && !isWeightsSentinel(sourceWeightsOut))
    stored = storeInts(call, sourceWeightsOut, graph->sourceWeights, int(maxindegree));
  if (stored && graph->weighted && !isWeightsSentinel(destinationWeightsOut))
    stored = storeInts(call, destinationWeightsOut, graph->destinationWeights, int(maxoutdegree));
  if (!stored) return call.fail(int(comm), abi::kErrArg, "output array outside linear memory");
  return abi::kSuccess;
}

}  // extern "C"
