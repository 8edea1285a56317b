//===- InputStream.h - The bytes an engine's input tasks read --------------===//
//
// $fgetc, $ungetc, $fgets, $feof, $fread and $fscanf read a file through
// this interface rather than a FILE*, so that one implementation of each
// (TaskServicer) serves both a solo run, whose streams are the FileTable's
// host files, and a hypervisor tenant's run, whose reads the hypervisor
// serves from a read-ahead window of the tenant's file
// (hypervisor/HypervisorProtocol.h). A window holds only the next bytes of
// the file; when a task needs more than it holds, the stream says it ran
// short, and the task writes nothing: the tenant, which has the file,
// services it instead.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace synergy::engine {

class InputStream {
 public:
  virtual ~InputStream() = default;
  // The next byte, or EOF (-1) at the end of the input, which sets atEnd().
  virtual int get() = 0;
  // Pushes `byte` back to be read next, clearing atEnd(), as ungetc does;
  // false when it cannot.
  virtual bool unget(uint8_t byte) = 0;
  // Whether a read hit the end of the input ($feof).
  virtual bool atEnd() const = 0;
  // Whether a get() or unget() needed bytes the stream does not hold, so
  // its answer says nothing about the file (a read-ahead window that ran
  // out before the file's end). A host file never runs short.
  virtual bool ranShort() const { return false; }
};

}  // namespace synergy::engine
