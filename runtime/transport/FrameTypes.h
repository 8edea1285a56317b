//===- FrameTypes.h - The host-to-host wire format -------------------------===//
//
// Every frame between two Synergy hosts is a fixed 16-byte header followed by
// a payload of the length the header states:
//
//   offset  size  field
//        0     4  magic "SYN1"
//        4     2  frame type (FrameType), little-endian
//        6     2  reserved, must be zero
//        8     8  payload length in bytes, little-endian
//
// The length is 64 bits wide so that an absurd length (4 GiB and more) is
// representable and refused rather than silently truncated. Each type has its
// own maximum payload (maxPayloadBytes); a receiver checks the header against
// it before it allocates anything. The first frame on a connection must be a
// Hello carrying the cluster token; the accepting side answers HelloAck.
//
// This header is the whole protocol definition: tests and other languages
// construct frames from it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace synergy::transport {

enum class FrameType : uint16_t {
  // Client to server, first frame only: the cluster token, raw bytes.
  Hello = 1,
  // Server to client: the token was accepted. Empty payload.
  HelloAck = 2,
  // Either direction: liveness and round-trip probe; answered by a Pong with
  // the same payload.
  Ping = 3,
  Pong = 4,
  // Client to host: run a job here (cluster/JobMessages.h, RunJobRequest).
  RunJob = 5,
  // Host to client: send the module named in RunJob; this host lacks it.
  // Empty payload. The client answers with ModuleHead and ModuleChunk
  // frames (7 was the single-frame ModuleData they replace).
  ModuleWanted = 6,
  // Host to client: one stream byte (1 stdout, 2 stderr), then output bytes
  // in the order the job wrote them.
  JobOutput = 8,
  // Host to client: the job's exit status, 4 bytes little-endian.
  JobExit = 9,
  // Host to client: the job will not run here; a one-line reason.
  JobRefused = 10,
  // Between the processes that run one job's ranks on different hosts.
  // First frame from the connecting side: u64 job id, u32 part index.
  MpiHello = 11,
  // A point-to-point message (cluster/MpiPeerLink.h, kMpiMessageHeaderBytes):
  // u32 sender world rank, u32 receiver world rank, u32 context,
  // i32 sender's communicator rank, i32 tag, u64 match id (0 unless
  // synchronous), then the data.
  MpiMessage = 12,
  // The receiver of a synchronous send matched it: u32 sender world rank,
  // u64 match id; optionally then u64 eager credit given back, nonzero (as
  // a MpiEagerCredit would: the message's charge and any other gathered).
  MpiMatched = 13,
  // This part of the job aborted (MPI_Abort, errors-are-fatal, a rank's
  // nonzero exit): u32 exit status, 1 to 255. The receiving part stops its
  // ranks with that status, so that every part ends and forwards all its
  // output rather than waiting for messages that will never come.
  MpiAbort = 14,
  // A one-sided operation on a window member of the receiving host
  // (mpi/RemoteRanks.h, RemoteRmaOp): u32 origin world rank, u32 target
  // world rank, u64 window id, u64 operation id, u8 kind, u8 element kind,
  // u16 zero, i32 op, u32 run count; then each run's i64 offset from the
  // target's window base and i64 length; then the data.
  MpiRma = 15,
  // The operation was applied: u32 origin world rank, u64 operation id,
  // then the target contents it fetched (Get, GetAccumulate, CompareAndSwap).
  MpiRmaDone = 16,
  // A point-to-point message whose data is larger than one MpiMessage
  // carries: the MpiMessage header, then u64 data bytes (more than
  // kMaxMpiMessageDataBytes, at most kMaxMpiMessageBytes). Its data follows
  // at once, on the same connection, in MpiMessagePart frames; no other MPI
  // frame comes between them.
  MpiMessageHead = 17,
  // The next bytes of the data a MpiMessageHead announced, at most what is
  // still missing.
  MpiMessagePart = 18,
  // What the sending part's ranks are doing, for the job-wide deadlock
  // check (cluster/MpiPeerLink.h), sent to every other part that has not
  // finished whenever it changes: u32 part index, u8 flags (1: every rank blocked or finished,
  // 2: every rank finished, 4 with 2: left, no more rendezvous data; no other bits), 3 zero bytes,
  // u64 version
  // (grows with every change), u64 MPI frames sent to and u64 received from
  // other parts, u32 line count (0, or the part's rank count), then per
  // line u32 world rank (the part's ranks in order), u32 length (at most
  // kMaxMpiWaitLineBytes, printable ASCII) and the text.
  MpiHostState = 19,
  // The hypervisor protocol (hypervisor/HypervisorProtocol.h gives every
  // payload's layout): a tenant's runtime or synergy-hv-ctl to synergy-hv,
  // after the token handshake. All integers little-endian.
  // First frame: u32 protocol version; answered by HvWelcome (u32 version).
  HvHello = 20,
  HvWelcome = 21,
  // The tenant's engine manifest (.eng text); answered by HvEngineReady
  // (u32 engine id) once its engine runs, or HvRefused.
  HvSubmitEngine = 22,
  HvEngineReady = 23,
  // One request per engine ABI operation, each opening with the u32 engine
  // id. get_state: u32 state id, u32 element, u32 word; answered by
  // HvStateWord (u64).
  HvGetState = 24,
  HvStateWord = 25,
  // set_state: u32 state id, u32 element, u32 word, u64 data; HvDone.
  HvSetState = 26,
  // evaluate: u64 edge budget; answered by HvEvaluated (u32 task, u64
  // budget left, then the trapped task's argument words: u32 count, count
  // records of u32 state id, u32 element, u32 word, u64 data).
  HvEvaluate = 27,
  HvEvaluated = 28,
  // resume (__cont), update and finalize: no more; HvDone.
  HvResume = 29,
  HvUpdate = 30,
  // there_are_updates: answered by HvFlag (u32 0 or 1).
  HvThereAreUpdates = 31,
  HvFlag = 32,
  // open_loop: u32 ticks, u64 edges per tick; answered by HvOpenLooped
  // (u32 ticks run, u32 trap count, then each trap: u32 task, u32 ticks
  // started, u32 word count and its argument words as for HvEvaluated; all
  // but the last are output-only tasks the run went past). Protocol 5 adds
  // read-ahead windows to the request and their advances to the reply
  // (hypervisor/HypervisorProtocol.h).
  HvOpenLoop = 33,
  HvOpenLooped = 34,
  HvFinalize = 35,
  HvDone = 36,
  // Any request the hypervisor will not serve: a one-line reason.
  HvRefused = 37,
  // synergy-hv-ctl status: empty; answered by HvStatusReport, text lines.
  HvStatus = 38,
  HvStatusReport = 39,
  // Buffered set_state writes and the engine request that follows them, in
  // one frame: u32 engine id, u32 count, count records of u32 state id, u32
  // element, u32 word, u64 data; then u32 frame type and that request's own
  // record (or type 0 and nothing: HvDone once the writes are done). The
  // reply is the request's.
  HvBatch = 40,
  // synergy-hv-ctl migrate: text "ENGINE HOST:PORT", a newline, then the
  // hypervisor's admin token (raw bytes); HvDone once the engine is marked
  // to leave, or HvRefused.
  HvMigrate = 41,
  // The answer, in place of the reply, to the first engine request of a
  // marked engine that stands between two ticks: text "HOST:PORT". The
  // request was not served; the tenant reads its state, carries it to that
  // hypervisor and sends the request there (RemoteEngine.cpp).
  HvMoveTo = 42,
  // Many get_state reads at once (a migration's): u32 engine id, u32 count,
  // count addresses of u32 state id, u32 element, u32 word; answered by
  // HvStateWords (u32 count, then the records as in HvEvaluated, in order).
  HvReadState = 43,
  HvStateWords = 44,
  // Between the parts of one job again (cluster/MpiPeerLink.h): the part
  // about to report a deadlock asks every other unfinished part to confirm
  // that its state has not changed since its last MpiHostState: u64 round.
  MpiStateCheck = 45,
  // The answer: u64 round, u64 the part's state version, u8 1 when its
  // state is still that version's (0: it changed, a MpiHostState follows),
  // 7 zero bytes.
  MpiStateConfirm = 46,
  // Client to host, after ModuleWanted: the module's length, u64 (1 to
  // kMaxModuleBytes). Its bytes follow in order in ModuleChunk frames: u64
  // offset (where the previous chunk ended), then at most
  // kMaxModuleChunkBytes bytes. Once all have come, the host checks them
  // against the content hash in RunJob (cluster/ModuleAssembly.h).
  ModuleHead = 47,
  ModuleChunk = 48,
  // Cross-host rendezvous (mpi/RemoteRendezvous.cpp): a message of at
  // least the sending host's rendezvous threshold travels as its envelope
  // first, and its data only once a receive has matched it.
  // The envelope: the MpiMessageHead layout, whose match id is the
  // sender's nonzero rendezvous id and whose u64 states the data bytes (1
  // to kMaxMpiMessageBytes). No data follows; the receiving host matches it
  // like any message.
  MpiRequestToSend = 49,
  // Receiver to sender, once a receive matched it: u32 sender world rank,
  // u32 receiver world rank, u64 the sender's rendezvous id, u64 the id
  // (nonzero) under which the receiving host waits for the data.
  MpiClearToSend = 50,
  // Sender to receiver: u32 receiver world rank, u32 zero, u64 the
  // receiving host's id from MpiClearToSend, u64 data bytes (those the
  // MpiRequestToSend stated). The data follows at once, on the same
  // connection, in MpiMessagePart frames, as after a MpiMessageHead.
  MpiRendezvousData = 51,
  // Between the parts of a job that checkpoints (cluster/CheckpointAgreement.h),
  // part 0 deciding for all. A part at a barrier control point votes:
  // u64 round, u8 phase (1; 2 answers a recount; 3 and 4 a live move's;
  // 5 answers an ask for a meeting: the round is the ask's and the frames
  // sent the last control point passed), u8 1 when every rank of
  // the part can suspend and no message waits there, u64 the MPI frames it
  // sent to and u64 received from other parts, u32 bytes + the reason when
  // it cannot (at most kMaxRefusalBytes).
  CheckpointVote = 52,
  // Part 0's decision: u64 round, u8 1 to suspend (0 not; 2-4 a live
  // move's; 5 asks where the part's ranks stand, the round the ask's
  // number; 6 names the control point where they meet, as the round; 7
  // tells a live move's target to take the rank in; 9 releases the parts
  // held at a live move's control point, the move postponed to the next
  // one, which every part then meets at), u64
  // the checkpoint's number, u32 bytes + why not (at most
  // kMaxRefusalBytes).
  CheckpointDecision = 53,
  // Part 0 asks for a part's frame counts again: u64 round.
  CheckpointRecount = 54,
  // A part's sections of a checkpoint are written: u64 the checkpoint's
  // number, u8 1 (0: they could not be), u64 the part's stdout bytes.
  CheckpointWritten = 55,
  // A part other than 0 to part 0 when their hosts share no checkpoint
  // directory (synergyd --checkpoint-root): its part file of a checkpoint,
  // in order, right before its CheckpointWritten (checkpoint/PartFileChunks.h):
  // u64 the checkpoint's number, u64 offset, u64 file bytes, then at most
  // kMaxCheckpointPartChunkBytes of the file, at least one.
  CheckpointPartData = 69,
  // The second copy of a checkpoint when the hosts share no checkpoint
  // directory. Part 0 to the mirror (part 1, on another host), once it has
  // committed the file: the file, in chunks laid out as CheckpointPartData's.
  // The mirror to part 0 once the last chunk is in and its checksum checked:
  // u64 the checkpoint's number, u8 1 when it replaced its copy (0: not).
  // Also, in the same chunks, part 0 of a resumed job to every other part:
  // the checkpoint they restore from, which only part 0's host holds.
  CheckpointCopy = 66,
  // The second copy of a checkpoint of a job that runs as one part (its
  // ranks all on one host), to another host's synergyd with
  // --checkpoint-root, which holds it in the job's directory below its root
  // (CheckpointAgreement.h). Part 0 to that daemon: u64 job id, u32 bytes +
  // the client's checkpoint directory (absolute, at most
  // kMaxCheckpointMirrorDirectoryBytes), then one chunk laid out as
  // CheckpointPartData's. The daemon to part 0 once the last chunk is in
  // and the file checked: u64 the checkpoint's number, u8 1 when it
  // replaced its copy (0: not).
  CheckpointMirror = 88,
  // The client of a cluster job that ended with status 0 to each daemon
  // that holds a copy of its last checkpoint (the holders the cluster state
  // records, cluster/CheckpointHolders.h), once no restart can use it: u64
  // job id, u32 bytes + the client's checkpoint directory (as in
  // CheckpointMirror). The daemon removes its copy and the one before it
  // (the spare) from that directory below its --checkpoint-root, only when
  // the job's record names it as a holder, and answers: u64 job id, u8 how
  // many files it removed (0 to 2).
  CheckpointForget = 89,
  // OpenMP threads on other hosts (snapshot/CopyLink.h gives the payload):
  // main host to thread host, the bytes of the main memory that host's copy
  // lacks, at the start of a region (the whole memory the first time);
  // thread host to main host, what its threads wrote, at the join.
  OmpCopyUpdate = 56,
  OmpJoinUpdate = 57,
  // Main host to thread host, after an OmpCopyUpdate: the threads of a
  // parallel region it runs, their stacks and the region's arguments
  // (omp/RegionShare.h).
  OmpRegionShare = 58,
  // Main host to thread host, first on the connection: u64 job id, u32 the
  // thread host's part index (cluster/ThreadHostLink.h).
  OmpThreadHello = 59,
  // Thread host to main host, right after an OmpJoinUpdate sent at a
  // reduction: u32 the guest address of its first thread's reduction list.
  OmpReductionList = 60,
  // Eager credit (mpi/RemoteRanks.h): the receiving part bounds the eager
  // data of another part that its ranks have not received yet.
  // Its first frame after MpiHello (either direction): u64 the eager bytes
  // (1 to kMaxMpiEagerGrantBytes) the other part may send it unasked.
  MpiEagerGrant = 62,
  // Bytes of that grant its ranks received, given back: u64, 1 to what
  // the other part holds out.
  MpiEagerCredit = 63,
  // A migration applied at a barrier control point (cluster/Migration.h),
  // part 0 to every other part of a job that checkpoints. Right before the
  // CheckpointDecision that suspends for it: u64 round.
  MigrationStop = 64,
  // Once part 0 has committed (or failed to commit) that checkpoint: u64
  // the checkpoint's number, u8 1 when every part now ends to be moved
  // (0: the job goes on).
  MigrationOutcome = 65,
  // Hypervisor to tenant (protocol 6), while it serves an open-loop run
  // (HvOpenLoop, alone or ending an HvBatch) that has gone on for 100 ms:
  // u32 engine id, u32 ticks the run has completed so far, u32 tasks it has
  // gone past or served from read-ahead windows so far. At most one per
  // 100 ms, each before the run's reply; the tenant's --timeline shows them
  // while the run goes on.
  HvRunProgress = 70,
  // OpenMP threads on other hosts, inside a region (omp/SyncMessages.h):
  // thread host to main host, one synchronisation of one of its threads (a
  // barrier, lock, single, loop chunk, ...), after the OmpJoinUpdate that
  // releases its writes when the operation releases; main host to thread
  // host, the answer to one, after the OmpCopyUpdate that brings the copy
  // up to date when the operation acquires.
  OmpSyncRequest = 67,
  OmpSyncReply = 68,
  // Main host to thread host, after an OmpCopyUpdate: one pthread to run
  // there (omp/RemotePthreads.h): u64 sequence of that update, u32 x 6
  // pthread id, global thread id, start routine, argument, stack top, TLS
  // block. Its synchronisations travel as OmpSyncRequest and OmpSyncReply.
  OmpPthreadStart = 87,
  // A live move's section (cluster/RankSectionTransfer.h): one rank's
  // encoded state (checkpoint/RankMove.h, ending with its CRC-32C), shipped
  // from the part it leaves to the part it joins. Part 0 to the source and
  // the target part: u64 move id (nonzero), u32 world rank, u32 source
  // part, u32 target part, u32 zero, u64 the section's bytes
  // (kMinRankSectionBytes to kMaxRankSectionBytes).
  RankMoveAnnounce = 90,
  // Target to source, once it has made room for the section: u64 move id.
  // The source sends the section only then, since the announcement may
  // reach the target after it reached the source.
  RankSectionAccept = 95,
  // Source to target, right before each chunk's RankSectionData: u64 move
  // id, u64 offset of the chunk in the section, u64 chunk bytes (1 to
  // kMaxRankSectionChunkBytes). Chunks come in order, without gaps.
  RankSectionHead = 91,
  // The chunk's bytes, as many as its head said; the target reads them
  // straight into their place.
  RankSectionData = 92,
  // Target to source and part 0, once the whole section is placed and its
  // CRC-32C checked: u64 move id, u32 the CRC-32C.
  RankSectionLanded = 93,
  // The move is off. Source or target to part 0 (why it failed there),
  // then part 0 to the other parts of the move: u64 move id, u32 bytes +
  // the reason (at most kMaxRefusalBytes).
  RankMoveAbort = 94,
  // Source to target of a live move, before the rank's section: the
  // rank's unfinished last output lines, which its launcher kept back, so
  // that the target's forwarding ends them (mpi/OutputForwarding.h). u64
  // round, u32 world rank, then for stdout and stderr in turn u32 bytes
  // (at most kMaxRankOutputTailBytes) and the bytes.
  RankOutputTails = 79,
  // Host to client, in a job's JobOutput order (cluster/OutputNotes.h):
  // a live move's source part has forwarded all of the moved rank's output
  // before this frame (u64 job id, u32 world rank); the move's target
  // part's output from an OutputHold on waits at the client until the
  // source's mark for that rank (u64 job id, u32 world rank, u32 source
  // part), so that the rank's lines come out in the order it printed them.
  OutputMark = 76,
  OutputHold = 77,
  // Server to client, instead of HelloAck: the handshake is refused (a wrong
  // token, too many connections), then the connection closes. The reason,
  // at most kMaxRefusalBytes. A connection that closes before the handshake
  // without it is a host that went away (scheduler/RemoteJob.h).
  HelloRefused = 78,
  // The rank -> part table of a spread job switched inside the checkpoint
  // agreement (cluster/RouteSwitch.h gives both payloads): part 0 to every
  // other part while all are held at one barrier control point, the new
  // table (or, to roll a refused switch back, the old one); each part's
  // answer to part 0.
  RouteSwitch = 97,
  RouteSwitchAnswer = 98,
};

constexpr std::array<uint8_t, 4> kFrameMagic = {'S', 'Y', 'N', '1'};
constexpr size_t kFrameHeaderBytes = 16;

// The largest payload any frame may carry. Module transfers and granule
// snapshots larger than this are split into several frames by their senders.
constexpr uint64_t kMaxFramePayloadBytes = 64ull << 20;

// Limits of the job frames.
constexpr uint64_t kMaxRunJobBytes = 1ull << 20;
constexpr uint64_t kMaxJobOutputChunkBytes = 64ull << 10;
constexpr uint64_t kMaxRefusalBytes = 1024;
// A module is at most what a run accepts as a .wasm file.
constexpr uint64_t kMaxModuleBytes = 1ull << 30;
constexpr uint64_t kModuleHeadBytes = 8;
constexpr uint64_t kModuleChunkHeaderBytes = 8;
constexpr uint64_t kMaxModuleChunkBytes = kMaxFramePayloadBytes - kModuleChunkHeaderBytes;

// Cross-host MPI frames: the fixed parts, the largest message data one
// MpiMessage carries, and the largest message at all (a wasm32 rank's whole
// memory; a larger one to a rank on another host is refused with an error
// naming the call).
constexpr uint64_t kMpiHelloBytes = 12;
constexpr uint64_t kMpiMessageHeaderBytes = 28;
constexpr uint64_t kMaxMpiMessageDataBytes = kMaxFramePayloadBytes - kMpiMessageHeaderBytes;
constexpr uint64_t kMpiMessageHeadBytes = kMpiMessageHeaderBytes + 8;
constexpr uint64_t kMaxMpiMessageBytes = 4ull << 30;
constexpr uint64_t kMpiMatchedBytes = 12;
constexpr uint64_t kMpiMatchedWithCreditBytes = kMpiMatchedBytes + 8;
constexpr uint64_t kMpiRequestToSendBytes = kMpiMessageHeadBytes;
constexpr uint64_t kMpiClearToSendBytes = 24;
constexpr uint64_t kMpiRendezvousDataBytes = 24;
constexpr uint64_t kMpiEagerCreditBytes = 8;
constexpr uint64_t kMaxMpiEagerGrantBytes = 1ull << 40;
constexpr uint64_t kMpiAbortBytes = 4;
constexpr uint64_t kMpiHostStateHeaderBytes = 36;
constexpr uint64_t kMpiHostStateLineHeaderBytes = 8;
constexpr uint64_t kMaxMpiWaitLineBytes = 512;
// At most this many ranks of one part (cluster::kMaxSlotsPerHost).
constexpr uint64_t kMaxMpiHostStateLines = 4096;
constexpr uint64_t kMpiStateCheckBytes = 8;
constexpr uint64_t kMpiStateConfirmBytes = 24;
constexpr uint64_t kCheckpointVoteHeadBytes = 30;
constexpr uint64_t kCheckpointDecisionHeadBytes = 21;
constexpr uint64_t kCheckpointRecountBytes = 8;
constexpr uint64_t kCheckpointWrittenBytes = 17;
constexpr uint64_t kCheckpointPartDataHeadBytes = 24;
constexpr uint64_t kMaxCheckpointPartChunkBytes = 1ull << 20;
constexpr uint64_t kCheckpointCopyAckBytes = 9;
constexpr uint64_t kMaxCheckpointMirrorDirectoryBytes = 4096;
constexpr uint64_t kCheckpointMirrorHeadBytes = 12;
constexpr uint64_t kCheckpointForgetHeadBytes = 12;
constexpr uint64_t kCheckpointForgetAnswerBytes = 9;
constexpr uint64_t kMigrationStopBytes = 8;
constexpr uint64_t kMigrationOutcomeBytes = 9;
// A RouteSwitch's head, its most ranks (cluster::kMaxJobRanks, a u32
// each), and a RouteSwitchAnswer's head.
constexpr uint64_t kRouteSwitchHeadBytes = 25;
constexpr uint64_t kMaxRouteSwitchRanks = 4096;
constexpr uint64_t kRouteSwitchAnswerHeadBytes = 14;
constexpr uint64_t kRankMoveAnnounceBytes = 32;
constexpr uint64_t kRankSectionAcceptBytes = 8;
constexpr uint64_t kRankSectionHeadBytes = 24;
constexpr uint64_t kRankSectionLandedBytes = 12;
constexpr uint64_t kRankMoveAbortHeadBytes = 12;
// A live move carries at most this much of each stream's unfinished line;
// a longer one is forwarded by the source, cut (OutputForwarding.h).
constexpr uint64_t kMaxRankOutputTailBytes = 64ull << 10;
constexpr uint64_t kRankOutputTailsHeadBytes = 20;
constexpr uint64_t kOutputMarkBytes = 12;
constexpr uint64_t kOutputHoldBytes = 16;
// A section holds at least its CRC-32C and one byte; at most a wasm32
// rank's whole memory and room for its globals, files and MPI objects.
constexpr uint64_t kMinRankSectionBytes = 5;
constexpr uint64_t kMaxRankSectionBytes = (4ull << 30) + (256ull << 20);
constexpr uint64_t kMaxRankSectionChunkBytes = 16ull << 20;
constexpr uint64_t kMpiRmaHeaderBytes = 36;
constexpr uint64_t kMpiRmaRunBytes = 16;
constexpr uint64_t kMpiRmaDoneHeaderBytes = 12;

// The largest OmpRegionShare: its head, 4096 threads (one host's slots) of
// 16 bytes and 998 shared arguments of 4 (omp::kMaxRegionShareBytes).
constexpr uint64_t kMaxOmpRegionShareBytes = 56 + 4096 * 16 + 998 * 4;
constexpr uint64_t kOmpThreadHelloBytes = 12;
constexpr uint64_t kOmpReductionListBytes = 4;
constexpr uint64_t kOmpSyncRequestBytes = 52;
constexpr uint64_t kOmpSyncReplyBytes = 28;
constexpr uint64_t kOmpPthreadStartBytes = 32;

// Hypervisor frames: the largest engine manifest a tenant may submit, the
// longest refusal and the largest status report.
constexpr uint64_t kMaxHvEngineBytes = 16ull << 20;
constexpr uint64_t kMaxHvStatusBytes = 64ull << 10;
// The most state words a trap reply carries (the rest are read on demand),
// the most writes one HvBatch carries, and the size of one such record.
constexpr uint64_t kMaxHvReplyStateWords = 64;
constexpr uint64_t kMaxHvBatchWrites = 64;
constexpr uint64_t kHvStateWordRecordBytes = 20;
// The most traps one HvOpenLooped reply carries, the most argument words
// over all of them, and the size of a trap's head.
constexpr uint64_t kMaxHvRunTraps = 4096;
constexpr uint64_t kMaxHvRunWords = 16384;
constexpr uint64_t kHvTrapHeadBytes = 12;
// The most words one HvReadState asks for, and the size of an address.
constexpr uint64_t kMaxHvReadWords = 4096;
constexpr uint64_t kHvStateAddressBytes = 12;
// Read-ahead (protocol 5): the most input-file windows one HvOpenLoop
// carries, the most bytes in one, and the sizes of a window's head, of the
// request's head and of an advance in the reply.
constexpr uint64_t kMaxHvReadAheadFiles = 4;
constexpr uint64_t kMaxHvReadAheadBytes = 64ull << 10;
constexpr uint64_t kHvWindowHeadBytes = 12;
constexpr uint64_t kHvOpenLoopHeadBytes = 20;
constexpr uint64_t kHvAdvanceBytes = 16;
// Progress of a run (protocol 6).
constexpr uint64_t kHvRunProgressBytes = 12;

// Cluster tokens are between these lengths (see ClusterToken.h).
constexpr size_t kMinTokenBytes = 16;
constexpr size_t kMaxTokenBytes = 256;

// The maximum payload of a frame of this type; 0 for types that carry none.
constexpr uint64_t maxPayloadBytes(FrameType type) {
  switch (type) {
    case FrameType::Hello:
      return kMaxTokenBytes;
    case FrameType::HelloAck:
      return 0;
    case FrameType::HelloRefused:
      return kMaxRefusalBytes;
    case FrameType::Ping:
    case FrameType::Pong:
      return kMaxFramePayloadBytes;
    case FrameType::ModuleHead:
      return kModuleHeadBytes;
    case FrameType::ModuleChunk:
      return kModuleChunkHeaderBytes + kMaxModuleChunkBytes;
    case FrameType::RunJob:
      return kMaxRunJobBytes;
    case FrameType::ModuleWanted:
      return 0;
    case FrameType::JobOutput:
      return 1 + kMaxJobOutputChunkBytes;
    case FrameType::JobExit:
      return 4;
    case FrameType::JobRefused:
      return kMaxRefusalBytes;
    case FrameType::MpiHello:
      return kMpiHelloBytes;
    case FrameType::MpiMessage:
      return kMpiMessageHeaderBytes + kMaxMpiMessageDataBytes;
    case FrameType::MpiMatched:
      return kMpiMatchedWithCreditBytes;
    case FrameType::MpiAbort:
      return kMpiAbortBytes;
    case FrameType::MpiMessageHead:
      return kMpiMessageHeadBytes;
    case FrameType::MpiRequestToSend:
      return kMpiRequestToSendBytes;
    case FrameType::MpiClearToSend:
      return kMpiClearToSendBytes;
    case FrameType::MpiRendezvousData:
      return kMpiRendezvousDataBytes;
    case FrameType::OmpCopyUpdate:
    case FrameType::OmpJoinUpdate:
      return kMaxFramePayloadBytes;
    case FrameType::OmpRegionShare:
      return kMaxOmpRegionShareBytes;
    case FrameType::OmpThreadHello:
      return kOmpThreadHelloBytes;
    case FrameType::OmpReductionList:
      return kOmpReductionListBytes;
    case FrameType::OmpSyncRequest:
      return kOmpSyncRequestBytes;
    case FrameType::OmpSyncReply:
      return kOmpSyncReplyBytes;
    case FrameType::OmpPthreadStart:
      return kOmpPthreadStartBytes;
    case FrameType::MpiEagerGrant:
    case FrameType::MpiEagerCredit:
      return kMpiEagerCreditBytes;
    case FrameType::MpiHostState:
      return kMpiHostStateHeaderBytes +
             kMaxMpiHostStateLines * (kMpiHostStateLineHeaderBytes + kMaxMpiWaitLineBytes);
    case FrameType::MpiStateCheck:
      return kMpiStateCheckBytes;
    case FrameType::MpiStateConfirm:
      return kMpiStateConfirmBytes;
    case FrameType::CheckpointVote:
      return kCheckpointVoteHeadBytes + kMaxRefusalBytes;
    case FrameType::CheckpointDecision:
      return kCheckpointDecisionHeadBytes + kMaxRefusalBytes;
    case FrameType::CheckpointRecount:
      return kCheckpointRecountBytes;
    case FrameType::CheckpointWritten:
      return kCheckpointWrittenBytes;
    case FrameType::CheckpointPartData:
    case FrameType::CheckpointCopy:
      return kCheckpointPartDataHeadBytes + kMaxCheckpointPartChunkBytes;
    case FrameType::CheckpointMirror:
      return kCheckpointMirrorHeadBytes + kMaxCheckpointMirrorDirectoryBytes +
             kCheckpointPartDataHeadBytes + kMaxCheckpointPartChunkBytes;
    case FrameType::CheckpointForget:
      return kCheckpointForgetHeadBytes + kMaxCheckpointMirrorDirectoryBytes;
    case FrameType::MigrationStop:
      return kMigrationStopBytes;
    case FrameType::MigrationOutcome:
      return kMigrationOutcomeBytes;
    case FrameType::RouteSwitch:
      return kRouteSwitchHeadBytes + 4 * kMaxRouteSwitchRanks;
    case FrameType::RouteSwitchAnswer:
      return kRouteSwitchAnswerHeadBytes + kMaxRefusalBytes;
    case FrameType::RankMoveAnnounce:
      return kRankMoveAnnounceBytes;
    case FrameType::RankSectionAccept:
      return kRankSectionAcceptBytes;
    case FrameType::RankSectionHead:
      return kRankSectionHeadBytes;
    case FrameType::RankSectionData:
      return kMaxRankSectionChunkBytes;
    case FrameType::RankSectionLanded:
      return kRankSectionLandedBytes;
    case FrameType::RankMoveAbort:
      return kRankMoveAbortHeadBytes + kMaxRefusalBytes;
    case FrameType::RankOutputTails:
      return kRankOutputTailsHeadBytes + 2 * kMaxRankOutputTailBytes;
    case FrameType::OutputMark:
      return kOutputMarkBytes;
    case FrameType::OutputHold:
      return kOutputHoldBytes;
    case FrameType::MpiRma:
    case FrameType::MpiRmaDone:
    case FrameType::MpiMessagePart:
      return kMaxFramePayloadBytes;
    case FrameType::HvHello:
    case FrameType::HvWelcome:
    case FrameType::HvEngineReady:
    case FrameType::HvResume:
    case FrameType::HvUpdate:
    case FrameType::HvThereAreUpdates:
    case FrameType::HvFlag:
    case FrameType::HvFinalize:
      return 4;
    case FrameType::HvSubmitEngine:
      return kMaxHvEngineBytes;
    case FrameType::HvGetState:
      return 16;
    case FrameType::HvStateWord:
      return 8;
    case FrameType::HvSetState:
      return 24;
    case FrameType::HvEvaluate:
      return 12;
    case FrameType::HvEvaluated:
      return 12 + 4 + kMaxHvReplyStateWords * kHvStateWordRecordBytes;
    case FrameType::HvOpenLoop:
      return kHvOpenLoopHeadBytes + kMaxHvReadAheadFiles * (kHvWindowHeadBytes + kMaxHvReadAheadBytes);
    case FrameType::HvOpenLooped:
      return 8 + kMaxHvRunTraps * kHvTrapHeadBytes + kMaxHvRunWords * kHvStateWordRecordBytes + 4 +
             kMaxHvReadAheadFiles * kHvAdvanceBytes;
    case FrameType::HvBatch:
      // The largest request a batch may end with is an HvOpenLoop.
      return 8 + kMaxHvBatchWrites * kHvStateWordRecordBytes + 4 + kHvOpenLoopHeadBytes +
             kMaxHvReadAheadFiles * (kHvWindowHeadBytes + kMaxHvReadAheadBytes);
    case FrameType::HvDone:
    case FrameType::HvStatus:
      return 0;
    case FrameType::HvRefused:
    case FrameType::HvMigrate:
    case FrameType::HvMoveTo:
      return kMaxRefusalBytes;
    case FrameType::HvStatusReport:
      return kMaxHvStatusBytes;
    case FrameType::HvReadState:
      return 8 + kMaxHvReadWords * kHvStateAddressBytes;
    case FrameType::HvStateWords:
      return 4 + kMaxHvReadWords * kHvStateWordRecordBytes;
    case FrameType::HvRunProgress:
      return kHvRunProgressBytes;
  }
  return 0;
}

}  // namespace synergy::transport
