//===- RemoteEngine.cpp - A tenant's engine that runs inside synergy-hv ----===//
//
// This file implements the proxy of RemoteEngine.h. The manifest sent is
// the one this runtime parsed and checked, written back out, so the tenant
// and the hypervisor agree on every state id and width whatever happens to
// the .eng file meanwhile.
//
//===----------------------------------------------------------------------===//
#include "hypervisor/RemoteEngine.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "engine/EngineInstance.h"
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
struct RemoteEngine {
  std::unique_ptr<HypervisorClient> client;
  uint32_t engineId = 0;
  std::vector<StateWordRecord> words;
  std::vector<StateWordRecord> writes;
};

RemoteEngine* remoteOf(SynergyEngine* engine) { return reinterpret_cast<RemoteEngine*>(engine); }

[[noreturn]] void fail(const std::string& error) {
  std::fflush(nullptr);
  std::fprintf(stderr, "synergy-run: error: %s\n", error.c_str());
  std::_Exit(1);
}

// One request, with the buffered writes in front of it; a failure ends the
// run (see RemoteEngine.h). Output the design wrote so far reaches its
// files first. `type` 0 sends just the writes.
std::vector<uint8_t> request(SynergyEngine* engine, FrameType type, PayloadWriter payload, FrameType expected) {
  RemoteEngine& remote = *remoteOf(engine);
  if (type != FrameType::HvGetState)
    remote.words.clear();
  std::string error;
  std::optional<std::vector<uint8_t>> reply;
  if (remote.writes.empty()) {
    reply = remote.client->call(type, payload.take(), expected, error);
  } else {
    Batch batch;
    batch.engine = remote.engineId;
    batch.writes = std::move(remote.writes);
    remote.writes.clear();
    batch.request = uint16_t(type);
    batch.record = payload.take();
    reply = remote.client->call(FrameType::HvBatch, encodeBatch(batch), expected, error);
  }
  if (!reply)
    fail(error);
  return std::move(*reply);
}

PayloadWriter onEngine(SynergyEngine* engine) {
  PayloadWriter payload;
  payload.u32(remoteOf(engine)->engineId);
  return payload;
}

// Keeps the words a trap reply carries, after its head of `headBytes`.
void keepTrapWords(SynergyEngine* engine, const std::vector<uint8_t>& reply, size_t headBytes, FrameType type) {
  auto words = readStateWords(reply, headBytes, transport::kMaxHvReplyStateWords);
  if (!words)
    fail(std::string("the hypervisor sent a malformed ") + transport::frameTypeName(type));
  remoteOf(engine)->words = std::move(*words);
}

const engine::EngineEntryPoints kRemoteEntryPoints = {
    [](SynergyEngine* engine) {
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
      remote.words.clear();
      remote.writes.push_back(StateWordRecord{id, index, word, data});
      if (remote.writes.size() >= transport::kMaxHvBatchWrites)
        request(engine, FrameType(0), PayloadWriter(), FrameType::HvDone);
    },
    [](SynergyEngine* engine, uint64_t* edgeBudget) {
      auto reply = request(engine, FrameType::HvEvaluate, onEngine(engine).u64(*edgeBudget), FrameType::HvEvaluated);
      PayloadReader reader(reply);
      uint32_t task = reader.u32();
      *edgeBudget = reader.u64();
      keepTrapWords(engine, reply, kEvaluatedHeadBytes, FrameType::HvEvaluated);
      return task;
    },
    [](SynergyEngine* engine) { request(engine, FrameType::HvResume, onEngine(engine), FrameType::HvDone); },
    [](SynergyEngine* engine) { request(engine, FrameType::HvUpdate, onEngine(engine), FrameType::HvDone); },
    [](SynergyEngine* engine) {
      auto reply = request(engine, FrameType::HvThereAreUpdates, onEngine(engine), FrameType::HvFlag);
      return PayloadReader(reply).u32();
    },
    [](SynergyEngine* engine, uint32_t ticks, uint64_t edgesPerTick, uint32_t* ticksRun) {
      auto reply =
          request(engine, FrameType::HvOpenLoop, onEngine(engine).u32(ticks).u64(edgesPerTick), FrameType::HvOpenLooped);
      PayloadReader reader(reply);
      uint32_t task = reader.u32();
      *ticksRun = reader.u32();
      keepTrapWords(engine, reply, kOpenLoopedHeadBytes, FrameType::HvOpenLooped);
      return task;
    },
};

}  // namespace

engine::RemoteEngineFactory remoteEngineFactory(std::string address, std::string tokenFile) {
  return [address = std::move(address), tokenFile = std::move(tokenFile)](
             const hwlower::EngineManifest& manifest, engine::EngineCallCounter& calls,
             std::string& error) -> std::unique_ptr<engine::EngineInstance> {
    auto remote = std::make_unique<RemoteEngine>();
    remote->client = HypervisorClient::connect(address, tokenFile, error);
    if (!remote->client)
      return nullptr;
    std::ostringstream text;
    hwlower::writeEngineManifest(manifest, text);
    std::string bytes = text.str();
    if (bytes.size() > transport::kMaxHvEngineBytes) {
      error = "the engine is larger than the hypervisor accepts (" + std::to_string(transport::kMaxHvEngineBytes) +
              " bytes)";
      return nullptr;
    }
    auto ready = remote->client->call(FrameType::HvSubmitEngine, textPayload(bytes), FrameType::HvEngineReady, error);
    if (!ready)
      return nullptr;
    remote->engineId = PayloadReader(*ready).u32();
    return engine::EngineInstance::adopt([&] { return reinterpret_cast<SynergyEngine*>(remote.release()); },
                                         kRemoteEntryPoints, calls);
  };
}

}  // namespace synergy::hypervisor
