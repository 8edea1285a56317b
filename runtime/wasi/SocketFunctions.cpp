//===- SocketFunctions.cpp - WASI sock_* -----------------------------------===//
//
// Preview1 cannot create sockets; it can only use ones the host preopens, and
// synergy-run preopens none. The functions still exist so that a guest whose
// libc references them links and loads, and learns at run time that the
// descriptor is not a socket.
//
//===----------------------------------------------------------------------===//
#include "granule/Granule.h"
#include "wasi/WasiAbi.h"
#include "wasi/WasiImports.h"
#include "wasi/WasiState.h"

using synergy::granule::Granule;
using namespace synergy::wasi;

static uint32_t notASocket(WasiInstance* instance, uint32_t fd) {
  if (!wasiState(Granule::fromHost(instance)).find(fd)) return toGuest(Errno::Badf);
  return toGuest(Errno::NotSock);
}

extern "C" {

uint32_t Z_wasi_snapshot_preview1Z_sock_accept(WasiInstance* instance, uint32_t fd, uint32_t,
                                               uint32_t) {
  return notASocket(instance, fd);
}

uint32_t Z_wasi_snapshot_preview1Z_sock_recv(WasiInstance* instance, uint32_t fd, uint32_t,
                                             uint32_t, uint32_t, uint32_t, uint32_t) {
  return notASocket(instance, fd);
}

uint32_t Z_wasi_snapshot_preview1Z_sock_send(WasiInstance* instance, uint32_t fd, uint32_t,
                                             uint32_t, uint32_t, uint32_t) {
  return notASocket(instance, fd);
}

uint32_t Z_wasi_snapshot_preview1Z_sock_shutdown(WasiInstance* instance, uint32_t fd, uint32_t) {
  return notASocket(instance, fd);
}

}  // extern "C"
