#!/usr/bin/env python3
"""synergy-run --register-binfmt / --unregister-binfmt, end to end.

Builds echo_args.c with synergy-cc, then, in a new user and mount namespace
that mounts a binfmt_misc instance of its own (Linux 6.7 and later give each
user namespace one), checks that:
  - with no binfmt_misc mounted, registering fails with a one-line reason
    (checked only where the host has none mounted, since the new mount
    namespace starts with the host's mounts);
  - registering writes an entry for the wasm header naming this
    synergy-run, and `./echo_args.wasm a 'b c'` then prints what
    `synergy-run echo_args.wasm a 'b c'` prints, with the same status;
  - registering again replaces the entry; a disabled binfmt_misc and a
    caller who is not root (uid 65534, mapped into the namespace) are
    refused with their reasons;
  - unregistering removes it (the file no longer executes), and
    unregistering again fails with a reason.
The namespace maps root and uid 65534 to themselves, which needs root
outside it. The host's own binfmt_misc registrations are never touched.
Where the namespace or the mount is not allowed, the test prints why and
exits 77.

  run_directly.py --bin-dir build/bin --work-dir DIR
"""
import argparse
import ctypes
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77
CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
NOBODY = 65534
ENTRY = "synergy-wasm"
WASM_MAGIC_HEX = "0061736d01000000"


def run(command, **kwargs):
    return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=300, **kwargs)


class Checks:
    def __init__(self):
        self.failures = 0

    def expect(self, what, condition, detail=""):
        print("%s: %s%s" % ("ok" if condition else "FAIL", what,
                            "" if condition else "\n  " + detail.replace("\n", "\n  ")))
        if not condition:
            self.failures += 1


def one_line_error(result, needle):
    lines = result.stderr.splitlines()
    return (result.returncode == 1 and len(lines) == 1 and
            lines[0].startswith("synergy-run: error: ") and needle in lines[0])


def describe(result):
    return "status %s\nstdout: %r\nstderr: %r" % (result.returncode, result.stdout, result.stderr)


def binfmt_mounted():
    with open("/proc/self/mountinfo") as mountinfo:
        return any(" - binfmt_misc " in line for line in mountinfo)


def inside(options):
    """Runs in the new namespaces, as their root."""
    checks = Checks()
    synergy_run = os.path.realpath(os.path.join(options.bin_dir, "synergy-run"))
    program = os.path.join(options.work_dir, "echo_args.wasm")
    args = ["a", "b c"]
    expected = run([synergy_run, program] + args)
    checks.expect("synergy-run echo_args.wasm prints its arguments",
                  (expected.returncode, expected.stdout) == (2, "arg 1: [a]\narg 2: [b c]\n"),
                  describe(expected))

    if binfmt_mounted():
        print("note: the host's binfmt_misc is visible here; the not-mounted case is not checked")
    else:
        result = run([synergy_run, "--register-binfmt"])
        checks.expect("registering without binfmt_misc mounted is refused",
                      one_line_error(result, "binfmt_misc is not mounted"), describe(result))

    mount = os.path.join(options.work_dir, "binfmt_misc")
    os.makedirs(mount, exist_ok=True)
    mounted = run(["mount", "-t", "binfmt_misc", "binfmt_misc", mount])
    if mounted.returncode != 0:
        print("SKIP: cannot mount binfmt_misc in a user namespace here (Linux 6.7 or later "
              "allows it): %s" % mounted.stderr.strip())
        return SKIP
    try:
        result = run([synergy_run, "--register-binfmt"])
        checks.expect("register", result.returncode == 0 and
                      result.stdout == "synergy-run: registered binfmt_misc entry %s in %s: "
                      "wasm files run through %s\n" % (ENTRY, mount, synergy_run),
                      describe(result))
        entry_path = os.path.join(mount, ENTRY)
        entry = open(entry_path).read() if os.path.exists(entry_path) else ""
        checks.expect("the entry names the wasm header and this synergy-run",
                      entry.splitlines()[:2] == ["enabled", "interpreter " + synergy_run] and
                      "magic " + WASM_MAGIC_HEX in entry.splitlines(), entry)

        direct = run(["./echo_args.wasm"] + args, cwd=options.work_dir)
        checks.expect("./echo_args.wasm runs as synergy-run runs it",
                      (direct.returncode, direct.stdout) == (expected.returncode, expected.stdout)
                      and direct.stderr == "",
                      "direct: %s\nthrough synergy-run: %s" % (describe(direct),
                                                               describe(expected)))

        result = run([synergy_run, "--register-binfmt"])
        checks.expect("registering again replaces the entry",
                      result.returncode == 0 and result.stdout.startswith(
                          "synergy-run: replaced binfmt_misc entry %s" % ENTRY), describe(result))
        direct = run([program] + args)
        checks.expect("the replaced entry still runs it",
                      (direct.returncode, direct.stdout) == (expected.returncode, expected.stdout),
                      describe(direct))

        def become_nobody():
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
        result = run([synergy_run, "--register-binfmt"], preexec_fn=become_nobody)
        checks.expect("a caller who is not root is refused",
                      one_line_error(result, "needs root"), describe(result))

        with open(os.path.join(mount, "status"), "w") as status:
            status.write("0")
        result = run([synergy_run, "--register-binfmt"])
        checks.expect("a disabled binfmt_misc is refused",
                      one_line_error(result, "binfmt_misc is disabled"), describe(result))
        with open(os.path.join(mount, "status"), "w") as status:
            status.write("1")

        result = run([synergy_run, "--unregister-binfmt"])
        checks.expect("unregister", result.returncode == 0 and
                      result.stdout == "synergy-run: removed binfmt_misc entry %s from %s\n" %
                      (ENTRY, mount) and not os.path.exists(entry_path), describe(result))
        try:
            direct = run([program] + args)
            checks.expect("no longer executable after unregistering", False, describe(direct))
        except OSError as error:
            checks.expect("no longer executable after unregistering (%s)" % error.strerror,
                          error.errno == 8)  # ENOEXEC
        result = run([synergy_run, "--unregister-binfmt"])
        checks.expect("unregistering again is refused",
                      one_line_error(result, "no binfmt_misc entry %s is registered" % ENTRY),
                      describe(result))
    finally:
        run(["umount", mount])
    return 1 if checks.failures else 0


def in_namespaces(body):
    """Runs body() in a child in a new user and mount namespace that maps
    root and NOBODY to themselves; returns its exit status, or SKIP."""
    libc = ctypes.CDLL(None, use_errno=True)
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        os.close(ready_r)
        os.close(go_w)
        if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0:
            os.write(ready_w, os.strerror(ctypes.get_errno()).encode())
            os._exit(SKIP)
        os.write(ready_w, b"ready")
        if os.read(go_r, 2) != b"go":
            os._exit(SKIP)
        code = body()
        sys.stdout.flush()
        os._exit(code)
    os.close(ready_w)
    os.close(go_r)
    answer = os.read(ready_r, 200).decode(errors="replace")
    try:
        if answer != "ready":
            raise OSError("unshare: " + answer)
        # Mapping more than the writer's own id needs root outside.
        for name in ("uid_map", "gid_map"):
            with open("/proc/%d/%s" % (pid, name), "w") as mapping:
                mapping.write("0 0 1\n%d %d 1\n" % (NOBODY, NOBODY))
        os.write(go_w, b"go")
    except OSError as error:
        print("SKIP: cannot create a user and mount namespace mapping root and uid %d here: %s"
              % (NOBODY, error))
        os.write(go_w, b"no")
        os.waitpid(pid, 0)
        return SKIP
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def outside(options):
    shutil.rmtree(options.work_dir, ignore_errors=True)
    os.makedirs(options.work_dir)
    # uid 65534 runs synergy-run from here, and the granule's AOT cache too.
    os.chmod(options.work_dir, 0o755)
    program = os.path.join(options.work_dir, "echo_args.wasm")
    build = run([os.path.join(options.bin_dir, "synergy-cc"), "-O2",
                 os.path.join(HERE, "echo_args.c"), "-o", program])
    if build.returncode != 0:
        print("FAIL: building echo_args.c:\n" + build.stdout + build.stderr)
        return 1
    if not os.access(program, os.X_OK):
        print("FAIL: synergy-cc's output is not executable")
        return 1
    return in_namespaces(lambda: inside(options))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--work-dir", required=True)
    options = parser.parse_args()
    options.bin_dir = os.path.abspath(options.bin_dir)
    options.work_dir = os.path.abspath(options.work_dir)
    sys.exit(outside(options))


if __name__ == "__main__":
    main()
