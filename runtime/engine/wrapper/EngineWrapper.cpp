//===- EngineWrapper.cpp - the engine ABI over synergy_engine's ports -----===//
//
// Compiled into every engine shared object next to the Verilator model of the
// emitted module (never into the runtime itself). Each entry point drives the
// cycle protocol documented in hwlower/EngineManifest.h: one "edge" is __clk
// low then high with an eval() after each change. The Verilator model is
// reached only through its top-level ports, as an FPGA shell would.
//
//===----------------------------------------------------------------------===//
#include "EngineAbi.h"
#include "Vsynergy_engine.h"
#include "verilated.h"

// Verilator encodes a leading "__" of an identifier as "___05F", so the
// emitted module's port __clk is the C++ member ___05Fclk.
#define PORT(name) ___05F##name

struct SynergyEngine {
  VerilatedContext context;
  Vsynergy_engine model{&context, "synergy_engine"};
};

// The model must have seen __clk low before the rising edge. A state read
// lowers it with its own eval (nothing in the module acts on a falling
// __clk), so an edge right after a read, as when a task's result is written
// after its arguments are read, needs one eval instead of two.
static void edge(SynergyEngine* engine) {
  Vsynergy_engine& top = engine->model;
  if (top.PORT(clk)) {
    top.PORT(clk) = 0;
    top.eval();
  }
  top.PORT(clk) = 1;
  top.eval();
}

// Edges with one control input held high, then released. The release needs
// no eval of its own: every output read after an edge (__task, __done,
// __there_are_updates, __open_loop_active, __ticks_left) is computed from
// registers alone, and every entry point evaluates before its next edge or
// before reading __sa_rdata. A trap's round trip is a handful of edges, so
// one eval fewer per edge is a large part of it.
template <typename Port>
static void edgeWith(SynergyEngine* engine, Port& control) {
  control = 1;
  edge(engine);
  control = 0;
}

// The object is built with -fvisibility=hidden; these are its only exports.
#pragma GCC visibility push(default)
extern "C" {

uint32_t synergy_engine_abi_version(void) { return SYNERGY_ENGINE_ABI_VERSION; }

SynergyEngine* synergy_engine_create(void) {
  auto* engine = new SynergyEngine;
  Vsynergy_engine& top = engine->model;
  top.PORT(clk) = 0;
  top.PORT(cont) = 0;
  top.PORT(update) = 0;
  top.PORT(open_loop) = 0;
  top.PORT(open_loop_n) = 0;
  top.PORT(sa_we) = 0;
  top.eval();
  return engine;
}

void synergy_engine_finalize(SynergyEngine* engine) {
  engine->model.final();
  delete engine;
}

uint64_t synergy_engine_get_state(SynergyEngine* engine, uint32_t id, uint32_t index, uint32_t word) {
  Vsynergy_engine& top = engine->model;
  top.PORT(clk) = 0;
  top.PORT(sa_id) = id;
  top.PORT(sa_index) = index;
  top.PORT(sa_word) = word;
  top.eval();
  return top.PORT(sa_rdata);
}

void synergy_engine_set_state(SynergyEngine* engine, uint32_t id, uint32_t index, uint32_t word,
                              uint64_t data) {
  Vsynergy_engine& top = engine->model;
  top.PORT(sa_id) = id;
  top.PORT(sa_index) = index;
  top.PORT(sa_word) = word;
  top.PORT(sa_wdata) = data;
  edgeWith(engine, top.PORT(sa_we));
}

uint32_t synergy_engine_evaluate(SynergyEngine* engine, uint64_t* edgeBudget) {
  Vsynergy_engine& top = engine->model;
  while (top.PORT(task) == 0 && !top.PORT(done)) {
    if (*edgeBudget == 0)
      return SYNERGY_ENGINE_UNSETTLED;
    --*edgeBudget;
    edge(engine);
  }
  return top.PORT(task);
}

void synergy_engine_resume(SynergyEngine* engine) { edgeWith(engine, engine->model.PORT(cont)); }

void synergy_engine_update(SynergyEngine* engine) { edgeWith(engine, engine->model.PORT(update)); }

uint32_t synergy_engine_there_are_updates(SynergyEngine* engine) {
  return engine->model.PORT(there_are_updates);
}

uint32_t synergy_engine_open_loop(SynergyEngine* engine, uint32_t ticks, uint64_t edgesPerTick,
                                  uint32_t* ticksRun) {
  Vsynergy_engine& top = engine->model;
  top.PORT(open_loop_n) = ticks;
  top.PORT(cont) = top.PORT(task) != 0;
  edgeWith(engine, top.PORT(open_loop));
  top.PORT(cont) = 0;
  uint32_t ticksLeft = top.PORT(ticks_left);
  uint64_t edgesThisTick = 1;
  while (top.PORT(open_loop_active) && top.PORT(task) == 0) {
    if (top.PORT(ticks_left) != ticksLeft) {
      ticksLeft = top.PORT(ticks_left);
      edgesThisTick = 0;
    }
    if (edgesThisTick++ >= edgesPerTick) {
      *ticksRun = ticks - top.PORT(ticks_left);
      return SYNERGY_ENGINE_UNSETTLED;
    }
    edge(engine);
  }
  *ticksRun = ticks - top.PORT(ticks_left);
  return top.PORT(task);
}

}  // extern "C"
#pragma GCC visibility pop
