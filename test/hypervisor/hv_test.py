#!/usr/bin/env python3
"""Tests of the Synergy hypervisor (issue 21). Each case starts its own
synergy-hv on 127.0.0.1 (a free port, a fresh token file), runs clients
against it, and stops it with SIGTERM, which must end it with status 0.

  hv_test.py --bin-dir B --iverilog I --vvp V tenants [--split] [--group N] SPEC...
      Compiles each design with synergy-cc and runs all of them at once (or
      N at once, one group after another) as tenants (synergy-run
      --hypervisor). Each tenant's stdout and exit
      status must equal vvp's, and vvp's must equal the spec's expected file
      when it names one. SPEC is FILE.v[,inputs=DIR][,expected=FILE]
      [,vvp-define=NAME] (NAME defined for iverilog only)
      [,stdin=FILE[:BURST]] (FILE fed to vvp's and the tenant's stdin
      through a pipe, BURST bytes every 20 ms); inputs default to
      test/verilog/Inputs. --split also runs the first design
      through the hypervisor split by --save-at-tick and --restart, and
      restarts the same saved state under a second synergy-hv on 127.0.0.2
      and under a plain synergy-run: each first half plus second half must
      equal vvp's output. Afterwards synergy-hv-ctl status must account for
      every engine on each hypervisor: as many compiles plus cache hits as
      submissions, none left running, and one change of the set of engines
      per engine start and per engine end.

  hv_test.py --bin-dir B --iverilog I --vvp V swap [--victim FILE.v]
             --joiner SPEC [--recombine-every N] [--min-moves M]
      The victim (swap_victim.v, or yield_victim.v for a $yield design)
      waits mid-run, polling for a file named go, while the hypervisor moves
      it into combined programs: when a design no cache holds joins (the
      victim must be served while their program compiles), when the joiner
      joins (a compile), when the
      same pair rejoins (the program must come from the cache: no compile),
      and, under a second synergy-hv with --recombine-every N, at least M
      times. Only then is go created. Each move must have copied exactly the
      state words the manifest lists (only the non-volatile ones for a
      $yield design), and the victim's and joiner's output must equal vvp's.
      Last, under a third synergy-hv, a raw client runs the victim's design
      to its trap inside a tick and vanishes while its engine waits to move
      into a combined program (mid-handshake): it must never move and be
      finalized, and the victim must move twice more and still print vvp's
      output.

  hv_test.py --bin-dir B --iverilog I --vvp V migrate
      swap_victim.v runs as a tenant of a synergy-hv on 127.0.0.1 and waits
      mid-run for a file named go. synergy-hv-ctl migrate moves its engine to
      a second synergy-hv on 127.0.0.2 (same token) and then back; each time
      the engine must leave the one and run on the other. Migrations of an
      unknown engine and to a malformed address must be refused with their
      reason (synergy-hv-ctl exit status 2) and change nothing. Then go is
      created: the victim's output must equal vvp's, and both hypervisors
      must account for every engine.

  hv_test.py --bin-dir B timeline [--min-advances N] [--solo-min-advances N]
             [--victim FILE.v --input NAME:FROM:COPIES]
      slow_tick_victim.v runs alone as a tenant with --timeline; its one
      open-loop batch lasts seconds. The hypervisor's progress reports
      (HvRunProgress, protocol 6) must move the timeline's ticks in at least
      N rows before the last (default 5; a batch's reply alone moves them in
      one), never backwards, and the tenant's output, final ticks and tasks
      must equal a solo synergy-run's of the same engine. --victim runs
      another design, over a file NAME of COPIES copies of FROM;
      --solo-min-advances checks the solo run's timeline alike.

  hv_test.py --bin-dir B sandbox
      sandbox_victim.v runs solo and as a tenant with the same read-only
      --dir grant: a granted file opens and reads, one above the grant, an
      absolute path outside it and a file opened for writing do not; both
      runs must print exactly that (the tenant's tasks run in its own
      runtime, inside its own grants).

  hv_test.py --bin-dir B --iverilog I --vvp V hostile
      A victim tenant runs long_victim.v while a hostile client, speaking raw
      frames built from runtime/transport/FrameTypes.h, tries everything
      issue 21 lists: a missing and a wrong token, requests before HvHello,
      a wrong protocol version, forged engine ids aimed at the victim
      (reads and writes), out-of-range state ids, elements and words on its
      own engine, a write to a net, a design whose top name carries a newline
      and a terminal escape (they must reach the daemon's log and status
      report escaped), an oversized and a truncated frame, a
      record of the wrong length, a malformed manifest, raw HvMigrate frames
      (without the admin token, naming no engine or a bad address, longer
      than allowed), replies (HvMoveTo, HvOpenLooped) sent as requests,
      HvReadState of foreign or out-of-range words or with a false count, and
      clients that vanish mid-handshake (half a Hello; Hello but no HvHello)
      and mid-request. Each attempt must be refused or
      dropped with its one-line reason (checked in the reply or the daemon's
      log), the victim's output must still equal vvp's, and the daemon must
      still serve a status request and stop cleanly. On its own fresh lfsr.v
      engine the client sends one HvOpenLoop: the reply must carry all
      twelve $display traps, each with the value vvp prints and its tick,
      then stop at $finish. Last, --max-tenant-state: a tenant is refused an
      engine that would take its engines' state over the cap, and nothing is
      built for it.

  hv_test.py --bin-dir B --iverilog I --vvp V rogue-hypervisor
      The other way round: lfsr.v runs as the tenant of a fake hypervisor
      (this script) whose HvOpenLooped replies lie: a run that went past
      $finish, more ticks than asked for, a trap count or word count its
      bytes do not hold. The tenant must end with status 2 and its one-line
      reason before it services any trap of that reply (no output at all).
      Then a run of 4000 $display traps that stopped between two ticks: the
      tenant must send its next HvOpenLoop, for the ticks left, before it
      services them (its stdout, a one-page pipe, is read only once that
      request came), and print them all; and out of time (--time-limit)
      with that request unanswered, it reads the reply and then finalizes.
"""
import argparse
import difflib
import fcntl
import os
import re
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_INPUTS = os.path.join(ROOT, "test", "verilog", "Inputs")
TIMEOUT = 600


def frame_types():
    """The FrameType enum, read from the header that defines the protocol."""
    text = open(os.path.join(ROOT, "runtime", "transport", "FrameTypes.h")).read()
    body = text[text.index("enum class FrameType"):]
    body = body[:body.index("};")]
    return {name: int(value) for name, value in re.findall(r"^\s*(\w+) = (\d+),", body, re.M)}


FT = frame_types()


def protocol_version():
    text = open(os.path.join(ROOT, "runtime", "hypervisor", "HypervisorProtocol.h")).read()
    return int(re.search(r"kHypervisorProtocolVersion = (\d+);", text).group(1))


PROTOCOL = protocol_version()


def frame(type_name, payload=b"", length=None):
    size = len(payload) if length is None else length
    return b"SYN1" + struct.pack("<HHQ", FT[type_name], 0, size) + payload


class Failure(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise Failure(message)


class Hypervisor:
    """synergy-hv on `host` (a loopback address) with a fresh token and a
    fresh admin token; its stderr goes to a log of its own."""

    def __init__(self, bin_dir, root, extra=(), host="127.0.0.1", same_token_as=None):
        self.bin_dir = bin_dir
        if same_token_as:
            self.token, self.token_file = same_token_as.token, same_token_as.token_file
        else:
            self.token = b"hv-test-token-" + os.urandom(12).hex().encode()
            self.token_file = os.path.join(root, "token-%s" % os.urandom(4).hex())
            fd = os.open(self.token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            os.write(fd, self.token)
            os.close(fd)
        self.admin_token_file = os.path.join(root, "admin-token-%s" % os.urandom(4).hex())
        fd = os.open(self.admin_token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, b"hv-test-admin-" + os.urandom(12).hex().encode())
        os.close(fd)
        self.log_path = os.path.join(root, "synergy-hv.log" if host == "127.0.0.1" else "synergy-hv-%s.log" % host)
        if os.path.exists(self.log_path):
            os.rename(self.log_path, self.log_path + ".%s" % os.urandom(4).hex())
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen([os.path.join(bin_dir, "synergy-hv"), "--listen", host + ":0",
                                      "--token-file", self.token_file,
                                      "--admin-token-file", self.admin_token_file, *extra],
                                     stdout=subprocess.PIPE, stderr=self.log)
        ready, _, _ = select.select([self.proc.stdout], [], [], 30)
        expect(ready, "synergy-hv did not start listening")
        line = self.proc.stdout.readline().decode()
        match = re.match(r"synergy-hv: listening on %s:(\d+)$" % re.escape(host), line.strip())
        expect(match, "unexpected first line from synergy-hv: %r" % line)
        self.port = int(match.group(1))
        self.address = "%s:%d" % (host, self.port)

    def log_text(self):
        self.log.flush()
        return open(self.log_path, "rb").read().decode(errors="replace")

    def status(self):
        proc = subprocess.run([os.path.join(self.bin_dir, "synergy-hv-ctl"), "--connect", self.address,
                               "--token-file", self.token_file, "status"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        expect(proc.returncode == 0, "synergy-hv-ctl status failed: " + proc.stderr.decode(errors="replace"))
        return proc.stdout.decode()

    def ctl(self, *command):
        """synergy-hv-ctl against this hypervisor: (exit status, stdout, stderr)."""
        proc = subprocess.run([os.path.join(self.bin_dir, "synergy-hv-ctl"), "--connect", self.address,
                               "--token-file", self.token_file, *command],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        return proc.returncode, proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace")

    def stop(self):
        expect(self.proc.poll() is None, "synergy-hv died: status %s\n%s" % (self.proc.poll(), self.log_text()))
        self.proc.send_signal(signal.SIGTERM)
        # A combined program still compiling is let finish.
        status = self.proc.wait(timeout=TIMEOUT)
        expect(status == 0, "synergy-hv exited with %d after SIGTERM" % status)
        expect("SIGTERM: stopping" in self.log_text(), "synergy-hv did not report its stop")


def copy_inputs(src, dst):
    shutil.copytree(src, dst)
    return dst


def piped_in_bursts(path, burst, ready=None):
    """The read end of a pipe that a thread feeds with the bytes of `path`,
    `burst` bytes at a time, 20 ms apart, once ready() (when given) is true,
    and then closes; /dev/null without a path."""
    if path is None:
        return subprocess.DEVNULL
    data = open(path, "rb").read()
    read_end, write_end = os.pipe()

    def feed():
        if ready:
            wait_for("the reader to be ready", ready)
        with os.fdopen(write_end, "wb") as out:
            for start in range(0, len(data), burst):
                try:
                    out.write(data[start:start + burst])
                    out.flush()
                except BrokenPipeError:
                    return
                time.sleep(0.02)

    threading.Thread(target=feed, daemon=True).start()
    return read_end


def start_with_input(command, stdin, **kwargs):
    """Popen with `stdin` from piped_in_bursts, whose read end is the child's alone."""
    proc = subprocess.Popen(command, stdin=stdin, **kwargs)
    if isinstance(stdin, int) and stdin >= 0:
        os.close(stdin)
    return proc


def under_vvp(source, inputs, root, iverilog, vvp, defines=(), stdin_file=None, burst=0):
    work = copy_inputs(inputs, os.path.join(root, "vvp"))
    image = os.path.join(work, "tb.vvp")
    subprocess.run([iverilog, *["-D" + name for name in defines], "-o", image, source], cwd=work, check=True,
                   timeout=TIMEOUT)
    proc = start_with_input([vvp, "-n", image], piped_in_bursts(stdin_file, burst), cwd=work,
                            stdout=subprocess.PIPE)
    out, _ = proc.communicate(timeout=TIMEOUT)
    return out, proc.returncode


def compile_engine(source, inputs, root, bin_dir):
    work = copy_inputs(inputs, os.path.join(root, "compile"))
    engine = os.path.join(root, "tb.eng")
    proc = subprocess.run([os.path.join(bin_dir, "synergy-cc"), source, "-o", engine], cwd=work,
                          stderr=subprocess.PIPE, timeout=TIMEOUT)
    expect(proc.returncode == 0, "synergy-cc %s failed:\n%s" % (source, proc.stderr.decode(errors="replace")))
    return engine


def compare(name, expected, actual, stderr=b""):
    if expected == actual:
        return
    diff = difflib.unified_diff(expected[0].decode(errors="replace").splitlines(True),
                                actual[0].decode(errors="replace").splitlines(True), "vvp", name)
    raise Failure("%s: exit %d vs %d\n%s\nstderr:\n%s" % (name, expected[1], actual[1], "".join(diff),
                                                         stderr.decode(errors="replace")))


class Tenant:
    def __init__(self, spec, index, root, args):
        parts = spec.split(",")
        self.source = os.path.abspath(parts[0])
        self.inputs = DEFAULT_INPUTS
        self.expected_file = None
        self.vvp_defines = []
        self.stdin_file, self.stdin_burst = None, 0
        for part in parts[1:]:
            key, _, value = part.partition("=")
            if key == "stdin":
                path, _, burst = value.partition(":")
                self.stdin_file, self.stdin_burst = os.path.abspath(path), int(burst or 4096)
            elif key == "inputs":
                self.inputs = os.path.abspath(value)
            elif key == "expected":
                self.expected_file = os.path.abspath(value)
            elif key == "vvp-define":
                self.vvp_defines.append(value)
            else:
                raise SystemExit("bad tenant spec: " + spec)
        self.name = "%d-%s" % (index, os.path.splitext(os.path.basename(self.source))[0])
        self.root = os.path.join(root, self.name)
        os.makedirs(self.root)
        self.expected = under_vvp(self.source, self.inputs, self.root, args.iverilog, args.vvp, self.vvp_defines,
                                  self.stdin_file, self.stdin_burst)
        if self.expected_file:
            compare(self.name + " (vvp against expected.txt)", (open(self.expected_file, "rb").read(), 0),
                    self.expected)
        self.engine = compile_engine(self.source, self.inputs, self.root, args.bin_dir)

    def start(self, bin_dir, hv, work_name="run", extra=()):
        """A tenant of `hv`, or a plain synergy-run when hv is None."""
        work = copy_inputs(self.inputs, os.path.join(self.root, work_name))
        # A plain run is the compiled engine's, as a tenant's is.
        tenancy = ["--hypervisor", hv.address, "--token-file", hv.token_file] if hv else ["--engine", "compiled"]
        # A tenant's input starts once an engine runs on the hypervisor, so
        # that the bursts do not all wait in the pipe before it reads.
        ready = (lambda: running_engine_ids(hv)) if hv else None
        return start_with_input([os.path.join(bin_dir, "synergy-run"), *tenancy, self.engine, *extra],
                                piped_in_bursts(self.stdin_file, self.stdin_burst, ready), cwd=work,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(proc):
    out, err = proc.communicate(timeout=TIMEOUT)
    return (out, proc.returncode), err


def status_fields(text):
    fields = {}
    for key, pattern in [("generation", r"^program generation (\d+)"), ("changes", r"^engine set changes (\d+)"),
                         ("combined_compiles", r"^combined compiles (\d+)"),
                         ("combined_hits", r"^combined compiles \d+, cache hits (\d+)"),
                         ("moves", r"^moves (\d+)"), ("tenants", r"^tenants (\d+)"),
                         ("running", r"^engines (\d+) running"), ("building", r"running, (\d+) building"),
                         ("compiles", r"^compiles (\d+)"), ("hits", r"^compiles \d+, cache hits (\d+)"),
                         ("requests", r"^engine requests (\d+)"), ("traps", r"trapped tasks (\d+)")]:
        match = re.search(pattern, text, re.M)
        expect(match, "status lacks %s:\n%s" % (key, text))
        fields[key] = int(match.group(1))
    return fields


def status_after_tenants_left(hv):
    """The status fields once no tenant is connected. A client exits once
    its engine is finalized, and the hypervisor sees its connection close a
    moment later, so a status asked for at once may still count it."""
    def settled():
        fields = status_fields(hv.status())
        return fields if fields["tenants"] == 0 else None
    return wait_for("every tenant of %s to leave" % hv.address, settled, timeout=60)


def check_accounting(hv, submissions):
    """synergy-hv-ctl status accounts for every engine submitted to `hv`; returns its fields."""
    fields = status_after_tenants_left(hv)
    expect(fields["tenants"] == 0 and fields["running"] == 0 and fields["building"] == 0,
           "engines left behind on %s: %s" % (hv.address, fields))
    expect(fields["compiles"] + fields["hits"] == submissions,
           "%d submissions to %s, but %s" % (submissions, hv.address, fields))
    expect(fields["changes"] == 2 * submissions, "%d engine set changes on %s after %d engines came and went" %
           (fields["changes"], hv.address, submissions))
    print("ok status of %s: %s" % (hv.address, fields))
    return fields


def case_tenants(args, root):
    tenants = [Tenant(spec, k, root, args) for k, spec in enumerate(args.specs)]
    hv = Hypervisor(args.bin_dir, root,
                    ["--recombine-every", str(args.recombine_every)] if args.recombine_every else ())
    other = None
    submissions = 0
    try:
        for round in range(args.rounds):
            if round > 0:
                # The combined programs the last round asked for are built
                # and cached before the next round starts, so that its
                # tenants move into them while they run.
                wait_for("the combined program to be built",
                         lambda: re.search(r"^combined compiling nothing$", hv.status(), re.M))
            group = args.group or len(tenants)
            for first in range(0, len(tenants), group):
                procs = [(tenant, tenant.start(args.bin_dir, hv, "round-%d" % round))
                         for tenant in tenants[first:first + group]]
                submissions += len(procs)
                for tenant, proc in procs:
                    actual, err = finish(proc)
                    compare(tenant.name + " (tenant)", tenant.expected, actual, err)
                    print("ok %s: %d bytes, exit %d" % (tenant.name, len(actual[0]), actual[1]))
        if args.split:
            tenant = tenants[0]
            tick = 5
            match = re.search(rb"// SAVE-AT-TICK: (\d+)", open(tenant.source, "rb").read())
            if match:
                tick = int(match.group(1))
            state = os.path.join(tenant.root, "tb.state")
            first, err = finish(tenant.start(args.bin_dir, hv, "split", ["--save-at-tick", str(tick), state]))
            expect(first[1] == 0 and os.path.exists(state),
                   "save through the hypervisor failed: %d\n%s" % (first[1], err.decode(errors="replace")))
            second, err = finish(tenant.start(args.bin_dir, hv, "restart", ["--restart", state]))
            submissions += 2
            compare(tenant.name + " (split at tick %d)" % tick, tenant.expected, (first[0] + second[0], second[1]),
                    err)
            print("ok %s split at tick %d" % (tenant.name, tick))
            # The state saved under the first hypervisor restarts under a
            # second one on another loopback address, and under no
            # hypervisor at all.
            other = Hypervisor(args.bin_dir, root, host="127.0.0.2")
            for where, restart_hv in [("under %s" % other.address, other), ("under a plain synergy-run", None)]:
                work_name = "restart-other" if restart_hv else "restart-plain"
                second, err = finish(tenant.start(args.bin_dir, restart_hv, work_name, ["--restart", state]))
                compare("%s (saved under %s at tick %d, restarted %s)" % (tenant.name, hv.address, tick, where),
                        tenant.expected, (first[0] + second[0], second[1]), err)
                print("ok %s saved under %s at tick %d restarts %s" % (tenant.name, hv.address, tick, where))
            check_accounting(other, 1)
        fields = check_accounting(hv, submissions)
        if args.recombine_every:
            # Each move happens between two open-loop runs, so with reads
            # served from read-ahead windows it falls in the middle of a file.
            expect(fields["moves"] >= args.min_moves, "only %d moves into combined programs, the check needs %d" %
                   (fields["moves"], args.min_moves))
            print("ok %d moves into combined programs while the tenants ran" % fields["moves"])
        if args.max_requests_per_trap is not None:
            # A trap reply carries the task's argument words and the result
            # writes travel with the resume (RemoteEngine.cpp): a task costs
            # about one request, where one per ABI call cost three to five.
            expect(fields["traps"] >= args.min_traps, "only %d trapped tasks; the check needs at least %d" %
                   (fields["traps"], args.min_traps))
            ratio = fields["requests"] / fields["traps"]
            expect(ratio <= args.max_requests_per_trap, "%d engine requests for %d trapped tasks: %.2f per task, "
                   "more than %.2f" % (fields["requests"], fields["traps"], ratio, args.max_requests_per_trap))
            print("ok %.2f engine requests per trapped task (%d for %d)" % (ratio, fields["requests"],
                                                                             fields["traps"]))
    finally:
        for each in (hv, other):
            if each and each.proc.poll() is None:
                each.stop()
    return 0


def wait_for(what, condition, timeout=TIMEOUT):
    """Polls condition() until it returns something true; fails after timeout."""
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        expect(time.monotonic() < deadline, "timed out waiting for " + what)
        time.sleep(0.1)


def engine_ids(hv):
    return [int(n) for n in re.findall(r"engine (\d+) \"tb\"", hv.status())]


def running_engine_ids(hv):
    return [int(n) for n in re.findall(r"engine (\d+) \"tb\" running", hv.status())]


def moved(hv, engine):
    return re.findall(r"engine %d moved into combined program (\d+) slot \d+: ([0-9.]+) ms from the interrupt, "
                      r"([0-9.]+) ms holding it \([0-9.]+ ms of CPU, (\d+) state words\)" % engine, hv.log_text())


def state_words(engine, only_non_volatile):
    """The 64-bit words of the engine's variables (nets aside) its manifest lists: what a move copies."""
    words = 0
    for line in open(engine, "rb").read().decode(errors="replace").splitlines():
        match = re.match(r"state \d+ (\w+) (\d+) \d+ (\d+) \d+ ([01]) ", line)
        if match and match.group(1) != "wire" and (match.group(4) == "1" or not only_non_volatile):
            words += (int(match.group(2)) + 63) // 64 * max(int(match.group(3)), 1)
    return words


def timeline_rows(path):
    """The (ticks, tasks) of each row of a --timeline file."""
    lines = open(path).read().splitlines()
    expect(lines and lines[0] == "time_s,ticks,ticks_per_s,tasks,tasks_per_s,engine",
           "%s: unexpected header %r" % (path, lines[:1]))
    return [(int(fields[1]), int(fields[3])) for fields in (line.split(",") for line in lines[1:])]


def tick_advances(rows):
    """The rows before the last in which a timeline's ticks moved."""
    return sum(1 for before, after in zip([(0, 0)] + rows, rows[:-1]) if after[0] > before[0])


def case_sandbox(args, root):
    """sandbox_victim.v runs solo and as a tenant, in a directory granted
    read-only (--dir .::ro) with a secret one level up: the tenant's
    tasks run in its own runtime under its own grants, so both runs must
    print that only the granted file opened, and its line."""
    engine = compile_engine(os.path.join(HERE, "sandbox_victim.v"), DEFAULT_INPUTS, root, args.bin_dir)
    work = os.path.join(root, "work")
    granted = os.path.join(work, "granted")
    os.makedirs(granted)
    with open(os.path.join(granted, "data.txt"), "w") as data:
        data.write("the granted line\n")
    with open(os.path.join(work, "secret.txt"), "w") as secret:
        secret.write("a secret\n")
    runner = os.path.join(args.bin_dir, "synergy-run")
    grant = ["--dir", ".::ro"]  # the run's directory, granted
    expected = b"granted 1 above 0 absolute 0 written 0\nthe granted line\n"
    solo = subprocess.run([runner, "--engine", "compiled", *grant, engine], cwd=granted, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=TIMEOUT)
    compare("solo", (expected, 0), (solo.stdout, solo.returncode), solo.stderr)
    hv = Hypervisor(args.bin_dir, root)
    try:
        tenant = subprocess.run([runner, "--hypervisor", hv.address, "--token-file", hv.token_file, *grant, engine],
                                cwd=granted, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
        compare("tenant", (expected, 0), (tenant.stdout, tenant.returncode), tenant.stderr)
    finally:
        hv.stop()
    expect(not os.path.exists(os.path.join(granted, "written.txt")), "a read-only grant was written")
    print("ok solo and tenant alike: %r" % tenant.stdout.decode())
    return 0


def case_timeline(args, root):
    """slow_tick_victim.v, whose one open-loop batch outlasts 100 ms many
    times over, runs alone as a tenant with --timeline: the hypervisor's
    progress reports (HvRunProgress) must move the timeline's ticks in at
    least --min-advances rows before the last, never backwards, and the run
    must end with the ticks, tasks and output of a solo synergy-run of the
    same engine. Without the reports the ticks move once per batch: one
    row before the last for this design. Its loops take vvp minutes, so the
    solo run is the reference here; its output is vvp's in the other cases.
    --victim DESIGN.v --input NAME:FROM:COPIES runs another design over a
    file NAME made of COPIES copies of FROM; --solo-min-advances N checks
    the solo run's timeline alike (a design that traps every tick, as a
    streaming read does, keeps the run inside one open-loop call, whose
    ticks must still show as it goes)."""
    source = os.path.abspath(args.victim) if args.victim else os.path.join(HERE, "slow_tick_victim.v")
    if args.input:
        name, origin, copies = args.input.rsplit(":", 2)
        with open(origin, "rb") as data, open(os.path.join(root, name), "wb") as out:
            out.write(data.read() * int(copies))
    engine = compile_engine(source, DEFAULT_INPUTS, root, args.bin_dir)
    solo_csv, tenant_csv = os.path.join(root, "solo.csv"), os.path.join(root, "tenant.csv")
    runner = os.path.join(args.bin_dir, "synergy-run")
    solo = subprocess.run([runner, "--engine", "compiled", "--timeline", solo_csv, engine], cwd=root,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
    expect(solo.returncode == 0 and solo.stdout, "the solo run failed: %d %r" % (solo.returncode, solo.stderr))
    hv = Hypervisor(args.bin_dir, root)
    try:
        tenant = subprocess.run([runner, "--hypervisor", hv.address, "--token-file", hv.token_file,
                                 "--timeline", tenant_csv, engine], cwd=root,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
        compare("tenant", (solo.stdout, solo.returncode), (tenant.stdout, tenant.returncode), tenant.stderr)
        print("ok the tenant's output equals the solo run's: %r" % tenant.stdout.decode(errors="replace").strip())
    finally:
        hv.stop()
    rows, solo_rows = timeline_rows(tenant_csv), timeline_rows(solo_csv)
    expect(rows[-1] == solo_rows[-1], "the tenant's timeline ends at %s (ticks, tasks), the solo run's at %s" %
           (rows[-1], solo_rows[-1]))
    for before, after in zip(rows, rows[1:]):
        expect(after[0] >= before[0] and after[1] >= before[1], "the timeline goes back from %s to %s" %
               (before, after))
    advances = tick_advances(rows)
    expect(advances >= args.min_advances, "the ticks moved in %d rows before the last, expected %d or more: %s" %
           (advances, args.min_advances, [ticks for ticks, _ in rows]))
    print("ok the tenant's timeline: %d rows, the ticks moved in %d before the last, ending at %s" %
          (len(rows), advances, rows[-1]))
    if args.solo_min_advances:
        advances = tick_advances(solo_rows)
        expect(advances >= args.solo_min_advances, "the solo run's ticks moved in %d rows before the last, "
               "expected %d or more: %s" % (advances, args.solo_min_advances, [ticks for ticks, _ in solo_rows]))
        print("ok the solo run's timeline: %d rows, the ticks moved in %d before the last" % (len(solo_rows),
                                                                                             advances))
    return 0


def case_swap(args, root):
    """A tenant is moved into combined programs while it waits mid-run (swap_victim.v polls for a file
    named go): once when a second tenant joins, once more when the same pair rejoins (the combined
    program then comes from the cache), and many times under --recombine-every. Its output and the
    joiner's must equal vvp's byte for byte, and its output depends on every value it held."""
    victim_source = os.path.abspath(args.victim)
    go_inputs = os.path.join(root, "go-inputs")
    os.makedirs(go_inputs)
    open(os.path.join(go_inputs, "go"), "w").close()
    victim = Tenant(victim_source + ",inputs=" + go_inputs + ",vvp-define=SYNERGY_NO_YIELD", 0, root, args)
    joiner = Tenant(args.joiner, 1, root, args)
    empty = os.path.join(root, "empty")
    os.makedirs(empty)
    victim.inputs = empty  # its runs start without go
    uses_yield = re.search(rb"^yield 1$", open(victim.engine, "rb").read(), re.M) is not None
    copied_words = state_words(victim.engine, uses_yield)
    if uses_yield:
        expect(copied_words < state_words(victim.engine, False), "the $yield victim has no volatile variable")

    def run_victim(hv, work_name, moves_wanted, during):
        proc = victim.start(args.bin_dir, hv, work_name)
        engine = wait_for("the victim's engine", lambda: (engine_ids(hv) or [None])[-1])
        during()
        wait_for("%d moves of engine %d" % (moves_wanted, engine), lambda: len(moved(hv, engine)) >= moves_wanted)
        expect(proc.poll() is None, "the victim ended before it was let go on")
        open(os.path.join(victim.root, work_name, "go"), "w").close()
        actual, err = finish(proc)
        compare(victim.name + " (" + work_name + ")", victim.expected, actual, err)
        moves = moved(hv, engine)
        expect(all(int(m[3]) == copied_words for m in moves), "moves copied %s state words, not %d (%s)" %
               (sorted(set(m[3] for m in moves)), copied_words, "non-volatile" if uses_yield else "all"))
        print("ok %s: %d bytes, moved %d times; longest pause %.3f ms from the interrupt, %.3f ms held" %
              (work_name, len(actual[0]), len(moves), max(float(m[1]) for m in moves),
               max(float(m[2]) for m in moves)))
        return moves

    def join():
        actual, err = finish(joiner.start(args.bin_dir, hv, "join-%s" % os.urandom(4).hex()))
        compare(joiner.name + " (joining)", joiner.expected, actual, err)

    def join_uncached():
        # A design no cache holds, so that its combined program with the
        # victim compiles for seconds: the victim, polling once a tick, must
        # be served meanwhile (compilation is asynchronous, part 4).
        victim_engine = engine_ids(hv)[-1]
        fresh = Tenant(write_uncached_design(root), 2, root, args)
        proc = fresh.start(args.bin_dir, hv, "uncached")
        compiling = r"^combined compiling engines"
        wait_for("the combined program with the uncached design to compile",
                 lambda: re.search(compiling, hv.status(), re.M))
        # Served while compiling: its request count grows between two
        # statuses that both show the compile under way. The victim asks
        # tens of thousands of times a second and a compile takes hundreds
        # of milliseconds, so a few statuses suffice; a fixed second's
        # wait outlasted the whole compile on an idle machine.
        served = None
        while True:
            status = hv.status()
            expect(re.search(compiling, status, re.M),
                   "the combined compile ended before engine %d was seen served twice during it "
                   "(%s requests at the first look):\n%s" % (victim_engine, served, status))
            requests = tenant_requests(hv, victim_engine, status)
            if served is not None and requests > served:
                break
            served = requests if served is None else served
            time.sleep(0.01)
        print("ok engine %d was served while its combined program compiled (%d requests, then %d)" %
              (victim_engine, served, requests))
        actual, err = finish(proc)
        compare(fresh.name + " (uncached joiner)", fresh.expected, actual, err)

    hv = Hypervisor(args.bin_dir, root)
    try:
        run_victim(hv, "joined-uncached", 1, join_uncached)
        run_victim(hv, "joined", 1, join)
        before = status_fields(hv.status())
        run_victim(hv, "rejoined", 1, join)
        after = status_fields(hv.status())
        expect(after["combined_compiles"] == before["combined_compiles"] and
               after["combined_hits"] == before["combined_hits"] + 1,
               "the same pair of designs compiled their combined program again: %s then %s" % (before, after))
        print("ok the rejoining pair's combined program came from the cache: %s" % after)
    finally:
        hv.stop() if hv.proc.poll() is None else None

    hv = Hypervisor(args.bin_dir, root, ["--recombine-every", str(args.recombine_every)])
    try:
        run_victim(hv, "recombined", args.min_moves, lambda: None)
        fields = status_after_tenants_left(hv)
        expect(fields["running"] == 0, "engines left behind: %s" % fields)
        print("ok status: %s" % fields)
    finally:
        hv.stop() if hv.proc.poll() is None else None

    # A client that vanishes mid-handshake: its engine, stopped inside a
    # tick at a trap it never answers, waits to move into the combined
    # program when the client closes its connection. The victim must go on
    # moving, the vanished engine be finalized, and nothing else change.
    hv = Hypervisor(args.bin_dir, root, ["--recombine-every", str(args.recombine_every)])
    try:
        def vanish():
            victim_engine = engine_ids(hv)[-1]
            client = RawClient(hv, hv.token)
            gone = struct.unpack("<I", client.request("HvSubmitEngine", open(victim.engine, "rb").read(),
                                                      "HvEngineReady"))[0]
            # 600 cycles (1200 ticks) in, the design polls for go: a trap
            # inside a tick, which this client never answers.
            ticks_run, traps, _ = open_loop_run(client, gone, ticks=4000)
            expect(traps and traps[-1][0] != 0 and ticks_run < 4000,
                   "the client's run did not stop at a trap: %d ticks, traps %s" % (ticks_run, traps))
            waiting = wait_for("engine %d to wait to move into a combined program" % gone,
                               lambda: waits_to_move(hv, gone))
            # It may have moved at tick 0, when a combined program was ready
            # before its first request; standing inside a tick, it must not
            # move again.
            gone_moves = len(moved(hv, gone))
            moves_before = len(moved(hv, victim_engine))
            client.close()
            expect_log(hv, "finalized 1 engine(s)")
            wait_for("2 more moves of engine %d after the client vanished" % victim_engine,
                     lambda: len(moved(hv, victim_engine)) >= moves_before + 2)
            expect(len(moved(hv, gone)) == gone_moves,
                   "the vanished client's engine %d moved while it stood inside a tick" % gone)
            print("ok engine %d vanished while it waited to move into combined program %d; engine %d moved on" %
                  (gone, waiting, victim_engine))

        run_victim(hv, "vanished-peer", 1, vanish)
        fields = status_after_tenants_left(hv)
        expect(fields["running"] == 0, "engines left behind: %s" % fields)
        print("ok status: %s" % fields)
    finally:
        hv.stop() if hv.proc.poll() is None else None
    return 0


def write_uncached_design(root):
    """A small design with a random constant: Verilog no engine cache holds."""
    path = os.path.join(root, "uncached_%s.v" % os.urandom(4).hex())
    with open(path, "w") as out:
        out.write("module tb;\n  reg clock = 0;\n  always #1 clock = ~clock;\n"
                  "  reg [31:0] x = 32'd%d;\n  integer n = 0;\n  always @(posedge clock) begin\n"
                  "    x <= x * 32'd1664525 + 32'd1013904223;\n    n = n + 1;\n"
                  "    if (n %% 10 == 0) $display(\"%%0d %%h\", n, x);\n    if (n == 50) $finish;\n"
                  "  end\nendmodule\n" % int.from_bytes(os.urandom(4), "little"))
    return path


def tenant_requests(hv, engine, status=None):
    """The requests the tenant owning `engine` has made, from `status` (a
    new one if None)."""
    match = re.search(r" requests (\d+) refused \d+:[^\n]* engine %d " % engine, status or hv.status())
    expect(match, "no tenant owns engine %d" % engine)
    return int(match.group(1))


def waits_to_move(hv, engine):
    """The generation of the combined program `engine` is in but has not
    moved into (it stands inside a tick), or None."""
    status = hv.status()
    program = re.search(r"^program generation (\d+): combined program of engines([ \d]*)$", status, re.M)
    where = re.search(r" engine %d \"[^\"]*\" running (in program (\d+)|on its own object)" % engine, status)
    if not program or not where or str(engine) not in program.group(2).split():
        return None
    return int(program.group(1)) if where.group(2) != program.group(1) else None


def case_migrate(args, root):
    """The victim (swap_victim.v) waits mid-run while its engine migrates from a hypervisor on 127.0.0.1
    to one on 127.0.0.2 and back; its output depends on every value it holds, so a lost value or tick
    shows. --victim-data: files the victim reads (a reader waits with its input file half read)."""
    go_inputs = os.path.join(root, "go-inputs")
    empty = os.path.join(root, "empty")
    if args.victim_data:
        shutil.copytree(args.victim_data, go_inputs)
        shutil.copytree(args.victim_data, empty)
    else:
        os.makedirs(go_inputs)
        os.makedirs(empty)
    open(os.path.join(go_inputs, "go"), "w").close()
    victim = Tenant(os.path.abspath(args.victim) + ",inputs=" + go_inputs + ",vvp-define=SYNERGY_NO_YIELD",
                    0, root, args)
    victim.inputs = empty  # its run starts without go
    first = Hypervisor(args.bin_dir, root)
    second = None
    try:
        second = Hypervisor(args.bin_dir, root, host="127.0.0.2", same_token_as=first)
        proc = victim.start(args.bin_dir, first, "migrated")
        engine = wait_for("the victim's engine to run", lambda: (running_engine_ids(first) or [None])[-1])
        admin = ["--admin-token-file", first.admin_token_file]
        # A tenant holds only the connection token: with it, or with the other
        # hypervisor's admin token, it cannot send an engine away.
        for command, reason in [(["--admin-token-file", first.token_file, "migrate", str(engine),
                                  "--to", second.address], "needs this hypervisor's admin token"),
                                (["--admin-token-file", second.admin_token_file, "migrate", str(engine),
                                  "--to", second.address], "needs this hypervisor's admin token"),
                                (admin + ["migrate", "999", "--to", second.address], "no running engine 999"),
                                (admin + ["migrate", str(engine), "--to", "127.0.0.2"], "expected HOST:PORT")]:
            status, _, err = first.ctl(*command)
            expect(status == 2 and "synergy-hv-ctl: error: the hypervisor refused HvMigrate: " in err and
                   reason in err and err.count("\n") == 1,
                   "%s: expected a one-line refusal naming %r, got status %d: %r" % (command, reason, status, err))
            print("ok refused %s: %s" % (" ".join(command), err.strip()))
        expect(engine_ids(first) == [engine] and not engine_ids(second) and proc.poll() is None,
               "a refused migration changed something")
        source, destination, source_engine = first, second, engine
        for leg in ["there", "back"]:
            status, out, err = source.ctl("--admin-token-file", source.admin_token_file, "migrate",
                                          str(source_engine), "--to", destination.address)
            expect(status == 0, "migrate failed: %d %s" % (status, err))
            arrived = wait_for("engine %d to arrive at %s" % (source_engine, destination.address),
                               lambda: (running_engine_ids(destination) or [None])[-1])
            wait_for("engine %d to leave %s" % (source_engine, source.address), lambda: not engine_ids(source))
            expect("engine %d leaves for %s" % (source_engine, destination.address) in source.log_text(),
                   "%s did not log the engine's departure" % source.address)
            expect(proc.poll() is None, "the victim ended before it was let go on")
            print("ok engine %d on %s is engine %d on %s" % (source_engine, source.address, arrived,
                                                              destination.address))
            source, destination, source_engine = destination, source, arrived
        open(os.path.join(victim.root, "migrated", "go"), "w").close()
        actual, err = finish(proc)
        compare(victim.name + " (migrated there and back)", victim.expected, actual, err)
        print("ok %s: %d bytes, exit %d after two migrations" % (victim.name, len(actual[0]), actual[1]))
        check_accounting(first, 2)
        check_accounting(second, 1)
    finally:
        for each in (first, second):
            if each and each.proc.poll() is None:
                each.stop()
    return 0


class RawClient:
    """A hostile client: raw frames over a plain socket."""

    def __init__(self, hv, token=None, hello=True):
        self.sock = socket.create_connection(("127.0.0.1", hv.port), timeout=60)
        if token is not None:
            self.send(frame("Hello", token))
            reply = self.read()
            expect(reply and reply[0] == FT["HelloAck"], "no HelloAck for the right token")
            if hello:
                self.request("HvHello", struct.pack("<I", PROTOCOL), "HvWelcome")

    def send(self, data):
        self.sock.sendall(data)

    def read_exactly(self, count):
        data = b""
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            if not chunk:
                return None
            data += chunk
        return data

    def read(self):
        """(type, payload), or None once the hypervisor closed the connection."""
        header = self.read_exactly(16)
        if header is None:
            return None
        expect(header[:4] == b"SYN1", "bad magic from synergy-hv")
        kind, _, size = struct.unpack("<HHQ", header[4:])
        payload = self.read_exactly(size)
        return None if payload is None else (kind, payload)

    def request(self, type_name, payload, expected):
        self.send(frame(type_name, payload))
        reply = self.read()
        # An open-loop run that goes on for 100 ms reports its progress
        # before its reply (protocol 6); a loaded host makes that any run.
        while reply is not None and type_name in ("HvOpenLoop", "HvBatch") and reply[0] == FT["HvRunProgress"]:
            expect(len(reply[1]) == 12, "HvRunProgress of %d bytes" % len(reply[1]))
            reply = self.read()
        expect(reply is not None, "%s: connection closed" % type_name)
        expect(reply[0] == FT[expected], "%s answered with type %d, not %s (%r)" % (type_name, reply[0], expected,
                                                                                  reply[1]))
        return reply[1]

    def refused(self, type_name, payload, reason):
        text = self.request(type_name, payload, "HvRefused").decode()
        expect(reason in text, "%s refused with %r, expected %r" % (type_name, text, reason))
        print("ok refused %s: %s" % (type_name, text))

    def dropped(self):
        try:
            return self.read() is None
        except ConnectionResetError:
            return True

    def close(self):
        self.sock.close()


def expect_log(hv, text, since=0):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if text in hv.log_text()[since:]:
            print("ok daemon log: %s" % text)
            return
        time.sleep(0.05)
    raise Failure("daemon log lacks %r:\n%s" % (text, hv.log_text()))


def lfsr_values(count):
    """What lfsr.v displays: its register before each shift."""
    values, lfsr = [], 0xACE1
    for _ in range(count):
        values.append(lfsr)
        feedback = (lfsr >> 15 ^ lfsr >> 13 ^ lfsr >> 12 ^ lfsr >> 10) & 1
        lfsr = (lfsr << 1 | feedback) & 0xFFFF
    return values


def check_batched_run(client, engine, manifest):
    """A fresh lfsr.v engine in one open-loop request: the run must go past
    its twelve $display traps, each with the value it prints and the tick it
    fired in (every posedge, two ticks apart), and stop at $finish, all in
    one HvOpenLooped whose structure matches the protocol's."""
    tasks = {int(i): name.decode() for i, name in re.findall(rb'^task (\d+) "([^"]*)"', manifest, re.M)}
    reply = client.request("HvOpenLoop", struct.pack("<IIQI", engine, 1000, 1 << 20, 0), "HvOpenLooped")
    ticks_run, count = struct.unpack_from("<II", reply)
    offset, traps = 8, []
    for _ in range(count):
        task, started, words = struct.unpack_from("<III", reply, offset)
        offset += 12
        data = [struct.unpack_from("<IIIQ", reply, offset + 20 * k) for k in range(words)]
        offset += 20 * words
        traps.append((task, started, data))
    advances = struct.unpack_from("<I", reply, offset)[0]
    offset += 4
    expect(advances == 0, "HvOpenLooped: %d read-ahead advances for a request without windows" % advances)
    expect(offset == len(reply), "HvOpenLooped: %d bytes, the traps fill %d" % (len(reply), offset))
    names = [tasks.get(task) for task, _, _ in traps]
    expect(names == ["$display"] * 12 + ["$finish"],
           "one open-loop run should trap 12 $display then stop at $finish, got %s" % names)
    shown = [data[0][3] & 0xFFFF if data else None for _, _, data in traps[:12]]
    expect(shown == lfsr_values(12), "the batched traps carry %s, lfsr.v prints %s" % (shown, lfsr_values(12)))
    started = [s for _, s, _ in traps]
    expect(all(b - a == 2 for a, b in zip(started[:12], started[1:12])) and started[12] == started[11] <= ticks_run,
           "the batched traps fired after ticks %s of %d" % (started, ticks_run))
    print("ok one open-loop run went past 12 $display traps to $finish, values and ticks as vvp's")


def open_loop_run(client, engine, windows=(), ticks=1000):
    """One HvOpenLoop with read-ahead windows, given as (descriptor, ends at
    EOF, bytes); returns the reply as (ticks run, [(task, ticks started)],
    {descriptor: (consumed, hit EOF, tasks served)})."""
    payload = struct.pack("<IIQI", engine, ticks, 1 << 20, len(windows))
    for descriptor, at_eof, data in windows:
        payload += struct.pack("<III", descriptor, 1 if at_eof else 0, len(data)) + data
    reply = client.request("HvOpenLoop", payload, "HvOpenLooped")
    ticks_run, count = struct.unpack_from("<II", reply)
    offset, traps = 8, []
    for _ in range(count):
        task, started, words = struct.unpack_from("<III", reply, offset)
        offset += 12 + 20 * words
        traps.append((task, started))
    advances = {}
    for k in range(struct.unpack_from("<I", reply, offset)[0]):
        descriptor, consumed, hit_eof, served = struct.unpack_from("<IIII", reply, offset + 4 + 16 * k)
        advances[descriptor] = (consumed, hit_eof, served)
    return ticks_run, traps, advances


def check_read_ahead(hostile, hv, engine_path):
    """file_sum.v driven by hand with forged read-ahead windows: the
    hypervisor serves its $fread and $feof only from a window of the
    descriptor they read, never past a window's end, and reports exactly the
    bytes used; a malformed window drops the client before anything runs."""
    manifest = open(engine_path, "rb").read()
    tasks = {name.decode(): int(i) for i, name in re.findall(rb'^task (\d+) "([^"]*)"', manifest, re.M)}
    engine = struct.unpack("<I", hostile.request("HvSubmitEngine", manifest, "HvEngineReady"))[0]
    wait_for("the reader's engine to run", lambda: re.search(r'engine %d "tb" running' % engine, hv.status()))
    _, traps, advances = open_loop_run(hostile, engine)
    expect([t for t, _ in traps] == [tasks["$fopen"]] and not advances,
           "file_sum.v's first run should stop at $fopen, got %s %s" % (traps, advances))
    fd = 0x80000003
    hostile.request("HvSetState", struct.pack("<IIIIQ", engine, 1, 0, 0, fd), "HvDone")  # tb.fd
    data = bytes(range(0x11, 0x19))
    # Two $freads fill from an 8-byte window that does not end at the
    # file's end; the third would read past it, so the run stops there.
    _, traps, advances = open_loop_run(hostile, engine, [(fd, False, data)])
    # Served: $fread, $feof, $fread, $feof.
    expect(traps[-1][0] == tasks["$fread"] and advances == {fd: (8, 0, 4)},
           "a run with an 8-byte window should stop at the third $fread having used 8 bytes, got %s %s" %
           (traps, advances))
    r = struct.unpack("<Q", hostile.request("HvGetState", struct.pack("<IIII", engine, 3, 0, 0), "HvStateWord"))[0]
    expect(r == int.from_bytes(data[4:8], "big"), "tb.r holds %#x after two served $freads, not %s" %
           (r, data[4:8].hex()))
    print("ok two $fread served from an 8-byte window, the third stops the run (tb.r = %#x)" % r)
    # A window of another descriptor serves nothing: the run stops at once.
    _, traps, advances = open_loop_run(hostile, engine, [(fd + 6, True, data)])
    expect(traps[-1][0] == tasks["$feof"] and not advances,
           "a window of a descriptor the design does not read was used: %s %s" % (traps, advances))
    print("ok a window of a descriptor the design does not read serves nothing")
    # Two bytes to the file's end: a short $fread keeps r's low bits, $feof
    # is then 1, and the run goes past $display to $finish.
    _, traps, advances = open_loop_run(hostile, engine, [(fd, True, b"\xab\xcd")])
    expect([t for t, _ in traps] == [tasks["$display"], tasks["$finish"]] and advances == {fd: (2, 1, 2)},
           "a 2-byte window to the end should give a short $fread, $display and $finish, got %s %s" %
           (traps, advances))
    r = struct.unpack("<Q", hostile.request("HvGetState", struct.pack("<IIII", engine, 3, 0, 0), "HvStateWord"))[0]
    expect(r == 0xabcd0000 | (int.from_bytes(data[4:8], "big") & 0xffff), "a short $fread left tb.r = %#x" % r)
    print("ok a window to the file's end: a short $fread (tb.r = %#x), $feof 1, $finish" % r)
    hostile.request("HvFinalize", struct.pack("<I", engine), "HvDone")
    # Malformed windows drop the client, and are logged with the reason.
    head = struct.pack("<IIQ", engine, 10, 1000)
    for payload, reason in (
            (head + struct.pack("<I", 5) + struct.pack("<III", 1, 0, 0) * 5, "with 5 read-ahead windows, at most 4"),
            (head + struct.pack("<IIII", 1, fd, 0, 65537), "window 1 of 65537 bytes, at most 65536"),
            (head + struct.pack("<IIII", 1, fd, 0, 10) + b"x" * 9, "is too short for the 10 bytes of window 1"),
            (head + struct.pack("<IIII", 1, fd, 2, 0), "window 1 has unknown flags 2"),
            (head + struct.pack("<I", 2) + struct.pack("<III", fd, 0, 0) * 2, "has two windows of descriptor"),
            (head + struct.pack("<IIII", 1, fd, 0, 1) + b"xy", "has 1 trailing bytes")):
        since = len(hv.log_text())
        rogue = RawClient(hv, hv.token)
        rogue.send(frame("HvOpenLoop", payload))
        expect(rogue.dropped(), "a malformed HvOpenLoop was answered (%s)" % reason)
        expect_log(hv, reason, since)
        print("ok dropped an HvOpenLoop %s" % reason)


def run_to_a_trap(client, engine, fd, data):
    """Open-loop runs with a window of `data` that does not end at the
    file's end, sent again from where the last run left it, until a run
    stops at a task (on a loaded host a run's slice may end it between two
    ticks first). Returns that task, and the bytes used and tasks served by
    all the runs."""
    consumed = served = 0
    for _ in range(100):
        _, traps, advances = open_loop_run(client, engine, [(fd, False, data[consumed:])])
        used, hit_eof, tasks = advances.get(fd, (0, 0, 0))
        expect(not hit_eof, "a window that does not end at the file's end was read to its end: %s" % advances)
        consumed, served = consumed + used, served + tasks
        if traps[-1][0] != 0:
            return traps[-1][0], consumed, served
    raise Failure("100 open-loop runs stopped at no task")


def check_scan_read_ahead(hostile, hv, engine_path):
    """scan_victim.v driven by hand with forged windows that do not end at
    the file's end: $fscanf, $fgetc, $ungetc and $fread into a memory are
    served from them with the tenant's task code; an $ungetc of the byte
    just read moves back in the window; a $fgets or a $fread that needs more
    than the window holds is not served, writes nothing and uses no byte."""
    manifest = open(engine_path, "rb").read()
    tasks, states = {}, {}
    for i, name in re.findall(rb'^task (\d+) "([^"]*)"', manifest, re.M):
        tasks.setdefault(name.decode(), int(i))
    for i, name in re.findall(rb'^state (\d+) .* "([^"]*)" "[^"]*"$', manifest, re.M):
        states[name.decode()] = int(i)
    engine = struct.unpack("<I", hostile.request("HvSubmitEngine", manifest, "HvEngineReady"))[0]
    wait_for("the scanner's engine to run", lambda: re.search(r'engine %d "tb" running' % engine, hv.status()))

    def word(name, element=0):
        return struct.unpack("<Q", hostile.request("HvGetState", struct.pack("<IIII", engine, states[name], element, 0),
                                                   "HvStateWord"))[0]
    _, traps, _ = open_loop_run(hostile, engine)
    expect([t for t, _ in traps] == [tasks["$fopen"]], "scan_victim.v's first run should stop at $fopen: %s" % traps)
    fd = 0x80000003
    hostile.request("HvSetState", struct.pack("<IIIIQ", engine, states["tb.fd"], 0, 0, fd), "HvDone")
    # $fscanf("%d") reads 12 and leaves the space, $feof; the peek reads the
    # space and pushes it back, $feof; $fgets reads " ab" and runs short.
    stop = run_to_a_trap(hostile, engine, fd, b"12 ab")
    expect(stop == (tasks["$fgets"], 2, 5),
           "runs with the window '12 ab' should stop at $fgets having used 2 bytes for 5 tasks, got %s" % (stop,))
    got = (word("tb.num"), word("tb.c"), word("tb.u"), word("tb.line"))
    expect(got == (12, 0x20, 0, 0), "after the window '12 ab': tb.num, tb.c, tb.u, tb.line = %s" % (got,))
    print("ok $fscanf, $fgetc, $ungetc of the byte before served from a window; a short $fgets is not (%s)" % (got,))
    # The run goes on past the $fgets left unserved: $feof, then $fread(mem,
    # fd, 1, 3) takes 3 bytes, $feof; $fread into 96 bits needs 12 and runs
    # short.
    stop = run_to_a_trap(hostile, engine, fd, bytes(range(1, 12)))
    expect(stop == (tasks["$fread"] + 1, 3, 3),
           "runs with an 11-byte window should stop at the 96-bit $fread having used 3 bytes for 3 tasks, got %s" %
           (stop,))
    got = (word("tb.mem", 1), word("tb.mem", 3), word("tb.r"))
    expect(got == (1, 3, 3), "after $fread(mem, fd, 1, 3): mem[1], mem[3], tb.r = %s" % (got,))
    print("ok $fread into a memory served from a window; a 96-bit one that runs short is not (%s)" % (got,))
    hostile.request("HvFinalize", struct.pack("<I", engine), "HvDone")


def case_hostile(args, root):
    victim = Tenant(os.path.join(HERE, "long_victim.v"), 0, root, args)
    own = Tenant(os.path.join(ROOT, "test", "verilog", "lfsr.v"), 1, root, args)
    hv = Hypervisor(args.bin_dir, root)
    try:
        # Start the victim with the host driving every tick, so that it runs
        # while the attacks below happen.
        proc = victim.start(args.bin_dir, hv, extra=["--no-open-loop"])
        hostile = RawClient(hv, hv.token)
        deadline = time.monotonic() + 300
        victim_id = None
        while victim_id is None:
            expect(time.monotonic() < deadline, "the victim's engine never ran")
            expect(proc.poll() is None, "the victim ended before the attacks")
            report = hostile.request("HvStatus", b"", "HvStatusReport").decode()
            match = re.search(r'engine (\d+) "tb" running', report)
            if match:
                victim_id = int(match.group(1))
            else:
                time.sleep(0.1)

        # Forged engine ids: the victim's own and others, read and write.
        for engine in (victim_id, victim_id + 1, 0, 0xffffffff):
            hostile.refused("HvGetState", struct.pack("<IIII", engine, 0, 0, 0), "is not one of this tenant's engines")
            hostile.refused("HvSetState", struct.pack("<IIIIQ", engine, 1, 0, 0, 0xdeadbeef),
                            "is not one of this tenant's engines")
            hostile.refused("HvOpenLoop", struct.pack("<IIQI", engine, 1000, 1000, 0), "is not one of this tenant's engines")
            hostile.refused("HvFinalize", struct.pack("<I", engine), "is not one of this tenant's engines")
        expect(proc.poll() is None, "the victim ended during the forged requests; make it longer")

        # Raw migration frames and replies sent as requests. Moving the
        # victim away takes the admin token, not the connection token every
        # tenant holds; with it, a malformed request is still refused. One
        # longer than its maximum, or a reply sent to the daemon, drops the
        # client.
        admin = open(hv.admin_token_file, "rb").read()
        hostile.refused("HvMigrate", b"%d 127.0.0.2:7200\n%s" % (victim_id, hv.token), "needs this hypervisor's admin")
        hostile.refused("HvMigrate", b"%d 127.0.0.2:7200" % victim_id, "needs this hypervisor's admin token")
        hostile.refused("HvMigrate", b"400000000 127.0.0.2:7200\n" + admin, "no running engine 400000000")
        hostile.refused("HvMigrate", b"%d\n%s" % (victim_id, admin), 'a migration names "ENGINE HOST:PORT"')
        hostile.refused("HvMigrate", b"%d 127.0.0.2:0\n%s" % (victim_id, admin), "bad port in")
        for name, payload, reason in (
                ("HvMigrate", b"1 " + b"x" * 2000, "frame length 2002 exceeds the maximum"),
                ("HvMoveTo", b"127.0.0.2:7200", "unexpected HvMoveTo from a hypervisor client"),
                ("HvOpenLooped", struct.pack("<II", 0, 1) + struct.pack("<III", 0, 0, 0),
                 "unexpected HvOpenLooped from a hypervisor client")):
            since = len(hv.log_text())
            rogue = RawClient(hv, hv.token)
            rogue.send(frame(name, payload))
            expect(rogue.dropped(), "a raw %s was answered" % name)
            expect_log(hv, reason, since)
        expect(proc.poll() is None, "the victim ended during the migration frames; make it longer")

        # A malformed manifest, then its own engine and out-of-range ids.
        hostile.refused("HvSubmitEngine", b"not an engine\n", "malformed engine")
        manifest = open(own.engine, "rb").read()
        # The manifest's Verilog with a line our emitter never writes: host
        # C++ through Verilator's $c. It must be refused before any build.
        check_tampered_verilog(hostile, hv, manifest, b"  initial $c(\"system(\\\"touch PWNED\\\")\");\n")
        own_id = struct.unpack("<I", hostile.request("HvSubmitEngine", manifest, "HvEngineReady"))[0]
        expect(own_id != victim_id, "two tenants got the same engine id")
        states = re.findall(rb"^state (\d+) (\w+) (\d+)", manifest, re.M)
        hostile.refused("HvGetState", struct.pack("<IIII", own_id, 100000, 0, 0), "state id 100000 is out of range")
        hostile.refused("HvGetState", struct.pack("<IIII", own_id, 0, 7, 0), "element 7 of state 0 is out of range")
        hostile.refused("HvSetState", struct.pack("<IIIIQ", own_id, 0, 0, 5, 1), "word 5 of state 0 is out of range")
        wires = [int(s[0]) for s in states if s[1] == b"wire"]
        if wires:
            hostile.refused("HvSetState", struct.pack("<IIIIQ", own_id, wires[0], 0, 0, 1), "is a net")
        # A top name that would forge lines in the daemon's log and status.
        forged = manifest.replace(b'top "tb"', b'top "tb\\nforged line\\x1b[2J"', 1)
        expect(forged != manifest, "lfsr.eng has no top \"tb\" line")
        forged_id = struct.unpack("<I", hostile.request("HvSubmitEngine", forged, "HvEngineReady"))[0]
        report = hostile.request("HvStatus", b"", "HvStatusReport").decode()
        expect('"tb\\x0aforged line\\x1b[2J"' in report and "\nforged" not in report,
               "a hostile top name reached the status report unescaped:\n" + report)
        expect("\nforged" not in hv.log_text() and "\x1b" not in hv.log_text(),
               "a hostile top name reached the daemon's log unescaped")
        print("ok a hostile top name is escaped in the status and the log")
        # A legal request on its own engine still works.
        hostile.request("HvGetState", struct.pack("<IIII", own_id, 0, 0, 0), "HvStateWord")
        check_read_ahead(hostile, hv, Tenant(os.path.join(ROOT, "test", "verilog", "file_sum.v"), 2, root, args).engine)
        check_scan_read_ahead(hostile, hv, Tenant(os.path.join(HERE, "read-ahead", "scan_victim.v"), 3, root,
                                                  args).engine)
        # Reading many words at once (a migration's read) is checked word by
        # word before any is read: one foreign engine or bad address refuses
        # all; a count larger than the words sent drops the client.
        def state_read(engine, addresses):
            return struct.pack("<II", engine, len(addresses)) + b"".join(struct.pack("<III", *a) for a in addresses)
        hostile.refused("HvReadState", state_read(victim_id, [(0, 0, 0)]), "is not one of this tenant's engines")
        hostile.refused("HvReadState", state_read(own_id, [(0, 0, 0), (100000, 0, 0)]), "state id 100000 is out of range")
        hostile.refused("HvReadState", state_read(own_id, [(0, 0, 0), (0, 7, 0)]), "element 7 of state 0 is out of range")
        words = hostile.request("HvReadState", state_read(own_id, [(0, 0, 0), (0, 0, 0)]), "HvStateWords")
        single = hostile.request("HvGetState", struct.pack("<IIII", own_id, 0, 0, 0), "HvStateWord")
        expect(words == struct.pack("<I", 2) + 2 * (struct.pack("<III", 0, 0, 0) + single),
               "HvReadState answered %r, HvGetState %r" % (words, single))
        since = len(hv.log_text())
        liar = RawClient(hv, hv.token)
        liar.send(frame("HvReadState", struct.pack("<II", own_id, 9) + struct.pack("<III", 0, 0, 0)))
        expect(liar.dropped(), "an HvReadState with a false count was served")
        expect_log(hv, "HvReadState payload of 20 bytes, expected 116 for 9 words", since)
        check_batched_run(hostile, forged_id, manifest)

        # Batched writes: each is checked against the tenant's own manifest
        # before any is made, so one bad write refuses the whole batch and
        # changes nothing; a batch for another tenant's engine is refused.
        regs = [(int(s[0]), int(s[2])) for s in states if s[1] != b"wire" and int(s[2]) <= 64]
        expect(regs, "lfsr.eng has no variable to write")
        reg, width = regs[-1]
        mask = (1 << width) - 1
        get = struct.pack("<IIII", own_id, reg, 0, 0)
        before = struct.unpack("<Q", hostile.request("HvGetState", get, "HvStateWord"))[0]
        wanted = ~before & mask
        expect(wanted != before, "no bit of state %d to flip" % reg)

        def batch(engine, writes, request_type, record):
            payload = struct.pack("<II", engine, len(writes))
            for write in writes:
                payload += struct.pack("<IIIQ", *write)
            return payload + struct.pack("<I", FT[request_type] if request_type else 0) + record

        hostile.refused("HvBatch", batch(own_id, [(reg, 0, 0, wanted), (100000, 0, 0, 1)], "HvGetState", get),
                        "state id 100000 is out of range")
        hostile.refused("HvBatch", batch(own_id, [(reg, 0, 0, wanted), (reg, 0, 5, 1)], "HvGetState", get),
                        "word 5 of state %d is out of range" % reg)
        hostile.refused("HvBatch", batch(victim_id, [(reg, 0, 0, wanted)], "HvResume", struct.pack("<I", victim_id)),
                        "is not one of this tenant's engines")
        hostile.refused("HvBatch", batch(own_id, [(reg, 0, 0, wanted)], "HvResume", struct.pack("<I", victim_id)),
                        "name different engines")
        after = struct.unpack("<Q", hostile.request("HvGetState", get, "HvStateWord"))[0]
        expect(after == before, "a refused batch changed state %d: %#x -> %#x" % (reg, before, after))
        print("ok a refused batch changed nothing")
        # A good batch: its write is made before its request is served.
        got = struct.unpack("<Q", hostile.request("HvBatch", batch(own_id, [(reg, 0, 0, wanted)], "HvGetState", get),
                                                  "HvStateWord"))[0]
        expect(got == wanted, "a batch's write was not made before its read: %#x, expected %#x" % (got, wanted))
        print("ok a batch writes before it reads")
        # A batch whose count claims more writes than it holds: dropped.
        since = len(hv.log_text())
        liar = RawClient(hv, hv.token)
        liar.send(frame("HvBatch", struct.pack("<II", own_id, 50) + struct.pack("<I", 0)))
        expect(liar.dropped(), "a batch with a false count was served")
        expect_log(hv, "too short for 50 writes", since)

        # A record one byte short: the connection is dropped.
        since = len(hv.log_text())
        hostile.send(frame("HvGetState", struct.pack("<IIII", own_id, 0, 0, 0)[:15]))
        expect(hostile.dropped(), "a short HvGetState did not drop the connection")
        expect_log(hv, "HvGetState payload of 15 bytes, expected 16", since)

        # Before HvHello, and a wrong protocol version.
        early = RawClient(hv, hv.token, hello=False)
        early.refused("HvGetState", struct.pack("<IIII", victim_id, 0, 0, 0), "before HvHello")
        early.refused("HvHello", struct.pack("<I", 99), "protocol version 99 is not supported")
        # A peer of the protocol before (5 knows no HvRunProgress) is refused alike.
        early.refused("HvHello", struct.pack("<I", PROTOCOL - 1),
                      "protocol version %d is not supported (this is %d)" % (PROTOCOL - 1, PROTOCOL))
        early.close()

        # No token, a wrong token, an oversized and a truncated frame.
        since = len(hv.log_text())
        bare = RawClient(hv)
        bare.send(frame("HvHello", struct.pack("<I", PROTOCOL)))
        expect(bare.dropped(), "a client without a token was served")
        expect_log(hv, "first frame is HvHello, not Hello", since)
        wrong = RawClient(hv)
        wrong.send(frame("Hello", b"x" * len(hv.token)))
        refusal = wrong.read()
        expect(refusal == (FT["HelloRefused"], b"wrong cluster token"),
               "a wrong token was answered with %r, not HelloRefused" % (refusal,))
        expect(wrong.dropped(), "a client with a wrong token was served")
        expect_log(hv, "wrong cluster token", since)
        huge = RawClient(hv, hv.token)
        huge.send(frame("HvSubmitEngine", length=1 << 40))
        expect(huge.dropped(), "an oversized frame was accepted")
        expect_log(hv, "frame length 1099511627776 exceeds the maximum", since)
        cut = RawClient(hv, hv.token)
        cut.send(frame("HvGetState", b"\0" * 5, length=16))
        cut.sock.shutdown(socket.SHUT_WR)
        expect(cut.dropped(), "a truncated frame was answered")
        expect_log(hv, "truncated frame (5 of 16 payload bytes)", since)

        # Clients vanishing mid-handshake: half a Hello, and a Hello answered
        # but no HvHello.
        half = RawClient(hv)
        half.send(frame("Hello", hv.token)[:10])
        half.close()
        greeted = RawClient(hv, hv.token, hello=False)
        greeted.close()

        # Clients vanishing mid-request: one in the middle of a build and
        # run, one with a long open loop outstanding.
        for request in ("HvSubmitEngine", "HvOpenLoop"):
            gone = RawClient(hv, hv.token)
            if request == "HvSubmitEngine":
                gone.send(frame("HvSubmitEngine", manifest))
            else:
                gone_id = struct.unpack("<I", gone.request("HvSubmitEngine", manifest, "HvEngineReady"))[0]
                gone.send(frame("HvOpenLoop", struct.pack("<IIQI", gone_id, 60000, 1 << 20, 0)))
            gone.close()

        actual, err = finish(proc)
        compare(victim.name + " (victim)", victim.expected, actual, err)
        print("ok the victim's output equals vvp's (%d bytes)" % len(actual[0]))
        deadline = time.monotonic() + 60
        while True:
            fields = status_fields(hv.status())
            if fields["running"] == 0 and fields["building"] == 0:
                break
            expect(time.monotonic() < deadline, "engines of vanished clients were not finalized: %s" % fields)
            time.sleep(0.1)
        print("ok status after the attacks: %s" % fields)
    finally:
        hv.stop() if hv.proc.poll() is None else None
    check_state_cap(args, root, own, manifest)
    return 0


def check_tampered_verilog(client, hv, manifest, line):
    """Submits `manifest` with `line` added after its Verilog's port list
    (the section's byte count kept right): the hypervisor must refuse it as
    Verilog outside what synergy-cc emits, and start no build."""
    match = re.search(rb"^verilog (\d+)\n", manifest, re.M)
    expect(match, "the manifest has no verilog section")
    start = match.end()
    verilog = manifest[start:start + int(match.group(1))]
    ports_end = verilog.index(b"\n);\n") + len(b"\n);\n")
    tampered = verilog[:ports_end] + line + verilog[ports_end:]
    forged = manifest[:match.start()] + b"verilog %d\n" % len(tampered) + tampered + manifest[start + len(verilog):]
    before = status_fields(hv.status())
    client.refused("HvSubmitEngine", forged, "refusing the engine's Verilog: line ")
    after = status_fields(hv.status())
    expect(after["compiles"] == before["compiles"] and after["hits"] == before["hits"],
           "a refused design was counted for a build: %s then %s" % (before, after))


def check_state_cap(args, root, design, manifest):
    """synergy-hv --max-tenant-state bounds the state of one tenant's
    engines together: with room for exactly one lfsr.v engine, a tenant gets
    one and is refused a second, with the sizes, and nothing is built for
    it; a tenant run of a design over the cap fails with that reason. Each
    daemon is stopped before the next starts (they share the log's name)."""
    one = sum((int(width) + 7) // 8 * max(int(depth), 1)
              for width, depth in re.findall(rb"^state \d+ \w+ (\d+) \d (\d+)", manifest, re.M))
    capped = Hypervisor(args.bin_dir, root, extra=["--max-tenant-state", str(one)])
    try:
        client = RawClient(capped, capped.token)
        client.request("HvSubmitEngine", manifest, "HvEngineReady")
        client.refused("HvSubmitEngine", manifest, "the tenant's engines would hold %d bytes of state, more than "
                       "this hypervisor's --max-tenant-state (%d bytes)" % (2 * one, one))
        fields = status_fields(capped.status())
        expect(fields["compiles"] + fields["hits"] == 1, "a refused engine was built: %s" % fields)
        client.close()
    finally:
        capped.stop()
    small = Hypervisor(args.bin_dir, root, extra=["--max-tenant-state", str(one - 1)])
    try:
        proc = design.start(args.bin_dir, small, work_name="capped")
        out, err = proc.communicate(timeout=TIMEOUT)
        reason = "more than this hypervisor's --max-tenant-state (%d bytes)" % (one - 1)
        expect(proc.returncode != 0 and out == b"" and reason in err.decode(errors="replace"),
               "a tenant over the state cap: status %d, stdout %r, stderr %r" % (proc.returncode, out, err))
        print("ok a tenant over the state cap: %s" % err.decode(errors="replace").strip())
        fields = status_fields(small.status())
        expect(fields["compiles"] + fields["hits"] == 0, "an engine over the cap was built: %s" % fields)
    finally:
        small.stop()

class SmallPipe:
    """A pipe of one page (F_SETPIPE_SZ) for a tenant's stdout that nothing
    reads until drain(): a tenant that writes more than the pipe and its
    stdout buffer hold blocks in the write until then."""

    def __init__(self):
        self.read_end, self.write_end = os.pipe()
        fcntl.fcntl(self.write_end, getattr(fcntl, "F_SETPIPE_SZ", 1031), 4096)
        self.chunks, self.thread = [], None

    def drain(self):
        def read_all():
            with os.fdopen(self.read_end, "rb") as pipe:
                for chunk in iter(lambda: pipe.read1(1 << 16), b""):
                    self.chunks.append(chunk)

        if not self.thread:
            self.thread = threading.Thread(target=read_all, daemon=True)
            self.thread.start()

    def output(self):
        self.drain()
        self.thread.join(TIMEOUT)
        return b"".join(self.chunks)


def rogue_tenant(args, root, tenant, lie, extra=(), stdout=None, requests=None):
    """Runs `tenant` against a fake hypervisor that answers every request as
    an engine between two ticks would, and each HvOpenLoop with
    lie(tasks, ticks asked), an HvOpenLooped payload. Returns the tenant's
    (status, stdout, stderr). `extra`: more synergy-run options; `stdout`: a
    SmallPipe for the tenant's stdout; `requests`: a list the name of each
    request is appended to."""
    token = b"rogue-hv-token-" + os.urandom(8).hex().encode()
    token_file = os.path.join(root, "rogue-token-%s" % os.urandom(4).hex())
    fd = os.open(token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, token)
    os.close(fd)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(60)
    work = copy_inputs(tenant.inputs, os.path.join(tenant.root, "rogue-%s" % os.urandom(4).hex()))
    proc = subprocess.Popen([os.path.join(args.bin_dir, "synergy-run"), "--hypervisor",
                             "127.0.0.1:%d" % listener.getsockname()[1], "--token-file", token_file, *extra,
                             tenant.engine],
                            cwd=work, stdout=stdout.write_end if stdout else subprocess.PIPE, stderr=subprocess.PIPE)
    if stdout:
        os.close(stdout.write_end)
    names = {value: key for key, value in FT.items()}
    try:
        conn, _ = listener.accept()
        conn.settimeout(60)
        peer = RawClient.__new__(RawClient)
        peer.sock = conn
        manifest = b""
        while True:
            # A tenant that ends on a lie may close with our next frame
            # unread, which the kernel reports as a reset rather than EOF.
            try:
                got = peer.read()
            except ConnectionResetError:
                got = None
            except socket.timeout:
                raise Failure("the tenant sent nothing for 60 s after %s" % (requests or ["its connection"])[-1])
            if got is None:
                break
            name, payload = names.get(got[0]), got[1]
            if requests is not None:
                requests.append(name)
            if name == "Hello":
                expect(payload == token, "the tenant presented another token")
                peer.send(frame("HelloAck"))
            elif name == "HvHello":
                peer.send(frame("HvWelcome", struct.pack("<I", PROTOCOL)))
            elif name == "HvSubmitEngine":
                manifest = payload
                peer.send(frame("HvEngineReady", struct.pack("<I", 1)))
            elif name == "HvEvaluate":
                peer.send(frame("HvEvaluated", struct.pack("<IQI", 0, struct.unpack("<IQ", payload)[1], 0)))
            elif name == "HvThereAreUpdates":
                peer.send(frame("HvFlag", struct.pack("<I", 0)))
            elif name == "HvGetState":
                peer.send(frame("HvStateWord", struct.pack("<Q", 0)))
            elif name in ("HvResume", "HvUpdate", "HvFinalize", "HvBatch", "HvSetState"):
                peer.send(frame("HvDone"))
            elif name == "HvOpenLoop":
                tasks = {task.decode(): int(i) for i, task in re.findall(rb'^task (\d+) "([^"]*)"', manifest, re.M)}
                answer = lie(tasks, struct.unpack_from("<IIQ", payload)[1])
                if answer is None:
                    conn.close()  # the hypervisor is lost mid-run
                    break
                if isinstance(answer, list):  # whole frames: progress reports, then the reply
                    for whole in answer:
                        peer.sock.sendall(whole)
                    continue
                peer.send(frame("HvOpenLooped", answer))
            else:
                raise Failure("the tenant sent %s" % name)
        out, err = proc.communicate(timeout=TIMEOUT)
        if stdout:
            out = stdout.output()
        return proc.returncode, out, err.decode(errors="replace")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        listener.close()


def display_words(engine_path, values):
    """The words an open-loop trap of lfsr.v's $display carries for each of
    `values`: its value arguments' addresses, from the manifest."""
    lines = open(engine_path, "rb").read().split(b"\n")
    start = next(k for k, line in enumerate(lines) if re.match(rb'task \d+ "\$display"', line))
    addresses = []
    for line in lines[start + 1:]:
        if not line.startswith(b"arg "):
            break
        fields = line.split()
        if fields[1] == b"value":
            addresses.append((int(fields[2]), 0 if fields[3] == b"-" else int(fields[3])))
    expect(len(addresses) == 1, "lfsr.v's $display has %d value arguments, expected 1" % len(addresses))
    (state, element), = addresses
    return [struct.pack("<IIIQ", state, element, 0, value) for value in values]


def check_run_ahead(args, root, tenant):
    """A run that stopped between two ticks, short of the ticks asked for,
    with output-only traps: the tenant sends its next HvOpenLoop, for the
    ticks left, before it services them (the hypervisor runs it meanwhile).
    Its stdout is a one-page pipe that is read only once that request came,
    so a tenant that services first blocks writing and never sends it. A
    run that ends while that request is unanswered (--time-limit) reads and
    drops its reply before HvFinalize."""
    count = 4000
    values = lfsr_values(count)
    words = display_words(tenant.engine, values)

    def traps(tasks):
        return b"".join(struct.pack("<III", tasks["$display"], 2 * k + 1, 1) + words[k] for k in range(count)) + \
            struct.pack("<III", 0, 2 * count, 0)

    asked, requests, pipe = [], [], SmallPipe()

    def lie(tasks, ticks):
        asked.append(ticks)
        if len(asked) == 1:
            return struct.pack("<II", 2 * count, count + 1) + traps(tasks) + struct.pack("<I", 0)
        pipe.drain()
        return struct.pack("<II", 1, 1) + struct.pack("<III", tasks["$finish"], 1, 0) + struct.pack("<I", 0)

    status, out, err = rogue_tenant(args, root, tenant, lie, stdout=pipe, requests=requests)
    expected = "".join("%04x\n" % value for value in values).encode()
    expect(status == 0 and out == expected and err == "",
           "a tenant serviced %d $display traps: status %d, %d bytes of stdout (expected %d), stderr %r" %
           (count, status, len(out), len(expected), err))
    expect(len(asked) == 2 and asked[1] == asked[0] - 2 * count,
           "the request sent ahead asked for %s ticks, expected %d" % (asked[1:], asked[0] - 2 * count))
    print("ok the next HvOpenLoop (%d ticks) came before the %d traps were serviced" % (asked[1], count))

    asked, requests = [], []

    def late_lie(tasks, ticks):
        asked.append(ticks)
        if len(asked) == 1:
            time.sleep(0.6)  # past the tenant's --time-limit, within its watchdog's second
            return struct.pack("<II", 2 * count, count + 1) + traps(tasks) + struct.pack("<I", 0)
        return struct.pack("<II", 10, 1) + struct.pack("<III", 0, 10, 0) + struct.pack("<I", 0)

    status, out, err = rogue_tenant(args, root, tenant, late_lie, extra=["--time-limit", "0.2"], requests=requests)
    open_loops = [k for k, name in enumerate(requests) if name == "HvOpenLoop"]
    expect(status == 134 and out == b"%04x\n" % values[0] and "time limit exceeded" in err and
           len(open_loops) == 2 and requests[open_loops[1] + 1:] == ["HvFinalize"],
           "a tenant out of time with a request sent ahead: status %d, stdout %r, stderr %r, requests %s" %
           (status, out[:100], err, requests[open_loops[0]:] if open_loops else requests))
    print("ok a tenant out of time read the reply sent ahead, then finalized: %s" % err.strip())


def case_rogue_hypervisor(args, root):
    tenant = Tenant(os.path.join(ROOT, "test", "verilog", "lfsr.v"), 0, root, args)

    def trap(task, ticks):
        return struct.pack("<III", task, ticks, 0)

    lies = [
        ("a run that went past $finish",
         lambda tasks, asked: struct.pack("<II", 4, 3) + trap(tasks["$display"], 1) + trap(tasks["$finish"], 1) +
         trap(0, 4) + struct.pack("<I", 0),
         lambda tasks: "the hypervisor ran past task %d, which is not output-only" % tasks["$finish"]),
        ("more ticks than asked for",
         lambda tasks, asked: struct.pack("<II", asked + 1, 1) + trap(0, asked + 1) + struct.pack("<I", 0),
         lambda tasks: "the hypervisor ran %d ticks of the %d asked for" % (tasks["asked"] + 1, tasks["asked"])),
        ("a trap count its bytes do not hold",
         lambda tasks, asked: struct.pack("<II", 2, 3) + trap(tasks["$display"], 1),
         lambda tasks: "malformed reply: HvOpenLooped is too short for trap 2 of 3"),
        ("a trap with words its bytes do not hold",
         lambda tasks, asked: struct.pack("<II", 2, 1) + struct.pack("<III", 0, 2, 5),
         lambda tasks: "malformed reply: HvOpenLooped is too short for the 5 words of trap 1"),
        ("nothing: it is lost mid-run",
         lambda tasks, asked: None,
         lambda tasks: "the hypervisor closed the connection"),
        ("a run's progress past the ticks asked for",
         lambda tasks, asked: [frame("HvRunProgress", struct.pack("<III", 1, 1, 0)),
                               frame("HvRunProgress", struct.pack("<III", 1, asked + 1, 0)),
                               frame("HvOpenLooped", struct.pack("<II", 1, 1) + trap(0, 1) + struct.pack("<I", 0))],
         lambda tasks: "malformed HvRunProgress: engine 1, %d ticks of the %d asked of engine 1" %
                       (tasks["asked"] + 1, tasks["asked"])),
        ("a run's progress for another engine",
         lambda tasks, asked: [frame("HvRunProgress", struct.pack("<III", 2, 1, 0))],
         lambda tasks: "malformed HvRunProgress: engine 2, 1 ticks of the %d asked of engine 1" % tasks["asked"]),
        ("an advance of a file it sent no window of",
         lambda tasks, asked: struct.pack("<II", 1, 1) + trap(0, 1) + struct.pack("<IIIII", 1, 0x80000003, 5, 0, 1),
         lambda tasks: "it read from descriptor 2147483651, which had no read-ahead window"),
    ]
    for what, lie, reason in lies:
        seen = {}

        def recording(tasks, asked, lie=lie):
            seen.update(tasks, asked=asked)
            return lie(tasks, asked)

        status, out, err = rogue_tenant(args, root, tenant, recording)
        expected = reason(seen) if seen else "(no HvOpenLoop was sent)"
        expect(status == 2 and out == b"" and expected in err and err.count("\n") == 1 and
               err.startswith("synergy-run: error: "),
               "a hypervisor sending %s: status %d, stdout %r, stderr %r (expected %r)" % (what, status, out, err,
                                                                                           expected))
        print("ok a hypervisor sending %s: %s" % (what, err.strip()))
    check_run_ahead(args, root, tenant)
    # No hypervisor at the address: the tenant ends before its first tick,
    # with one line and status 2, as for a hypervisor lost later.
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    address = "127.0.0.1:%d" % closed.getsockname()[1]
    closed.close()
    token_file = os.path.join(root, "unreachable-token")
    with open(os.open(token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as out:
        out.write(b"unreachable-" + os.urandom(8).hex().encode())
    proc = subprocess.run([os.path.join(args.bin_dir, "synergy-run"), "--hypervisor", address, "--token-file",
                           token_file, tenant.engine], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=TIMEOUT)
    err = proc.stderr.decode(errors="replace")
    expected = "synergy-run: error: %s: cannot reach the hypervisor at %s" % (tenant.engine, address)
    expect(proc.returncode == 2 and proc.stdout == b"" and err.startswith(expected) and err.count("\n") == 1,
           "a tenant without a hypervisor: status %d, stdout %r, stderr %r" % (proc.returncode, proc.stdout, err))
    print("ok no hypervisor at %s: %s" % (address, err.strip()))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--iverilog", default=shutil.which("iverilog") or "iverilog")
    parser.add_argument("--vvp", default=shutil.which("vvp") or "vvp")
    sub = parser.add_subparsers(dest="case", required=True)
    tenants = sub.add_parser("tenants")
    tenants.add_argument("--split", action="store_true")
    tenants.add_argument("--max-requests-per-trap", type=float, default=None,
                         help="fail when the engine requests per trapped task exceed this")
    tenants.add_argument("--min-traps", type=int, default=100)
    tenants.add_argument("--recombine-every", type=int, default=0,
                         help="start synergy-hv with this hook and expect at least --min-moves moves")
    tenants.add_argument("--min-moves", type=int, default=1)
    tenants.add_argument("--rounds", type=int, default=1, help="run the tenants this many times, one after another")
    tenants.add_argument("--group", type=int, default=0,
                         help="run the tenants this many at once, one group after another (default: all at once)")
    tenants.add_argument("specs", nargs="+")
    timeline = sub.add_parser("timeline")
    timeline.add_argument("--min-advances", type=int, default=5)
    timeline.add_argument("--solo-min-advances", type=int, default=0)
    timeline.add_argument("--victim", help="the design to run (default slow_tick_victim.v)")
    timeline.add_argument("--input", help="NAME:FROM:COPIES, a file in the run's directory made of copies of FROM")
    sub.add_parser("hostile")
    sub.add_parser("sandbox")
    sub.add_parser("rogue-hypervisor")
    migrate = sub.add_parser("migrate")
    migrate.add_argument("--victim", default=os.path.join(HERE, "swap_victim.v"),
                         help="a design that polls for the file \"go\" part way through its run")
    migrate.add_argument("--victim-data", help="a directory of files the victim reads")
    swap = sub.add_parser("swap")
    swap.add_argument("--victim", default=os.path.join(HERE, "swap_victim.v"),
                      help="the design held mid-run; it must poll for a file named go, as swap_victim.v does")
    swap.add_argument("--joiner", required=True, help="the SPEC of the tenant that joins")
    swap.add_argument("--recombine-every", type=int, default=5)
    swap.add_argument("--min-moves", type=int, default=10)
    args = parser.parse_args()
    args.bin_dir = os.path.abspath(args.bin_dir)
    root = tempfile.mkdtemp(prefix="synergy-hv-test-")
    try:
        {"tenants": case_tenants, "hostile": case_hostile, "migrate": case_migrate, "swap": case_swap,
         "rogue-hypervisor": case_rogue_hypervisor, "timeline": case_timeline, "sandbox": case_sandbox}[args.case](args, root)
    except Failure as failure:
        print("FAIL: %s" % failure)
        for name in sorted(os.listdir(root)):
            if name.startswith("synergy-hv") and name.endswith(".log"):
                print("%s:\n%s" % (name, open(os.path.join(root, name), errors="replace").read()))
        return 1
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
