/* Synergy guest API: calls a granule may make into the runtime. */
#ifndef SYNERGY_H
#define SYNERGY_H

#define SYNERGY_IMPORT(name) __attribute__((import_module("synergy"), import_name(name)))

#endif
