//===- OutputForwarding.h - each rank's stdout and stderr, line by line ---===//
//
// Every rank writes its stdout and stderr into its own pipes; one forwarding
// thread reads all of them and writes whole lines to the launcher's stdout
// and stderr, so lines from different ranks never interleave mid-line. With
// tagging on, each line is prefixed the way `mpirun --tag-output` does:
// "[1,<rank>]<stdout>:".
//
//===----------------------------------------------------------------------===//
#pragma once

#include <array>
#include <atomic>
#include <deque>
#include <map>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace synergy::mpi {

class OutputForwarding {
 public:
  // One stream pair per rank of `worldRanks`; tags name rank
  // worldRanks[i] for the i-th.
  OutputForwarding(const std::vector<int>& worldRanks, bool tagOutput);
  ~OutputForwarding();
  OutputForwarding(const OutputForwarding&) = delete;
  OutputForwarding& operator=(const OutputForwarding&) = delete;

  bool ok() const { return ok_; }
  // The write end of rank `rank`'s pipe for `stream` (1 or 2). Ownership
  // passes to the caller, who closes it when the rank is done.
  int takeWriteEnd(int rank, int stream);
  // A rank that arrives here while the job runs (issue 22's live move into
  // a running part): a stream pair for world rank `worldRank`, forwarded
  // from now on as the others; its write ends go to `writeEnds` (stdout,
  // stderr), owned by the caller. False when the pipes cannot be made, the
  // rank is out of range or already has streams here that are still open.
  bool addRank(int worldRank, int writeEnds[2]);
  void start();
  // Forwards everything until every write end is closed, then returns.
  void finish();
  // Forwards whatever is readable now, and any partial lines, then stops:
  // for a job ending while some ranks still run. Callable from several
  // threads at once (a rank's pthread ending the process while the
  // launcher ends the job): a later call returns once the first is done.
  void flushNow();
  // Forwards everything the ranks have written so far, partial lines too,
  // and keeps forwarding: for a checkpoint, while every rank is stopped.
  void drain();
  // Forwards the whole lines the ranks have written so far and keeps a
  // partial last line back; returns the first rank with one, -1 when none.
  // A checkpoint there would cut that line in two around another rank's
  // output, so it is not taken (the ranks must stand still meanwhile).
  int rankMidLine();
  // A live move between parts (issue 22). On the source, once world rank
  // `worldRank` departed (it writes nothing more here): forwards its whole
  // lines, waits (a second at most) until this process's stdout and stderr,
  // when pipes, are read empty, so that those lines have left before the
  // rank prints on the target, and returns its unfinished last lines
  // (stdout, stderr). They stay pending here: forwarded if the rank goes
  // on here after all, forgotten by dropTails once it has left. A tail of
  // more than `maxBytes` is forwarded now, cut, and not returned.
  std::array<std::string, 2> holdTails(int worldRank, size_t maxBytes);
  void dropTails(int worldRank);
  // On the target, before addRank: the rank's streams start with `tails`.
  void seedTails(int worldRank, const std::array<std::string, 2>& tails);
  // The bytes written to the launcher's stdout so far (tags included).
  uint64_t stdoutBytes() const { return stdoutBytes_.load(); }

 private:
  struct Stream {
    int rank;
    int target;  // 1 or 2
    int readFd = -1;
    int writeFd = -1;
    std::string pending;
    bool open = true;
  };
  // World rank `worldRank`'s stdout and stderr streams, their pipes made,
  // in `made`, and the pipes' write ends in `writeEnds` (Stream::writeFd is
  // left to the caller); false, with nothing left open, when a pipe cannot
  // be made.
  static bool openStreams(int worldRank, Stream made[2], int writeEnds[2]);
  void run();
  bool pump(Stream& stream);  // false at end of file
  void emit(Stream& stream, const std::string& line);
  // Forwards the whole lines of `stream`'s pending bytes, keeping the rest.
  void emitWholeLines(Stream& stream);
  // Reads what `stream`'s pipe holds now and forwards its whole lines,
  // keeping a partial last line pending.
  void readAvailable(Stream& stream);
  // Reads what `stream` holds now and forwards it, a partial last line too.
  void emptyStream(Stream& stream);

  std::mutex mutex_;  // the forwarding thread's pump against drain()
  std::mutex endLock_;  // finish() and flushNow() against each other
  // A deque: addRank appends while the forwarding thread holds pointers to
  // the streams it polls (the list is taken under mutex_).
  std::deque<Stream> streams_;
  std::map<int, std::array<std::string, 2>> seeded_;  // seedTails, for addRank
  bool tag_;
  bool ok_ = true;
  std::atomic<uint64_t> stdoutBytes_{0};
  int stopPipe_[2] = {-1, -1};
  int wakePipe_[2] = {-1, -1};  // addRank wakes the poll to take the new streams
  std::thread thread_;
};

}  // namespace synergy::mpi
