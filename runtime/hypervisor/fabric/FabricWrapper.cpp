//===- FabricWrapper.cpp - the engine ABI over a combined program's slots -===//
//
// Compiled into every combined program the hypervisor builds (never into the
// runtime itself), next to the Verilator model of the generated
// `synergy_fabric` module, which instantiates each tenant's emitted engine
// once and brings its ports out as s<N>_<port> (CombinedProgram.cpp).
// FabricSlots.h, generated with the program, says how many slots there are
// and binds each slot's ports; nothing in it comes from a tenant.
//
// A SynergyEngine here is one slot: the engine ABI entry points are those of
// wrapper/EngineWrapper.cpp, driving that slot's ports only. The model is
// evaluated as a whole, but the other slots' inputs do not change, so their
// engines do not move. The single-engine wrapper is left as it is so that
// every engine object already in a cache keeps its key.
//
//===----------------------------------------------------------------------===//
#include "EngineAbi.h"
#include "FabricSlots.h"
#include "Vsynergy_fabric.h"
#include "verilated.h"

#define SYNERGY_FABRIC_ABI_VERSION 1

struct SynergyFabric;

// The ports of one slot, each the address of the model's top-level port.
struct SynergyEngine {
  Vsynergy_fabric* model = nullptr;
  CData* clk = nullptr;
  CData* cont = nullptr;
  CData* update = nullptr;
  SData* task = nullptr;
  CData* done = nullptr;
  CData* thereAreUpdates = nullptr;
  CData* openLoop = nullptr;
  IData* openLoopN = nullptr;
  CData* openLoopActive = nullptr;
  IData* ticksLeft = nullptr;
  SData* saId = nullptr;
  IData* saIndex = nullptr;
  SData* saWord = nullptr;
  CData* saWe = nullptr;
  QData* saWdata = nullptr;
  QData* saRdata = nullptr;
};

#define SYNERGY_BIND_SLOT(fabric, n)                                                                  \
  fabric->slots[n] = SynergyEngine{&fabric->model,         &fabric->model.s##n##_clk,                 \
                                   &fabric->model.s##n##_cont, &fabric->model.s##n##_update,          \
                                   &fabric->model.s##n##_task, &fabric->model.s##n##_done,            \
                                   &fabric->model.s##n##_there_are_updates,                          \
                                   &fabric->model.s##n##_open_loop, &fabric->model.s##n##_open_loop_n, \
                                   &fabric->model.s##n##_open_loop_active,                           \
                                   &fabric->model.s##n##_ticks_left, &fabric->model.s##n##_sa_id,     \
                                   &fabric->model.s##n##_sa_index, &fabric->model.s##n##_sa_word,     \
                                   &fabric->model.s##n##_sa_we, &fabric->model.s##n##_sa_wdata,       \
                                   &fabric->model.s##n##_sa_rdata}

struct SynergyFabric {
  VerilatedContext context;
  Vsynergy_fabric model{&context, "synergy_fabric"};
  SynergyEngine slots[SYNERGY_FABRIC_SLOTS];
};

// As in EngineWrapper.cpp: the slot must have seen __clk low before the
// rising edge, and a state read leaves it low.
static void edge(SynergyEngine* engine) {
  if (*engine->clk) {
    *engine->clk = 0;
    engine->model->eval();
  }
  *engine->clk = 1;
  engine->model->eval();
}

static void edgeWith(SynergyEngine* engine, CData* control) {
  *control = 1;
  edge(engine);
  *control = 0;
}

#pragma GCC visibility push(default)
extern "C" {

uint32_t synergy_fabric_abi_version(void) { return SYNERGY_FABRIC_ABI_VERSION; }

uint32_t synergy_fabric_slots(void) { return SYNERGY_FABRIC_SLOTS; }

// Every slot's engine after reset, as synergy_engine_create makes one.
SynergyFabric* synergy_fabric_create(void) {
  auto* fabric = new SynergyFabric;
  SYNERGY_FABRIC_BIND(fabric);
  for (SynergyEngine& slot : fabric->slots) {
    *slot.clk = 0;
    *slot.cont = 0;
    *slot.update = 0;
    *slot.openLoop = 0;
    *slot.openLoopN = 0;
    *slot.saWe = 0;
  }
  fabric->model.eval();
  return fabric;
}

// Slot `slot`'s engine; null past the last slot.
SynergyEngine* synergy_fabric_engine(SynergyFabric* fabric, uint32_t slot) {
  return slot < SYNERGY_FABRIC_SLOTS ? &fabric->slots[slot] : nullptr;
}

void synergy_fabric_finalize(SynergyFabric* fabric) {
  fabric->model.final();
  delete fabric;
}

uint64_t synergy_engine_get_state(SynergyEngine* engine, uint32_t id, uint32_t index, uint32_t word) {
  *engine->clk = 0;
  *engine->saId = SData(id);
  *engine->saIndex = index;
  *engine->saWord = SData(word);
  engine->model->eval();
  return *engine->saRdata;
}

void synergy_engine_set_state(SynergyEngine* engine, uint32_t id, uint32_t index, uint32_t word, uint64_t data) {
  *engine->saId = SData(id);
  *engine->saIndex = index;
  *engine->saWord = SData(word);
  *engine->saWdata = data;
  edgeWith(engine, engine->saWe);
}

uint32_t synergy_engine_evaluate(SynergyEngine* engine, uint64_t* edgeBudget) {
  while (*engine->task == 0 && !*engine->done) {
    if (*edgeBudget == 0)
      return SYNERGY_ENGINE_UNSETTLED;
    --*edgeBudget;
    edge(engine);
  }
  return *engine->task;
}

void synergy_engine_resume(SynergyEngine* engine) { edgeWith(engine, engine->cont); }

void synergy_engine_update(SynergyEngine* engine) { edgeWith(engine, engine->update); }

uint32_t synergy_engine_there_are_updates(SynergyEngine* engine) { return *engine->thereAreUpdates; }

uint32_t synergy_engine_open_loop(SynergyEngine* engine, uint32_t ticks, uint64_t edgesPerTick, uint32_t* ticksRun) {
  *engine->openLoopN = ticks;
  *engine->cont = *engine->task != 0;
  edgeWith(engine, engine->openLoop);
  *engine->cont = 0;
  uint32_t ticksLeft = *engine->ticksLeft;
  uint64_t edgesThisTick = 1;
  while (*engine->openLoopActive && *engine->task == 0) {
    if (*engine->ticksLeft != ticksLeft) {
      ticksLeft = *engine->ticksLeft;
      edgesThisTick = 0;
    }
    if (edgesThisTick++ >= edgesPerTick) {
      *ticksRun = ticks - *engine->ticksLeft;
      return SYNERGY_ENGINE_UNSETTLED;
    }
    edge(engine);
  }
  *ticksRun = ticks - *engine->ticksLeft;
  return *engine->task;
}

}  // extern "C"
#pragma GCC visibility pop
