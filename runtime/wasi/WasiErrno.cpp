//===- WasiErrno.cpp - host errno to WASI errno ----------------------------===//
//
// One table from Linux errno to WASI errno. Aliases (EWOULDBLOCK, EDEADLOCK,
// EOPNOTSUPP) share their number with the entry already listed.
//
//===----------------------------------------------------------------------===//
#include "wasi/WasiErrno.h"

#include <cerrno>
#include <utility>

#include "sandbox/SandboxPath.h"

namespace synergy::wasi {

static constexpr std::pair<int, Errno> kHostToWasi[] = {
    {0, Errno::Success},
    {E2BIG, Errno::TooBig},
    {EACCES, Errno::Acces},
    {EADDRINUSE, Errno::AddrInUse},
    {EADDRNOTAVAIL, Errno::AddrNotAvail},
    {EAFNOSUPPORT, Errno::AfNoSupport},
    {EAGAIN, Errno::Again},
    {EALREADY, Errno::Already},
    {EBADF, Errno::Badf},
    {EBADMSG, Errno::BadMsg},
    {EBUSY, Errno::Busy},
    {ECANCELED, Errno::Canceled},
    {ECHILD, Errno::Child},
    {ECONNABORTED, Errno::ConnAborted},
    {ECONNREFUSED, Errno::ConnRefused},
    {ECONNRESET, Errno::ConnReset},
    {EDEADLK, Errno::Deadlk},
    {EDESTADDRREQ, Errno::DestAddrReq},
    {EDOM, Errno::Dom},
    {EDQUOT, Errno::Dquot},
    {EEXIST, Errno::Exist},
    {EFAULT, Errno::Fault},
    {EFBIG, Errno::Fbig},
    {EHOSTUNREACH, Errno::HostUnreach},
    {EIDRM, Errno::Idrm},
    {EILSEQ, Errno::Ilseq},
    {EINPROGRESS, Errno::InProgress},
    {EINTR, Errno::Intr},
    {EINVAL, Errno::Inval},
    {EIO, Errno::Io},
    {EISCONN, Errno::IsConn},
    {EISDIR, Errno::IsDir},
    {ELOOP, Errno::Loop},
    {EMFILE, Errno::Mfile},
    {EMLINK, Errno::Mlink},
    {EMSGSIZE, Errno::MsgSize},
    {EMULTIHOP, Errno::Multihop},
    {ENAMETOOLONG, Errno::NameTooLong},
    {ENETDOWN, Errno::NetDown},
    {ENETRESET, Errno::NetReset},
    {ENETUNREACH, Errno::NetUnreach},
    {ENFILE, Errno::Nfile},
    {ENOBUFS, Errno::NoBufs},
    {ENODEV, Errno::NoDev},
    {ENOENT, Errno::NoEnt},
    {ENOEXEC, Errno::NoExec},
    {ENOLCK, Errno::NoLck},
    {ENOLINK, Errno::NoLink},
    {ENOMEM, Errno::NoMem},
    {ENOMSG, Errno::NoMsg},
    {ENOPROTOOPT, Errno::NoProtoOpt},
    {ENOSPC, Errno::NoSpc},
    {ENOSYS, Errno::NoSys},
    {ENOTCONN, Errno::NotConn},
    {ENOTDIR, Errno::NotDir},
    {ENOTEMPTY, Errno::NotEmpty},
    {ENOTRECOVERABLE, Errno::NotRecoverable},
    {ENOTSOCK, Errno::NotSock},
    {ENOTSUP, Errno::NotSup},
    {ENOTTY, Errno::NotTty},
    {ENXIO, Errno::Nxio},
    {EOVERFLOW, Errno::Overflow},
    {EOWNERDEAD, Errno::OwnerDead},
    {EPERM, Errno::Perm},
    {EPIPE, Errno::Pipe},
    {EPROTO, Errno::Proto},
    {EPROTONOSUPPORT, Errno::ProtoNoSupport},
    {EPROTOTYPE, Errno::ProtoType},
    {ERANGE, Errno::Range},
    {EROFS, Errno::Rofs},
    {ESPIPE, Errno::Spipe},
    {ESRCH, Errno::Srch},
    {ESTALE, Errno::Stale},
    {ETIMEDOUT, Errno::TimedOut},
    {ETXTBSY, Errno::TxtBsy},
    {EXDEV, Errno::Xdev},
};

Errno errnoFromHost(int hostErrno) {
  for (const auto& [host, wasi] : kHostToWasi)
    if (host == hostErrno) return wasi;
  return Errno::Io;
}

Errno errnoFromSandbox(int sandboxError) {
  return sandboxError == sandbox::kEscapes ? Errno::NotCapable : errnoFromHost(sandboxError);
}

}  // namespace synergy::wasi
