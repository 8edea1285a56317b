//===- RankState.cpp - one rank's MPI handles and call context -------------===//
#include "mpi/RankState.h"

#include <algorithm>
#include <cstdio>

#include "mpi/CommunicatorErrorHandlers.h"
#include "mpi/Window.h"

namespace synergy::mpi {

namespace {

// A granule that calls MPI without the launcher's -np (plain synergy-run)
// is a singleton job: MPI allows a lone process to initialise as a world of
// one, so such a program still runs. No launcher reports its aborts, so the
// world prints them itself.
World* singletonWorld(granule::Granule& granule) {
  static std::mutex mutex;
  static std::map<const granule::Granule*, std::unique_ptr<World>> worlds;
  std::lock_guard<std::mutex> guard(mutex);
  auto& world = worlds[&granule];
  if (!world) {
    world = std::make_unique<World>(1, /*ranksOwnCpus=*/false);
    world->reportAbortsItself();
  }
  return world.get();
}

// Another owner of `shared` whose reference count only this rank touches.
// Every message copies its communicator and datatype pointers into a
// request; with the ranks' counts in one shared control block, each copy
// would pull that cache line over from the rank that touched it last.
template <typename T>
std::shared_ptr<T> rankLocal(std::shared_ptr<T> shared) {
  if (!shared) return shared;
  T* object = shared.get();
  return std::shared_ptr<T>(std::make_shared<std::shared_ptr<T>>(std::move(shared)), object);
}

}  // namespace

RankState::RankState(granule::Granule& g) : granule(g) {
  auto [boundWorld, boundRank] = World::bindingOf(&g);
  if (boundWorld) {
    world = boundWorld;
    worldRank = boundRank;
  } else {
    world = singletonWorld(g);
    worldRank = 0;
    world->rankStarted(0);
  }
  completedSend_.kind = Request::Kind::Send;
  completedSend_.owner = worldRank;
  completedSend_.complete = true;
  // A pointer that owns nothing: the rank owns the Request, and looking
  // it up (a Wait or Test on the handle) needs no reference-count update.
  requests_.push_back(std::shared_ptr<Request>(std::shared_ptr<Request>(), &completedSend_));
  comms_.resize(3);
  comms_[abi::kCommWorld] = CommHandle{rankLocal(world->worldComm()), abi::kErrorsAreFatal};
  comms_[abi::kCommSelf] = CommHandle{rankLocal(world->selfComm(worldRank)), abi::kErrorsAreFatal};
  types_.push_back(nullptr);
  for (int handle = 1; handle <= abi::kLastPredefinedType; ++handle)
    types_.push_back(rankLocal(predefinedLayout(handle)));
  groups_.push_back(nullptr);
  groups_.push_back(std::make_shared<Group>());
}

std::string RankState::objectsNotCheckpointed() const { return notRecorded(false); }

std::string RankState::objectsNotMovable() const { return notRecorded(true); }

std::string RankState::notRecorded(bool moving) const {
  for (size_t i = 1; i < comms_.size(); ++i) {
    if (!comms_[i]) continue;
    if (comms_[i]->comm->inter) return "communicator " + std::to_string(i) + " is an intercommunicator";
    if (comms_[i]->graph) return "communicator " + std::to_string(i) + " has a graph topology";
  }
  for (const auto& [type, attributes] : typeAttributes)
    if (!attributes.empty()) return "an attribute is set on datatype " + std::to_string(type);
  // Handle 1 is the permanent one of every send that completed at once.
  for (size_t i = 1; i < requests_.size(); ++i) {
    if (!requests_[i]) continue;
    std::string why;
    if (!moving) return "request " + std::to_string(i + 1) + " is live";
    if (!carriedRequest(int(i + 1), why)) return why;
  }
  if (!windows_.empty() && !moving) return "a window is live";
  // A live move carries the windows it can (RemoteWindows.cpp).
  for (const auto& [handle, window] : windows_)
    if (std::string why = windowNotCarried(*this, *window); !why.empty()) return why;
  if (!windowErrorHandlers.empty()) return "a window error handler is live";
  if (!allocatedMemory.empty()) return "memory from MPI_Alloc_mem is live";
  // A live move carries the attached buffer with the requests.
  if (attachedBuffer && !moving) return "a buffer from MPI_Buffer_attach is attached";
  if (!matchedMessages.empty()) return "a matched message is not received yet";
  // MPI_INFO_ENV's entry is the runtime's, filled in when it is read.
  for (const auto& [info, entries] : infos)
    if (info != abi::kInfoEnv) return "info object " + std::to_string(info) + " is live";
  if (!userErrorCodes.empty()) return "the program added an error class or code";
  return {};
}

std::vector<std::pair<int, const CommHandle*>> RankState::commHandles() const {
  std::vector<std::pair<int, const CommHandle*>> live;
  for (size_t i = 1; i < comms_.size(); ++i)
    if (comms_[i]) live.emplace_back(int(i), &*comms_[i]);
  return live;
}

void RankState::restoreComm(int handle, CommHandle comm) {
  if (size_t(handle) >= comms_.size()) comms_.resize(size_t(handle) + 1);
  comm.comm = rankLocal(std::move(comm.comm));
  comms_[handle] = std::move(comm);
}

std::vector<std::pair<int, Layout>> RankState::derivedTypes() const {
  std::vector<std::pair<int, Layout>> live;
  for (size_t i = abi::kLastPredefinedType + 1; i < types_.size(); ++i)
    if (types_[i]) live.emplace_back(int(i), types_[i]);
  return live;
}

std::vector<std::pair<int, std::shared_ptr<const Group>>> RankState::madeGroups() const {
  std::vector<std::pair<int, std::shared_ptr<const Group>>> live;
  for (size_t i = abi::kGroupEmpty + 1; i < groups_.size(); ++i)
    if (groups_[i]) live.emplace_back(int(i), groups_[i]);
  return live;
}

void RankState::restoreType(int handle, Layout layout) {
  if (size_t(handle) >= types_.size()) types_.resize(size_t(handle) + 1);
  types_[handle] = std::move(layout);
}

void RankState::restoreGroup(int handle, std::shared_ptr<const Group> group) {
  if (size_t(handle) >= groups_.size()) groups_.resize(size_t(handle) + 1);
  groups_[handle] = std::move(group);
}

void RankState::restoreOps(std::map<int, UserOp> ops, int nextOp) {
  ops_ = std::move(ops);
  nextOp_ = nextOp;
}

int RankState::addComm(std::shared_ptr<Communicator> comm, int errhandler) {
  for (size_t i = 3; i < comms_.size(); ++i) {
    if (!comms_[i]) {
      comms_[i] = CommHandle{rankLocal(std::move(comm)), errhandler};
      return int(i);
    }
  }
  comms_.push_back(CommHandle{rankLocal(std::move(comm)), errhandler});
  return int(comms_.size() - 1);
}

void RankState::freeComm(int handle) {
  if (handle > abi::kCommSelf && size_t(handle) < comms_.size()) comms_[handle].reset();
}

int RankState::addType(Layout layout) {
  for (size_t i = abi::kLastPredefinedType + 1; i < types_.size(); ++i) {
    if (!types_[i]) {
      types_[i] = std::move(layout);
      return int(i);
    }
  }
  types_.push_back(std::move(layout));
  return int(types_.size() - 1);
}

void RankState::replaceType(int handle, Layout layout) { types_[handle] = std::move(layout); }

void RankState::freeType(int handle) {
  if (handle > abi::kLastPredefinedType && size_t(handle) < types_.size()) {
    types_[handle] = nullptr;
    typeNames.erase(handle);
  }
}

const UserOp* RankState::userOp(int handle) {
  auto it = ops_.find(handle);
  return it == ops_.end() ? nullptr : &it->second;
}

bool RankState::isOp(int handle) {
  return (handle >= 1 && handle <= abi::kLastPredefinedOp) || ops_.count(handle);
}

int RankState::addOp(UserOp op) {
  ops_[nextOp_] = op;
  return nextOp_++;
}

void RankState::freeOp(int handle) {
  auto it = ops_.find(handle);
  if (it == ops_.end()) return;
  bool requestLives = std::any_of(requests_.begin(), requests_.end(),
                                  [](const std::shared_ptr<Request>& request) { return request != nullptr; });
  if (requestLives)
    freedOps_.insert(*it);
  else
    freedOps_.clear();
  ops_.erase(it);
}

const UserOp* RankState::opOfStartedReduction(int handle) {
  if (const UserOp* live = userOp(handle)) return live;
  auto it = freedOps_.find(handle);
  return it == freedOps_.end() ? nullptr : &it->second;
}

std::shared_ptr<Request> RankState::request(int handle) {
  if (handle <= 0 || size_t(handle) > requests_.size()) return nullptr;
  return requests_[handle - 1];
}

int RankState::newRequestHandle() {
  if (freeRequests_.empty()) {
    requests_.emplace_back();
    return int(requests_.size());
  }
  int handle = freeRequests_.back();
  freeRequests_.pop_back();
  return handle;
}

int RankState::addRequest(std::shared_ptr<Request> request) {
  int handle = newRequestHandle();
  requests_[handle - 1] = std::move(request);
  return handle;
}

Request& RankState::spareReceive() {
  if (spareReceives_.empty()) spareReceives_.push_back(&receiveRecords_.emplace_back());
  return *spareReceives_.back();
}

int RankState::addSpareReceive() {
  int handle = newRequestHandle();
  // A pointer that owns nothing, as for the completed send: the rank owns
  // the record.
  requests_[handle - 1] = std::shared_ptr<Request>(std::shared_ptr<Request>(), spareReceives_.back());
  spareReceives_.pop_back();
  return handle;
}

void RankState::replaceRequest(int handle, std::shared_ptr<Request> request) {
  requests_[handle - 1] = std::move(request);
}

void RankState::freeRequest(int handle) {
  if (handle == kCompletedSendHandle) return;
  if (handle <= 0 || size_t(handle) > requests_.size() || !requests_[handle - 1]) return;
  std::shared_ptr<Request>& request = requests_[handle - 1];
  // Only the rank's own records (and the completed send) are named by a
  // pointer that owns nothing.
  if (request.use_count() == 0) {
    *request = Request();
    spareReceives_.push_back(request.get());
  }
  request = nullptr;
  freeRequests_.push_back(handle);
}

bool RankState::carriedRequest(int handle, std::string& why) const {
  if (handle <= 1 || size_t(handle) > requests_.size() || !requests_[handle - 1]) return true;
  const Request& request = *requests_[handle - 1];
  std::string name = "request " + std::to_string(handle);
  if (request.persistent) {
    // An inactive persistent request: its template travels.
    if (request.kind != Request::Kind::Send && request.kind != Request::Kind::Recv &&
        request.kind != Request::Kind::Null)
      why = name + " is a persistent request of a kind not carried";
  } else if (request.kind == Request::Kind::Collective ||
             request.kind == Request::Kind::Generalized) {
    why = name + (request.kind == Request::Kind::Collective ? " is a nonblocking collective"
                                                            : " is a generalized request");
  } else if (isCompleteNow(request)) {
    if (request.lender) why = name + " still reads its message where its sender holds it";
    else if (request.persistentOrigin)
      why = name + " is a started persistent request that completed and is not waited for";
  } else if (request.kind != Request::Kind::Recv) {
    why = name + " is a send still under way";
  } else if (request.awaitsRemoteData || request.mayBorrow || request.lender) {
    why = name + " is a receive that has matched and waits for its data";
  }
  return why.empty();
}

bool RankState::pendingRequestsCarried(std::string& why) const {
  for (size_t i = 1; i < requests_.size(); ++i)
    if (requests_[i] && requests_[i]->active && !isCompleteNow(*requests_[i]) &&
        !carriedRequest(int(i + 1), why))
      return false;
  return true;
}

void RankState::restoreRequest(int handle, std::shared_ptr<Request> request) {
  while (requests_.size() < size_t(handle)) {
    requests_.emplace_back();
    freeRequests_.push_back(int(requests_.size()));
  }
  freeRequests_.erase(std::remove(freeRequests_.begin(), freeRequests_.end(), handle),
                      freeRequests_.end());
  requests_[handle - 1] = std::move(request);
}

bool RankState::hasPendingRequests() const {
  for (const std::shared_ptr<Request>& request : requests_)
    if (request && request->active && !isCompleteNow(*request)) return true;
  return false;
}

std::shared_ptr<const Group> RankState::group(int handle) {
  if (handle <= 0 || size_t(handle) >= groups_.size()) return nullptr;
  return groups_[handle];
}

int RankState::addGroup(std::shared_ptr<const Group> group) {
  for (size_t i = 2; i < groups_.size(); ++i) {
    if (!groups_[i]) {
      groups_[i] = std::move(group);
      return int(i);
    }
  }
  groups_.push_back(std::move(group));
  return int(groups_.size() - 1);
}

void RankState::freeGroup(int handle) {
  if (handle > abi::kGroupEmpty && size_t(handle) < groups_.size()) groups_[handle] = nullptr;
}

std::shared_ptr<Window> RankState::window(int handle) {
  auto it = windows_.find(handle);
  return it == windows_.end() ? nullptr : it->second;
}

int RankState::addWindow(std::shared_ptr<Window> window) {
  window->handle = nextWindow_;
  windows_[nextWindow_] = std::move(window);
  return nextWindow_++;
}

void RankState::freeWindow(int handle) { windows_.erase(handle); }

const char* errorClassName(int errorClass) {
  switch (errorClass) {
    case abi::kSuccess: return "MPI_SUCCESS";
    case abi::kErrBuffer: return "MPI_ERR_BUFFER";
    case abi::kErrCount: return "MPI_ERR_COUNT";
    case abi::kErrType: return "MPI_ERR_TYPE";
    case abi::kErrTag: return "MPI_ERR_TAG";
    case abi::kErrComm: return "MPI_ERR_COMM";
    case abi::kErrRank: return "MPI_ERR_RANK";
    case abi::kErrRequest: return "MPI_ERR_REQUEST";
    case abi::kErrRoot: return "MPI_ERR_ROOT";
    case abi::kErrGroup: return "MPI_ERR_GROUP";
    case abi::kErrOp: return "MPI_ERR_OP";
    case abi::kErrTopology: return "MPI_ERR_TOPOLOGY";
    case abi::kErrDims: return "MPI_ERR_DIMS";
    case abi::kErrArg: return "MPI_ERR_ARG";
    case abi::kErrUnknown: return "MPI_ERR_UNKNOWN";
    case abi::kErrTruncate: return "MPI_ERR_TRUNCATE";
    case abi::kErrOther: return "MPI_ERR_OTHER";
    case abi::kErrIntern: return "MPI_ERR_INTERN";
    case abi::kErrInStatus: return "MPI_ERR_IN_STATUS";
    case abi::kErrPending: return "MPI_ERR_PENDING";
    case abi::kErrBase: return "MPI_ERR_BASE";
    case abi::kErrKeyval: return "MPI_ERR_KEYVAL";
    case abi::kErrNoMem: return "MPI_ERR_NO_MEM";
    case abi::kErrNotSame: return "MPI_ERR_NOT_SAME";
    case abi::kErrUnsupportedOperation: return "MPI_ERR_UNSUPPORTED_OPERATION";
    case abi::kErrWin: return "MPI_ERR_WIN";
    case abi::kErrRmaRange: return "MPI_ERR_RMA_RANGE";
    case abi::kErrRmaConflict: return "MPI_ERR_RMA_CONFLICT";
    case abi::kErrRmaSync: return "MPI_ERR_RMA_SYNC";
    case abi::kErrRmaAttach: return "MPI_ERR_RMA_ATTACH";
    case abi::kErrRmaFlavor: return "MPI_ERR_RMA_FLAVOR";
    case abi::kErrRmaShared: return "MPI_ERR_RMA_SHARED";
    case abi::kErrAccess: return "MPI_ERR_ACCESS";
    case abi::kErrAmode: return "MPI_ERR_AMODE";
    case abi::kErrBadFile: return "MPI_ERR_BAD_FILE";
    case abi::kErrFileExists: return "MPI_ERR_FILE_EXISTS";
    case abi::kErrFile: return "MPI_ERR_FILE";
    case abi::kErrIo: return "MPI_ERR_IO";
    case abi::kErrNoSpace: return "MPI_ERR_NO_SPACE";
    case abi::kErrNoSuchFile: return "MPI_ERR_NO_SUCH_FILE";
    case abi::kErrQuota: return "MPI_ERR_QUOTA";
    case abi::kErrReadOnly: return "MPI_ERR_READ_ONLY";
    case abi::kErrUnsupportedDatarep: return "MPI_ERR_UNSUPPORTED_DATAREP";
    default: return "MPI_ERR_UNKNOWN";
  }
}

const char* errorClassText(int errorClass) {
  switch (errorClass) {
    case abi::kSuccess: return "no error";
    case abi::kErrBuffer: return "invalid buffer pointer";
    case abi::kErrCount: return "invalid count argument";
    case abi::kErrType: return "invalid datatype";
    case abi::kErrTag: return "invalid tag";
    case abi::kErrComm: return "invalid communicator";
    case abi::kErrRank: return "invalid rank";
    case abi::kErrRequest: return "invalid request";
    case abi::kErrRoot: return "invalid root";
    case abi::kErrGroup: return "invalid group";
    case abi::kErrOp: return "invalid reduce operation";
    case abi::kErrTopology: return "invalid communicator topology";
    case abi::kErrDims: return "invalid topology dimension";
    case abi::kErrArg: return "invalid argument of some other kind";
    case abi::kErrTruncate: return "message truncated";
    case abi::kErrOther: return "known error not in this list";
    case abi::kErrIntern: return "internal error";
    case abi::kErrInStatus: return "error code is in status";
    case abi::kErrPending: return "pending request";
    case abi::kErrBase: return "invalid base address";
    case abi::kErrKeyval: return "invalid keyval";
    case abi::kErrNoMem: return "out of memory";
    case abi::kErrNotSame: return "collective arguments not identical on all processes";
    case abi::kErrUnsupportedOperation: return "unsupported operation";
    case abi::kErrWin: return "invalid window";
    case abi::kErrRmaRange: return "target memory is not part of the window";
    case abi::kErrRmaConflict: return "conflicting accesses to a window";
    case abi::kErrRmaSync: return "wrong synchronization of RMA calls";
    case abi::kErrRmaAttach: return "memory cannot be attached";
    case abi::kErrRmaFlavor: return "passed window has the wrong flavor for the called function";
    case abi::kErrRmaShared: return "memory cannot be shared";
    case abi::kErrAccess: return "permission denied";
    case abi::kErrAmode: return "invalid access mode";
    case abi::kErrBadFile: return "invalid file name";
    case abi::kErrFileExists: return "file exists";
    case abi::kErrFile: return "invalid file handle";
    case abi::kErrIo: return "input/output error";
    case abi::kErrNoSpace: return "not enough space";
    case abi::kErrNoSuchFile: return "file does not exist";
    case abi::kErrQuota: return "quota exceeded";
    case abi::kErrReadOnly: return "read-only file or file system";
    case abi::kErrUnsupportedDatarep: return "unsupported data representation";
    default: return "unknown error";
  }
}

int HostCall::fail(int comm, int errorClass, const std::string& reason) {
  CommHandle* handle = rank.comm(comm);
  if (!handle) {
    comm = abi::kCommWorld;
    handle = rank.comm(comm);
  }
  if (handle && handle->errhandler == abi::kErrorsReturn) return errorClass;
  if (handle && handle->errhandler != abi::kErrorsAreFatal) {
    callUserCommErrorHandler(*this, comm, handle->errhandler, errorClass);
    return errorClass;
  }
  std::string message = "rank " + std::to_string(rank.worldRank) + ": " + name + ": " + reason +
                        " (" + errorClassName(errorClass) + ")";
  world().abort(errorClass, message);
  exitGranule(errorClass);
}

void HostCall::leaveAbortedJob() { exitGranule(world().abortStatus()); }

void HostCall::exitGranule(int code) {
  // A thread granule's exit ends the process at once, before the launcher
  // could report the job's end (MpiJob.cpp), so the report is made here.
  if (granule.parent() && world().aborted()) {
    std::string message = world().takeAbortMessage();
    if (!message.empty()) std::fprintf(stderr, "synergy-run: %s\n", message.c_str());
  }
  if (callLock_) {
    // Every level: a nested call's HostCall does not unwind either.
    callLock_->releaseAll();
    callLock_ = nullptr;
  }
  granule.exit(code);
}

bool HostCall::storeStatus(uint32_t addr, int source, int tag, int error, int64_t count,
                           bool cancelled) {
  if (addr == abi::kStatusIgnore) return true;
  uint8_t* p = bytes(addr, abi::kStatusSize);
  if (!p) return false;
  int32_t cancelledField = cancelled ? 1 : 0;
  std::memcpy(p + abi::kStatusSourceOffset, &source, sizeof(source));
  std::memcpy(p + abi::kStatusTagOffset, &tag, sizeof(tag));
  if (reportsErrorsInStatuses) std::memcpy(p + abi::kStatusErrorOffset, &error, sizeof(error));
  std::memcpy(p + abi::kStatusCancelledOffset, &cancelledField, sizeof(cancelledField));
  std::memcpy(p + abi::kStatusCountOffset, &count, sizeof(count));
  return true;
}

}  // namespace synergy::mpi
