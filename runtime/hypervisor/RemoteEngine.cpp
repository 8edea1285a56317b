//===- RemoteEngine.cpp - A tenant's engine that runs inside synergy-hv ----===//
//
// This file implements the proxy of RemoteEngine.h. The manifest sent is
// the one this runtime parsed and checked, written back out, so the tenant
// and the hypervisor agree on every state id and width whatever happens to
// the .eng file meanwhile.
//
//===----------------------------------------------------------------------===//
#include "hypervisor/RemoteEngine.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <span>
#include <sstream>

#include "engine/EngineInstance.h"
#include "engine/TaskServicer.h"
#include "hwlower/EngineManifest.h"
#include "hypervisor/HypervisorClient.h"
#include "hypervisor/HypervisorProtocol.h"
#include "transport/FrameCodec.h"

namespace synergy::hypervisor {

using transport::FrameType;

namespace {

// Round trips are what a tenant pays for (issue 21), so the proxy saves
// them where the ABI's order allows. A trap reply carries the words the
// runtime reads to service the task (the hypervisor picks them from the
// manifest); get_state serves those from `words` without a request. A
// set_state is buffered in `writes` and travels in one HvBatch with the
// next request, which is the resume in the common case. A write or any
// request but get_state may change any state (a state access clocks the
// model), so each empties `words`; every buffered write is still checked
// against the tenant's manifest by the hypervisor, which refuses the whole
// batch, and so ends the run, on a bad one.
//
// An open-loop request comes back with every trap of its run: the
// output-only tasks the hypervisor ran past, then the one it stopped at
// (HypervisorProtocol.h). The proxy hands them to the runner one open_loop
// call at a time, as a local engine would trap them, each with its own
// words and the ticks started since the one before; only when none is left
// does open_loop wait for a reply again (the next request may already be
// on its way, below). Servicing an output-only task reads
// only its words, so in between the runner asks for nothing else; anything
// else it asked for then would be served by an engine that has run on, so it
// ends the run instead.
//
// An input task ($fgetc) needs its answer before the design goes on, so
// each open-loop request also carries read-ahead windows: the next bytes of
// every file the run's FileTable can read ahead (readAheadDescriptors).
// The hypervisor serves the input tasks ($fgetc, $ungetc, $fgets, $feof,
// $fread, $fscanf) from them with the tenant's own TaskServicer code, and
// the reply says how far each file was read, which the proxy applies to the
// streams before it hands over any trap, so a task the tenant services
// afterwards sees the file where a solo run would. A file with a byte an
// $ungetc pushed back still unread here gets no window (FileTable), as the
// window would not show it. Each file's window is sized
// from what the last run read of it (kMinReadAheadBytes to
// kMaxHvReadAheadBytes), so a file read slowly costs little per request.
// stdin is read ahead too (FileTable::readStdinAhead): a pipe's window
// holds only the bytes it has ready.
//
// While a run goes on, the hypervisor reports its ticks and tasks so far
// (HvRunProgress), which the proxy publishes to the run's timeline
// counters until the reply comes (engine/Timeline.h).
//
// A design that prints every tick (df, adpcm's $fwrite) would otherwise
// keep the fabric and the tenant taking turns: the hypervisor runs while
// the tenant waits, then the tenant formats while the engine waits. When a
// run stopped between two ticks, short of the ticks asked for, with
// output-only traps to service, the proxy sends the next open-loop request
// at once (`ahead`), before it hands the first trap to the runner, and the
// hypervisor runs it while the tenant services them. This is the request
// the runner makes next: servicing an output-only task reads only the
// words its trap carries, changes no engine state (the runner's calls in
// between would be refused, as above), no input stream (the windows are
// taken after the reply's advances are applied, and no descriptor or
// stdout writes a file read ahead, FileTable::readAheadDescriptors) and
// nothing that stops the runner's open loop ($finish, $save, $monitor and
// the like are not output-only). It asks for the ticks the first request
// had left, which the runner's next batch never falls short of (it checks
// that it does not), so the reply answers that call as it would have; a
// run that ends first (a --time-limit, an error) leaves the reply unread
// or, at finalize, reads and drops it.
//
// The manifest, its text and the token file are kept for a migration: the
// engine is then submitted again to another hypervisor.
struct RemoteEngine {
  std::unique_ptr<HypervisorClient> client;
  uint32_t engineId = 0;
  std::shared_ptr<const hwlower::EngineManifest> manifest;
  // By task id - 1: whether a run may go past the task (TaskServicer::
  // onlyWritesOutput), classified once rather than at every trap.
  std::vector<bool> outputOnly;
  std::string manifestText;
  std::string tokenFile;
  // The words get_state serves without a request: an HvEvaluated reply's
  // (kept in `evaluatedWords`) or those of the open-loop trap handed out
  // last (in `run`).
  std::span<const StateWordRecord> words;
  std::vector<StateWordRecord> evaluatedWords;
  std::vector<StateWordRecord> writes;
  // The open-loop run whose traps are being handed out, the next of them
  // and the first of its words.
  OpenLoopReply run;
  size_t nextTrap = 0, nextWord = 0;
  uint32_t runTicksHanded = 0;
  bool handingOutTraps() const { return nextTrap < run.traps.size(); }
  engine::FileTable* files = nullptr;
  engine::TimelineCounters* progress = nullptr;  // counts the tasks served from windows
  std::map<uint32_t, size_t> readAheadBytes;  // by descriptor
  // The open-loop request sent ahead, unanswered: what it asked (its
  // windows are checked against the reply's advances) and its record, which
  // a migration sends again.
  struct SentAhead {
    OpenLoopRequest asked;
    std::vector<uint8_t> record;
  };
  std::optional<SentAhead> ahead;
};

constexpr size_t kMinReadAheadBytes = 256;
constexpr size_t kFirstReadAheadBytes = 4096;

RemoteEngine* remoteOf(SynergyEngine* engine) { return reinterpret_cast<RemoteEngine*>(engine); }

// A reply that breaks the protocol or a lost hypervisor is bad input from
// outside, like a malformed .eng: status 2.
[[noreturn]] void fail(const std::string& error) {
  std::fflush(nullptr);
  std::fprintf(stderr, "synergy-run: error: %s\n", error.c_str());
  std::_Exit(2);
}

// Submits the manifest through `client`; the engine id, or 0 and `error`.
uint32_t submitEngine(HypervisorClient& client, const std::string& manifestText, std::string& error) {
  auto ready = client.call(FrameType::HvSubmitEngine, textPayload(manifestText), FrameType::HvEngineReady, error);
  return ready ? PayloadReader(*ready).u32() : 0;
}

// The hypervisor answered HvMoveTo: the engine stands between two ticks
// there, so its variables are its whole state. Reads them (kMaxHvReadWords
// words per round trip), submits the engine to `address`, writes them into
// it, and finalizes the engine left behind; from then on every request goes
// to `address`.
void migrate(RemoteEngine& remote, const std::string& address) {
  std::vector<StateWordRecord> state;
  for (const hwlower::StateVar& var : remote.manifest->states) {
    if (var.kind == hwlower::StateKind::Wire)
      continue;
    uint64_t elements = var.depth == 0 ? 1 : var.depth;
    uint32_t wordsPerElement = uint32_t((uint64_t(var.width) + 63) / 64);
    for (uint64_t element = 0; element < elements; ++element)
      for (uint32_t word = 0; word < wordsPerElement; ++word)
        state.push_back(StateWordRecord{var.id, uint32_t(element), word, 0});
  }
  std::string error;
  for (size_t first = 0; first < state.size(); first += transport::kMaxHvReadWords) {
    StateRead read;
    read.engine = remote.engineId;
    size_t last = std::min<size_t>(state.size(), first + transport::kMaxHvReadWords);
    read.addresses.assign(state.begin() + ptrdiff_t(first), state.begin() + ptrdiff_t(last));
    auto reply = remote.client->call(FrameType::HvReadState, encodeStateRead(read), FrameType::HvStateWords, error);
    if (!reply)
      fail("migrating to " + address + ": " + error);
    auto words = readStateWords(*reply, 0, transport::kMaxHvReadWords);
    if (!words || words->size() != read.addresses.size())
      fail("migrating to " + address + ": the hypervisor sent a malformed HvStateWords");
    for (size_t k = 0; k < words->size(); ++k) {
      const StateWordRecord& asked = read.addresses[k];
      const StateWordRecord& got = (*words)[k];
      if (got.id != asked.id || got.element != asked.element || got.word != asked.word)
        fail("migrating to " + address + ": the hypervisor answered for other state words than asked");
      state[first + k].data = got.data;
    }
  }
  auto destination = HypervisorClient::connect(address, remote.tokenFile, error);
  uint32_t id = destination ? submitEngine(*destination, remote.manifestText, error) : 0;
  if (!id)
    fail("migrating to " + address + ": " + error);
  for (size_t first = 0; first < state.size(); first += transport::kMaxHvBatchWrites) {
    Batch batch;
    batch.engine = id;
    size_t last = std::min<size_t>(state.size(), first + transport::kMaxHvBatchWrites);
    batch.writes.assign(state.begin() + ptrdiff_t(first), state.begin() + ptrdiff_t(last));
    if (!destination->call(FrameType::HvBatch, encodeBatch(batch), FrameType::HvDone, error))
      fail("migrating to " + address + ": " + error);
  }
  if (!remote.client->call(FrameType::HvFinalize, PayloadWriter().u32(remote.engineId).take(), FrameType::HvDone,
                           error))
    fail("migrating to " + address + ": " + error);
  remote.client = std::move(destination);
  remote.engineId = id;
}

// Sends one request, with `writes` in front of it in an HvBatch when there
// are any.
void sendRequest(RemoteEngine& remote, FrameType type, const std::vector<uint8_t>& record,
                 const std::vector<StateWordRecord>& writes) {
  if (writes.empty())
    return remote.client->send(type, record);
  Batch batch;
  batch.engine = remote.engineId;
  batch.writes = writes;
  batch.request = uint16_t(type);
  batch.record = record;
  remote.client->send(FrameType::HvBatch, encodeBatch(batch));
}

// Waits for the reply of the request sendRequest sent; a failure ends the
// run (see RemoteEngine.h). A request answered with HvMoveTo was not
// served: it is sent again, writes and all, after the migration, naming the
// new engine id (every request record starts with it).
std::vector<uint8_t> awaitReply(RemoteEngine& remote, FrameType type, std::vector<uint8_t>& record,
                                const std::vector<StateWordRecord>& writes, FrameType expected,
                                const HypervisorClient::ProgressHandler* onProgress) {
  for (;;) {
    std::string error;
    std::optional<std::string> moveTo;
    std::optional<std::vector<uint8_t>> reply = remote.client->await(
        writes.empty() ? type : FrameType::HvBatch, expected, error, &moveTo, onProgress);
    if (!moveTo) {
      if (!reply)
        fail(error);
      return std::move(*reply);
    }
    migrate(remote, *moveTo);
    if (record.size() >= 4) {
      PayloadWriter renamed;
      renamed.u32(remote.engineId);
      std::vector<uint8_t> id = renamed.take();
      std::copy(id.begin(), id.end(), record.begin());
    }
    sendRequest(remote, type, record, writes);
  }
}

// One request, with the buffered writes in front of it. `type` 0 sends
// just the writes.
std::vector<uint8_t> request(SynergyEngine* engine, FrameType type, PayloadWriter payload,
                             FrameType expected,
                             const HypervisorClient::ProgressHandler* onProgress = nullptr) {
  RemoteEngine& remote = *remoteOf(engine);
  if (remote.handingOutTraps())
    fail(std::string("internal error: ") + transport::frameTypeName(type) +
         " while the traps of an open-loop run were still being serviced");
  if (remote.ahead)
    fail(std::string("internal error: ") + transport::frameTypeName(type) +
         " while the open-loop request sent ahead was unanswered");
  if (type != FrameType::HvGetState)
    remote.words = {};
  std::vector<uint8_t> record = payload.take();
  std::vector<StateWordRecord> writes = std::move(remote.writes);
  remote.writes.clear();
  sendRequest(remote, type, record, writes);
  return awaitReply(remote, type, record, writes, expected, onProgress);
}

PayloadWriter onEngine(SynergyEngine* engine) {
  PayloadWriter payload;
  payload.u32(remoteOf(engine)->engineId);
  return payload;
}

// Keeps the words an HvEvaluated reply carries after its head.
void keepTrapWords(SynergyEngine* engine, const std::vector<uint8_t>& reply) {
  auto words = readStateWords(reply, kEvaluatedHeadBytes, transport::kMaxHvReplyStateWords);
  if (!words)
    fail("the hypervisor sent a malformed HvEvaluated");
  RemoteEngine& remote = *remoteOf(engine);
  remote.evaluatedWords = std::move(*words);
  remote.words = remote.evaluatedWords;
}

// The windows of an open-loop request (see RemoteEngine).
std::vector<ReadAheadWindow> readAheadWindows(RemoteEngine& remote) {
  std::vector<ReadAheadWindow> windows;
  for (uint32_t descriptor : remote.files->readAheadDescriptors()) {
    if (windows.size() == transport::kMaxHvReadAheadFiles)
      break;
    auto size = remote.readAheadBytes.try_emplace(descriptor, kFirstReadAheadBytes).first->second;
    ReadAheadWindow window;
    window.descriptor = descriptor;
    std::optional<std::string> bytes = remote.files->peekInput(descriptor, size, window.endsAtEof);
    if (!bytes)
      continue;
    window.bytes.assign(bytes->begin(), bytes->end());
    windows.push_back(std::move(window));
  }
  return windows;
}

// Applies a reply's advances to the files, each checked against the window
// it names: a known descriptor, no more bytes than were sent, and the end
// of the file only where the window ended there and was used up. Sizes the
// next window of each file from this run's use of it.
void applyAdvances(RemoteEngine& remote, const std::vector<ReadAheadWindow>& windows,
                   const std::vector<ReadAheadAdvance>& advances) {
  for (const ReadAheadAdvance& advance : advances) {
    auto window = std::find_if(windows.begin(), windows.end(),
                               [&](const ReadAheadWindow& sent) { return sent.descriptor == advance.descriptor; });
    if (window == windows.end())
      fail("the hypervisor sent a malformed reply: it read from descriptor " + std::to_string(advance.descriptor) +
           ", which had no read-ahead window");
    if (advance.consumed > window->bytes.size() ||
        (advance.hitEof && (!window->endsAtEof || advance.consumed != window->bytes.size())))
      fail("the hypervisor sent a malformed reply: it read " + std::to_string(advance.consumed) + " bytes" +
           (advance.hitEof ? " and the end" : "") + " of descriptor " + std::to_string(advance.descriptor) +
           "'s window of " + std::to_string(window->bytes.size()) + (window->endsAtEof ? " (to the end)" : ""));
  }
  for (const ReadAheadWindow& window : windows) {
    uint32_t consumed = 0;
    for (const ReadAheadAdvance& advance : advances)
      if (advance.descriptor == window.descriptor) {
        consumed = advance.consumed;
        remote.progress->tasks.fetch_add(advance.tasks, std::memory_order_relaxed);
        if (!remote.files->advanceInput(advance.descriptor, advance.consumed, advance.hitEof))
          fail("cannot advance descriptor " + std::to_string(advance.descriptor) + " past what the engine read");
      }
    // A run that used most of its window gets twice as much next time.
    size_t& size = remote.readAheadBytes[window.descriptor];
    size = std::clamp<size_t>(std::bit_ceil(2 * size_t(consumed)), kMinReadAheadBytes,
                              transport::kMaxHvReadAheadBytes);
  }
}

// Publishes an open-loop run's HvRunProgress frames to the timeline (see
// RemoteEngine); `ticks` is what the run was asked for.
HypervisorClient::ProgressHandler runProgressHandler(RemoteEngine& remote, uint32_t ticks) {
  return [&remote, ticks](const std::vector<uint8_t>& payload, std::string& error) {
    RunProgress progress = decodeRunProgress(payload);
    if (progress.engine != remote.engineId || progress.ticks > ticks) {
      error = "the hypervisor sent a malformed HvRunProgress: engine " +
              std::to_string(progress.engine) + ", " + std::to_string(progress.ticks) +
              " ticks of the " + std::to_string(ticks) + " asked of engine " +
              std::to_string(remote.engineId);
      return false;
    }
    remote.progress->batchTicks.store(progress.ticks, std::memory_order_relaxed);
    remote.progress->batchTasks.store(progress.tasks, std::memory_order_relaxed);
    return true;
  };
}

// Sends the open-loop request the runner makes next (see RemoteEngine).
void sendAhead(RemoteEngine& remote, uint32_t ticks, uint64_t edgesPerTick) {
  RemoteEngine::SentAhead ahead;
  ahead.asked.engine = remote.engineId;
  ahead.asked.ticks = ticks;
  ahead.asked.edgesPerTick = edgesPerTick;
  ahead.asked.windows = readAheadWindows(remote);
  ahead.record = encodeOpenLoopRequest(ahead.asked);
  sendRequest(remote, FrameType::HvOpenLoop, ahead.record, {});
  remote.ahead = std::move(ahead);
}

// open_loop: one request per run, then its traps one call at a time.
uint32_t openLoop(SynergyEngine* engine, uint32_t ticks, uint64_t edgesPerTick, uint32_t* ticksRun) {
  RemoteEngine& remote = *remoteOf(engine);
  if (!remote.handingOutTraps()) {
    OpenLoopRequest asked;
    std::vector<uint8_t> reply;
    if (remote.ahead) {
      RemoteEngine::SentAhead ahead = std::move(*remote.ahead);
      remote.ahead.reset();
      if (ticks < ahead.asked.ticks || edgesPerTick != ahead.asked.edgesPerTick)
        fail("internal error: an open-loop run of " + std::to_string(ticks) +
             " ticks after one of " + std::to_string(ahead.asked.ticks) + " was sent ahead");
      asked = std::move(ahead.asked);
      HypervisorClient::ProgressHandler onProgress = runProgressHandler(remote, asked.ticks);
      reply = awaitReply(remote, FrameType::HvOpenLoop, ahead.record, {}, FrameType::HvOpenLooped,
                         &onProgress);
    } else {
      asked.engine = remote.engineId;
      asked.ticks = ticks;
      asked.edgesPerTick = edgesPerTick;
      asked.windows = readAheadWindows(remote);
      // The run's progress shows in the timeline while it goes on; its
      // reply then takes its place (engine/Timeline.h).
      HypervisorClient::ProgressHandler onProgress = runProgressHandler(remote, ticks);
      reply = request(engine, FrameType::HvOpenLoop,
                      std::move(PayloadWriter().raw(encodeOpenLoopRequest(asked))),
                      FrameType::HvOpenLooped, &onProgress);
    }
    remote.progress->batchTicks.store(0, std::memory_order_relaxed);
    remote.progress->batchTasks.store(0, std::memory_order_relaxed);
    std::string reason;
    std::optional<OpenLoopReply> run = decodeOpenLoopReply(reply, reason);
    if (!run)
      fail("the hypervisor sent a malformed reply: " + reason);
    applyAdvances(remote, asked.windows, run->advances);
    if (run->ticksRun > asked.ticks)
      fail("the hypervisor ran " + std::to_string(run->ticksRun) + " ticks of the " +
           std::to_string(asked.ticks) + " asked for");
    for (size_t k = 0; k + 1 < run->traps.size(); ++k) {
      uint32_t task = run->traps[k].task;
      if (task > remote.outputOnly.size() || !remote.outputOnly[task - 1])
        fail("the hypervisor ran past task " + std::to_string(task) + ", which is not output-only");
    }
    if (run->traps.size() > 1 && run->traps.back().task == 0 && run->ticksRun < asked.ticks)
      sendAhead(remote, asked.ticks - run->ticksRun, asked.edgesPerTick);
    remote.words = {};
    remote.run = std::move(*run);
    remote.nextTrap = remote.nextWord = 0;
    remote.runTicksHanded = 0;
  }
  const TrapRecord& trap = remote.run.traps[remote.nextTrap++];
  *ticksRun = trap.ticksStarted - remote.runTicksHanded;
  remote.runTicksHanded = trap.ticksStarted;
  remote.words =
      std::span<const StateWordRecord>(remote.run.words).subspan(remote.nextWord, trap.wordCount);
  remote.nextWord += trap.wordCount;
  return trap.task;
}

const engine::EngineEntryPoints kRemoteEntryPoints = {
    [](SynergyEngine* engine) {
      RemoteEngine& remote = *remoteOf(engine);
      remote.run.traps.clear();
      // The reply to a request sent ahead is dropped (an HvMoveTo too: the
      // engine it names is finalized where it is).
      if (remote.ahead) {
        std::string error;
        std::optional<std::string> moveTo;
        HypervisorClient::ProgressHandler onProgress =
            runProgressHandler(remote, remote.ahead->asked.ticks);
        if (!remote.client->await(FrameType::HvOpenLoop, FrameType::HvOpenLooped, error, &moveTo,
                                  &onProgress))
          fail(error);
        remote.ahead.reset();
      }
      request(engine, FrameType::HvFinalize, onEngine(engine), FrameType::HvDone);
      delete remoteOf(engine);
    },
    [](SynergyEngine* engine, uint32_t id, uint32_t index, uint32_t word) {
      for (const StateWordRecord& known : remoteOf(engine)->words)
        if (known.id == id && known.element == index && known.word == word)
          return known.data;
      auto reply = request(engine, FrameType::HvGetState, onEngine(engine).u32(id).u32(index).u32(word),
                           FrameType::HvStateWord);
      return PayloadReader(reply).u64();
    },
    [](SynergyEngine* engine, uint32_t id, uint32_t index, uint32_t word, uint64_t data) {
      RemoteEngine& remote = *remoteOf(engine);
      if (remote.handingOutTraps())
        fail("internal error: a state write while the traps of an open-loop run were still being serviced");
      remote.words = {};
      remote.writes.push_back(StateWordRecord{id, index, word, data});
      if (remote.writes.size() >= transport::kMaxHvBatchWrites)
        request(engine, FrameType(0), PayloadWriter(), FrameType::HvDone);
    },
    [](SynergyEngine* engine, uint64_t* edgeBudget) {
      auto reply = request(engine, FrameType::HvEvaluate, onEngine(engine).u64(*edgeBudget), FrameType::HvEvaluated);
      PayloadReader reader(reply);
      uint32_t task = reader.u32();
      *edgeBudget = reader.u64();
      keepTrapWords(engine, reply);
      return task;
    },
    [](SynergyEngine* engine) { request(engine, FrameType::HvResume, onEngine(engine), FrameType::HvDone); },
    [](SynergyEngine* engine) { request(engine, FrameType::HvUpdate, onEngine(engine), FrameType::HvDone); },
    [](SynergyEngine* engine) {
      auto reply = request(engine, FrameType::HvThereAreUpdates, onEngine(engine), FrameType::HvFlag);
      return PayloadReader(reply).u32();
    },
    openLoop,
};

}  // namespace

engine::RemoteEngineFactory remoteEngineFactory(std::string address, std::string tokenFile) {
  return [address = std::move(address), tokenFile = std::move(tokenFile)](
             const hwlower::EngineManifest& manifest, engine::EngineCallCounter& calls, engine::FileTable& files,
             engine::TimelineCounters& progress, std::string& error) -> std::unique_ptr<engine::EngineInstance> {
    auto remote = std::make_unique<RemoteEngine>();
    remote->client = HypervisorClient::connect(address, tokenFile, error);
    if (!remote->client)
      return nullptr;
    std::ostringstream text;
    hwlower::writeEngineManifest(manifest, text);
    remote->manifestText = text.str();
    if (remote->manifestText.size() > transport::kMaxHvEngineBytes) {
      error = "the engine is larger than the hypervisor accepts (" + std::to_string(transport::kMaxHvEngineBytes) +
              " bytes)";
      return nullptr;
    }
    remote->engineId = submitEngine(*remote->client, remote->manifestText, error);
    if (!remote->engineId)
      return nullptr;
    remote->manifest = std::make_shared<const hwlower::EngineManifest>(manifest);
    for (const hwlower::Task& task : manifest.tasks)
      remote->outputOnly.push_back(engine::TaskServicer::onlyWritesOutput(task.name));
    remote->tokenFile = tokenFile;
    remote->files = &files;
    files.readStdinAhead();
    remote->progress = &progress;
    return engine::EngineInstance::adopt([&] { return reinterpret_cast<SynergyEngine*>(remote.release()); },
                                         kRemoteEntryPoints, calls);
  };
}

}  // namespace synergy::hypervisor
