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

namespace synergy::hypervisor {

using transport::FrameType;

namespace {

struct RemoteEngine {
  std::unique_ptr<HypervisorClient> client;
  uint32_t engineId = 0;
};

RemoteEngine* remoteOf(SynergyEngine* engine) { return reinterpret_cast<RemoteEngine*>(engine); }

// One request; a failure ends the run (see RemoteEngine.h). Output the
// design wrote so far reaches its files first.
std::vector<uint8_t> request(SynergyEngine* engine, FrameType type, PayloadWriter payload, FrameType expected) {
  std::string error;
  auto reply = remoteOf(engine)->client->call(type, payload.take(), expected, error);
  if (!reply) {
    std::fflush(nullptr);
    std::fprintf(stderr, "synergy-run: error: %s\n", error.c_str());
    std::_Exit(1);
  }
  return std::move(*reply);
}

PayloadWriter onEngine(SynergyEngine* engine) {
  PayloadWriter payload;
  payload.u32(remoteOf(engine)->engineId);
  return payload;
}

const engine::EngineEntryPoints kRemoteEntryPoints = {
    [](SynergyEngine* engine) {
      request(engine, FrameType::HvFinalize, onEngine(engine), FrameType::HvDone);
      delete remoteOf(engine);
    },
    [](SynergyEngine* engine, uint32_t id, uint32_t index, uint32_t word) {
      auto reply = request(engine, FrameType::HvGetState, onEngine(engine).u32(id).u32(index).u32(word),
                           FrameType::HvStateWord);
      return PayloadReader(reply).u64();
    },
    [](SynergyEngine* engine, uint32_t id, uint32_t index, uint32_t word, uint64_t data) {
      request(engine, FrameType::HvSetState, onEngine(engine).u32(id).u32(index).u32(word).u64(data),
              FrameType::HvDone);
    },
    [](SynergyEngine* engine, uint64_t* edgeBudget) {
      auto reply = request(engine, FrameType::HvEvaluate, onEngine(engine).u64(*edgeBudget), FrameType::HvEvaluated);
      PayloadReader reader(reply);
      uint32_t task = reader.u32();
      *edgeBudget = reader.u64();
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
