//===- EngineAbi.h - C entry points of a built engine shared object -------===//
//
// A built engine is a shared object holding the Verilator model of the
// emitted `synergy_engine` module and the wrapper in wrapper/EngineWrapper.cpp.
// The runtime finds these symbols with dlsym. They are the engine ABI of
// DESIGN.md, expressed over the module's ports only: no entry point reaches
// into Verilator's internals, so an FPGA engine could implement the same set.
// The header is compiled both into the runtime and into every engine, so it
// stays plain C.
//
//===----------------------------------------------------------------------===//
#ifndef SYNERGY_ENGINE_ABI_H
#define SYNERGY_ENGINE_ABI_H

#include <stdint.h>

#define SYNERGY_ENGINE_ABI_VERSION 3

// Returned by evaluate and open_loop when the edge budget ran out before the
// engine settled: a design (or a mutated engine) that never reaches __done.
// __task is 16 bits wide, so no task id collides with it.
#define SYNERGY_ENGINE_UNSETTLED 0xffffffffu

#ifdef __cplusplus
extern "C" {
#endif

typedef struct SynergyEngine SynergyEngine;

// The ABI version the object was built against; the runtime refuses others.
typedef uint32_t (*SynergyEngineAbiVersionFn)(void);
// A fresh engine after reset: every `initial` block armed for tick 0.
typedef SynergyEngine* (*SynergyEngineCreateFn)(void);
// finalize: runs Verilator's final blocks and frees the model.
typedef void (*SynergyEngineFinalizeFn)(SynergyEngine*);
// get_state: one 64-bit word of element `index` of variable `id`.
typedef uint64_t (*SynergyEngineGetStateFn)(SynergyEngine*, uint32_t id, uint32_t index, uint32_t word);
// set_state: writes that word through one state-access write cycle.
typedef void (*SynergyEngineSetStateFn)(SynergyEngine*, uint32_t id, uint32_t index, uint32_t word,
                                        uint64_t data);
// evaluate: clock the engine until it is quiescent (__done, returns 0) or a
// task traps (returns its id, the value of __task), at most *edgeBudget
// edges: each edge decrements it, and at 0 it returns SYNERGY_ENGINE_UNSETTLED.
typedef uint32_t (*SynergyEngineEvaluateFn)(SynergyEngine*, uint64_t* edgeBudget);
// After a trapped task was serviced: one __cont cycle.
typedef void (*SynergyEngineResumeFn)(SynergyEngine*);
// update: one __update cycle latching pending non-blocking assignments.
typedef void (*SynergyEngineUpdateFn)(SynergyEngine*);
// there_are_updates: the __there_are_updates output.
typedef uint32_t (*SynergyEngineThereAreUpdatesFn)(SynergyEngine*);
// open_loop: up to `ticks` ticks without the host. Returns the pending task
// id (0 if none) and stores the number of ticks the engine started in
// *ticksRun (with a task pending, the last of those is still in progress).
// On an engine stopped at a serviced task, the first cycle also resumes it,
// so the trapped tick finishes inside the run and is not counted in
// *ticksRun: a trap then costs one call instead of a resume and an
// evaluate/update loop on the host. A tick (from one change of __ticks_left
// to the next) that takes more than edgesPerTick edges ends the run with
// SYNERGY_ENGINE_UNSETTLED.
typedef uint32_t (*SynergyEngineOpenLoopFn)(SynergyEngine*, uint32_t ticks, uint64_t edgesPerTick,
                                            uint32_t* ticksRun);

#ifdef __cplusplus
}
#endif

#endif  // SYNERGY_ENGINE_ABI_H
