//===- RankState.h - one rank's MPI handles and call context ---------------===//
//
// The guest names MPI objects by small integers. Each rank has its own
// handle tables (communicators with their error handlers, datatypes, ops,
// requests, groups, windows), hung on its granule as a HostExtension. The
// predefined handles are filled in at creation.
//
// HostCall is the prologue of every MPI host function: it finds the rank
// (a pthread's calls act as the rank whose granule spawned it), takes the
// rank's call lock under MPI_THREAD_MULTIPLE (RankCallLock.h), resolves
// guest pointers without trapping (a bad pointer is an MPI error,
// not a crash), and raises errors through the communicator's error handler:
// MPI_ERRORS_RETURN hands the error class back, a user handler is called
// and then the class handed back, MPI_ERRORS_ARE_FATAL ends the whole job
// with a message naming the rank, the call and the reason.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "granule/Granule.h"
#include "snapshot/LinearMemory.h"
#include "mpi/Datatype.h"
#include "mpi/MpiAbi.h"
#include "mpi/World.h"

namespace synergy::mpi {

// An info object's (key, value) pairs, in the order the keys were first set.
using InfoEntries = std::vector<std::pair<std::string, std::string>>;

// A graph topology's neighbours of one member, in the order the neighbour
// collectives use them: MPI_Graph_create's edges of that member, or the
// member's side of an MPI_Dist_graph_create(_adjacent) graph
// (GraphTopologies.cpp).
struct GraphNeighbors {
  int kind = 0;  // MPI_GRAPH or MPI_DIST_GRAPH
  std::vector<int> sources, sourceWeights;
  std::vector<int> destinations, destinationWeights;
  bool weighted = false;
  // MPI_GRAPH: every member's MPI_Graph_create index and edges arrays.
  std::vector<int> graphIndex, graphEdges;
};

// An attribute a program hung on an MPI object: a guest pointer-sized word,
// and when it was set, counted per rank. Delete callbacks run newest set
// first, which MPI requires of MPI_COMM_SELF's at MPI_Finalize (MPI-4.0
// section 11.2.4) and OpenMPI does for every object.
struct Attribute {
  uint32_t value;
  uint64_t setOrder;
};
// One object's attributes by keyval; copy callbacks run in keyval order.
using AttributeMap = std::map<int, Attribute>;

struct CommHandle {
  std::shared_ptr<Communicator> comm;
  int errhandler = abi::kErrorsAreFatal;
  // MPI_Comm_set_attr values by keyval.
  AttributeMap attributes;
  // Set on a communicator with a graph topology; a duplicate shares it.
  std::shared_ptr<const GraphNeighbors> graph;
};

struct Group {
  std::vector<int> worldRanks;
};

struct UserOp {
  uint32_t function;  // guest function-table index
  bool commutative;
};

struct Window;

class RankState : public granule::HostExtension {
 public:
  explicit RankState(granule::Granule& granule);

  granule::Granule& granule;
  World* world = nullptr;
  int worldRank = -1;
  bool initialized = false;
  bool finalized = false;
  // What MPI_Init_thread provided (MPI_Init: MPI_THREAD_SINGLE).
  int threadLevel = abi::kThreadSingle;
  // Guest blocks from MPI_Alloc_mem not yet given back (MemoryAllocation.cpp).
  std::set<uint32_t> allocatedMemory;
  // The buffer MPI_Buffer_attach gave, until MPI_Buffer_detach hands it
  // back (PointToPoint.cpp); buffered sends copy eagerly without it.
  struct AttachedBuffer {
    uint32_t address;
    int32_t size;
  };
  std::optional<AttachedBuffer> attachedBuffer;
  // Guest cells for attribute calls, allocated at the first one that needs
  // them (CommunicatorAttributes.cpp).
  uint32_t attributeCellsGuest = 0;
  // Keyvals the program created, by handle (CommunicatorAttributes.cpp).
  struct Keyval {
    uint32_t copyFunction;    // guest table index; 0 is MPI_COMM_NULL_COPY_FN
    uint32_t deleteFunction;  // 0 is MPI_COMM_NULL_DELETE_FN
    uint32_t extraState;
    bool freed = false;       // by MPI_Comm_free_keyval; attributes may still use it
  };
  std::map<int, Keyval> keyvals;
  int nextKeyval = abi::kFirstUserKeyval;
  // The setOrder of the next attribute set on any object.
  uint64_t nextAttributeOrder = 0;
  // Attributes of datatypes, by datatype handle, then keyval
  // (DatatypeAttributes.cpp).
  std::map<int, AttributeMap> typeAttributes;
  // Error codes the program added with MPI_Add_error_class/code, by code
  // (UserErrors.cpp): the class each belongs to (a new class is its own
  // code) and its MPI_Add_error_string text.
  struct UserErrorCode {
    int errorClass;
    std::string text;
  };
  std::map<int, UserErrorCode> userErrorCodes;
  int lastUsedErrorCode = abi::kErrLastCode;
  // Names given to datatypes with MPI_Type_set_name, by handle
  // (DatatypeNames.cpp); a predefined type without one has its MPI name.
  std::map<int, std::string> typeNames;
  // The same for windows, by window handle (WindowAttributes.cpp).
  std::map<int, AttributeMap> windowAttributes;
  // Windows this rank made on each communicator that spans hosts, by
  // context: with the context, the id all hosts know such a window by
  // (RemoteWindows.cpp).
  std::map<uint32_t, uint32_t> windowsSpanningHostsOn;
  // Nonblocking collectives this rank has started, by communicator context
  // (NonblockingCollectives.cpp tags their messages with the count).
  std::map<uint32_t, uint32_t> nonblockingCollectivesOn;
  // Error handlers made with MPI_Win_create_errhandler: their guest
  // function-table indices, by handle (WindowErrorHandlers.cpp).
  std::map<int, uint32_t> windowErrorHandlers;
  // The same for MPI_Comm_create_errhandler (CommunicatorErrorHandlers.cpp);
  // both draw their handles from nextErrorHandler.
  std::map<int, uint32_t> commErrorHandlers;
  int nextErrorHandler = abi::kErrorsReturn + 1;
  // Messages MPI_Mprobe and MPI_Improbe took out of matching, by message
  // handle, until MPI_Mrecv or MPI_Imrecv receives them (MatchedProbe.cpp).
  struct MatchedMessage {
    Arrival arrival;
    std::shared_ptr<Communicator> comm;
    int commHandle;
  };
  std::map<int, MatchedMessage> matchedMessages;
  int nextMessage = abi::kMessageNoProc + 1;
  // Info objects by handle (InfoObjects.cpp); MPI_INFO_ENV's entry is
  // filled in when it is read.
  std::map<int, InfoEntries> infos;
  int nextInfo = abi::kInfoEnv + 1;
  // The tool information interface (ToolInterface.cpp): how many
  // MPI_T_init_thread calls no MPI_T_finalize has matched yet, and the
  // performance-variable sessions open by handle.
  int toolInitCount = 0;
  std::set<int> toolSessions;
  int nextToolSession = 1;

  CommHandle* comm(int handle) {
    if (handle <= 0 || size_t(handle) >= comms_.size() || !comms_[handle]) return nullptr;
    return &*comms_[handle];
  }
  int addComm(std::shared_ptr<Communicator> comm, int errhandler);
  void freeComm(int handle);

  const Layout& type(int handle) {  // null when not a live handle
    if (handle <= 0 || size_t(handle) >= types_.size()) return noType_;
    return types_[handle];
  }
  int addType(Layout layout);
  void replaceType(int handle, Layout layout);
  void freeType(int handle);

  // Predefined ops are 1..kLastPredefinedOp; user ops come after.
  const UserOp* userOp(int handle);
  bool isOp(int handle);
  int addOp(UserOp op);
  void freeOp(int handle);
  // The user op a reduction that has already started applies, also when
  // MPI_Op_free freed its handle since: MPI frees an object only once the
  // operations using it have completed (a nonblocking or persistent
  // collective may be waited for after the free).
  const UserOp* opOfStartedReduction(int handle);

  std::shared_ptr<Request> request(int handle);
  // The request behind a live handle, or null, without a reference-count
  // update: the table keeps it alive until the handle is freed or replaced.
  Request* borrowRequest(int handle) {
    if (handle <= 0 || size_t(handle) > requests_.size()) return nullptr;
    return requests_[handle - 1].get();
  }
  int addRequest(std::shared_ptr<Request> request);
  // The handle of every send that completed when it started (an eager
  // copy): one permanent handle to one shared Request, which freeRequest()
  // leaves in place. A burst of nonblocking sends that go eager then costs
  // no Request and no handle-table update, on posting or on completion;
  // MPI lets a completed request's handle be any value its calls accept.
  int completedSend() const { return kCompletedSendHandle; }
  // A receive that completes as it is posted needs no Request of its own
  // beyond its handle's life, so it takes one of the rank's records rather
  // than a shared one: spareReceive() is a fresh record to fill in,
  // addSpareReceive() gives it a handle, and freeRequest() makes it fresh
  // again for the next. clearSpareReceive() makes it fresh after a use
  // that ended otherwise.
  Request& spareReceive();
  int addSpareReceive();
  void clearSpareReceive() { *spareReceives_.back() = Request(); }
  void replaceRequest(int handle, std::shared_ptr<Request> request);
  // Whether some request handle names an operation still under way (an
  // inactive persistent request, or a completed one not yet waited for, is
  // not).
  bool hasPendingRequests() const;
  // Whether every pending request is one a live move carries; else `why`
  // names the first that is not (carriedRequest).
  bool pendingRequestsCarried(std::string& why) const;
  // Whether a window is live: its members' memory is addressed from the
  // host (Window::bases), which a rewind into a fresh instance would leave
  // dangling.
  bool hasLiveWindow() const { return !windows_.empty(); }
  void freeRequest(int handle);

  std::shared_ptr<const Group> group(int handle);
  int addGroup(std::shared_ptr<const Group> group);
  void freeGroup(int handle);

  // Empty, or names an MPI object the program made and has not freed that
  // a checkpoint file does not hold (an intercommunicator, a graph
  // topology, a request, a window or its error handler, an MPI_Alloc_mem
  // block, an attribute on a datatype, an info object, an added error
  // code; see checkpoint/MpiObjectRecord.h for those it does hold).
  std::string objectsNotCheckpointed() const;
  // The same for a live move (checkpoint/RankMove.h), which carries the
  // rank's requests too: completed ones not yet freed, and receives posted
  // and not yet matched (carriedRequest); the first request it cannot
  // carry, or objectsNotCheckpointed's other reasons.
  std::string objectsNotMovable() const;
  // Whether a live move carries the request of handle `handle` (and so
  // whether it lets the rank move while the request is pending).
  bool carriedRequest(int handle, std::string& why) const;
  // The request table's handles, 1 to requestHandles() (a live move's
  // capture), and a request put back at its handle (its arrival).
  int requestHandles() const { return int(requests_.size()); }
  int typeHandles() const { return int(types_.size()); }
  void restoreRequest(int handle, std::shared_ptr<Request> request);

  // What a checkpoint records of the objects above (MpiObjectRecord.h):
  // the communicator handles (MPI_COMM_WORLD's and MPI_COMM_SELF's among
  // them), live derived datatypes, groups and user-defined ops by handle,
  // and their restoring under the same handles into a fresh rank (the
  // tables grow to a handle with free entries below it, as they had).
  std::vector<std::pair<int, const CommHandle*>> commHandles() const;
  void restoreComm(int handle, CommHandle comm);
  std::vector<std::pair<int, Layout>> derivedTypes() const;
  std::vector<std::pair<int, std::shared_ptr<const Group>>> madeGroups() const;
  const std::map<int, UserOp>& userOps() const { return ops_; }
  int nextOpHandle() const { return nextOp_; }
  void restoreType(int handle, Layout layout);
  void restoreGroup(int handle, std::shared_ptr<const Group> group);
  void restoreOps(std::map<int, UserOp> ops, int nextOp);

  std::shared_ptr<Window> window(int handle);
  int addWindow(std::shared_ptr<Window> window);
  void freeWindow(int handle);

 private:
  // Deques, so that a reference into them stays good while they grow: under
  // MPI_THREAD_MULTIPLE another thread of the rank may make a communicator
  // or a datatype while a call that holds one waits.
  std::deque<std::optional<CommHandle>> comms_;
  std::deque<Layout> types_;
  Layout noType_;
  std::map<int, UserOp> ops_;
  // Ops freed while a request lived that may still apply them, kept until a
  // later MPI_Op_free finds no request alive (handles are never reused).
  std::map<int, UserOp> freedOps_;
  int nextOp_ = abi::kLastPredefinedOp + 1;
  // Handle h is requests_[h - 1]; freed handles are reused, most recent
  // first, so that a window of nonblocking calls keeps reusing a few slots.
  std::deque<std::shared_ptr<Request>> requests_;
  std::vector<int> freeRequests_;
  int newRequestHandle();  // an empty entry of requests_
  // objectsNotCheckpointed, or (`moving`) objectsNotMovable.
  std::string notRecorded(bool moving) const;
  static constexpr int kCompletedSendHandle = 1;
  Request completedSend_;
  std::deque<Request> receiveRecords_;  // never moves its elements
  std::vector<Request*> spareReceives_;
  std::vector<std::shared_ptr<const Group>> groups_;
  std::map<int, std::shared_ptr<Window>> windows_;
  int nextWindow_ = 1;
};

// The name of an error class, for messages and MPI_Error_string.
const char* errorClassName(int errorClass);
const char* errorClassText(int errorClass);

class HostCall {
 public:
  // A nonblocking send may leave the rank's earlier ones unpublished; every
  // other call publishes them first (World::publishSends).
  enum class EarlierSends { Publish, MayStayUnpublished };

  // Inline, like typedBuffer() and refreshMemorySize(): every host
  // function runs them, and a call's stores of saved registers would queue
  // behind a nonblocking send's stores to its ring.
  HostCall(void* instance, const char* callName, EarlierSends earlier = EarlierSends::Publish)
      : granule(granule::Granule::fromHost(instance)),
        rank(rankOf(granule)),
        name(callName),
        memoryBase_(granule.linearMemory() ? granule.linearMemory()->base() : nullptr),
        memorySize_(0) {
    RankCallLock& lock = rank.world->callLock(rank.worldRank);
    if (lock.enabled()) {
      lock.lock();
      callLock_ = &lock;
    }
    refreshMemorySize();
    if (earlier == EarlierSends::Publish) rank.world->publishSends(rank.worldRank);
  }
  ~HostCall() {
    if (callLock_) callLock_->unlock();
  }
  HostCall(const HostCall&) = delete;
  HostCall& operator=(const HostCall&) = delete;

  // The rank a granule's calls act as: its own, or for a thread granule
  // that of the process granule it was spawned from.
  static RankState& rankOf(granule::Granule& caller) {
    granule::Granule* process = &caller;
    while (process->parent()) process = process->parent();
    return process->extension<RankState>();
  }

  granule::Granule& granule;
  RankState& rank;
  const char* name;
  // Set by the calls that complete several requests (MPI_Waitall,
  // _Testall, _Waitsome, _Testsome): only they report a request's error in
  // a status's MPI_ERROR (MPI-3.1 §3.2.5); every other call leaves that
  // field as the program set it, as MPICH's pt2pt/mprobe checks.
  bool reportsErrorsInStatuses = false;

  World& world() { return *rank.world; }

  // Raises `errorClass` on communicator handle `comm` (or MPI_COMM_WORLD's
  // handler when it is not a valid handle). Returns the error class under
  // MPI_ERRORS_RETURN, and after calling it under a user handler; ends the
  // job under MPI_ERRORS_ARE_FATAL.
  int fail(int comm, int errorClass, const std::string& reason);
  // Ends this rank because the job is over (another rank aborted).
  [[noreturn]] void leaveAbortedJob();
  // Ends the calling granule with `code`; the rank's call lock is let go
  // first, since the granule's exit skips this call's destructor and the
  // rank's other threads must still get through to see the job's end.
  [[noreturn]] void exitGranule(int code);

  // Guest memory [addr, addr+bytes), or nullptr when outside linear memory.
  uint8_t* bytes(uint64_t addr, uint64_t count) { return inMemory(addr, count) ? memoryBase_ + addr : nullptr; }
  // A typed buffer: the host address of guest `addr` when every byte that
  // `count` instances of `type` touch lies in linear memory.
  uint8_t* typedBuffer(uint32_t addr, const TypeLayout& type, int64_t count, bool& ok) {
    ByteSpan span = touchedSpan(type, count);
    ok = true;
    if (span.empty()) return memoryBase_ + addr;
    int64_t first = int64_t(addr) + span.first;
    int64_t last = int64_t(addr) + span.last;
    if (first < 0 || !inMemory(uint64_t(first), uint64_t(last - first))) {
      ok = false;
      return nullptr;
    }
    return memoryBase_ + addr;
  }
  template <typename T>
  bool store(uint32_t addr, T value) {
    uint8_t* p = bytes(addr, sizeof(T));
    if (!p) return false;
    std::memcpy(p, &value, sizeof(T));
    return true;
  }
  template <typename T>
  bool load(uint32_t addr, T& value) {
    uint8_t* p = bytes(addr, sizeof(T));
    if (!p) return false;
    std::memcpy(&value, p, sizeof(T));
    return true;
  }
  // Writes a status unless `addr` is MPI_STATUS_IGNORE; its MPI_ERROR only
  // when reportsErrorsInStatuses.
  bool storeStatus(uint32_t addr, int source, int tag, int error, int64_t bytes,
                   bool cancelled = false);

 private:
  // Looks at the memory's size again; true when it has grown. A call reads
  // its arguments many times, so it takes the size once, at the start,
  // and again only when an address seems out of bounds: guest code it
  // runs (a user-defined reduction) may have grown the memory meanwhile.
  // The base never moves.
  bool refreshMemorySize() {
    uint64_t size = granule.linearMemory() ? granule.linearMemory()->sizeBytes() : 0;
    if (size == memorySize_) return false;
    memorySize_ = size;
    return true;
  }
  // Whether [addr, addr+count) lies in linear memory, looking at its size
  // again before answering no.
  bool inMemory(uint64_t addr, uint64_t count) {
    auto fits = [&] { return addr <= memorySize_ && count <= memorySize_ - addr; };
    return fits() || (refreshMemorySize() && fits());
  }

  uint8_t* memoryBase_;
  uint64_t memorySize_;
  RankCallLock* callLock_ = nullptr;  // held for this call
};

}  // namespace synergy::mpi
