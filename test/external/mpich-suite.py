#!/usr/bin/env python3
#===- mpich-suite.py - run MPICH's test/mpi under Synergy and OpenMPI -----===#
#
# Builds and runs the programs of MPICH's own MPI test suite (the test/mpi
# folder of https://github.com/pmodels/mpich, fetched by the user: this script
# fetches nothing and is not run by ctest or CI) twice: as granules with
# synergy-cc / synergy-run -np N, and natively with OpenMPI's mpicc /
# mpirun -np N --oversubscribe. It reads each directory's testlist for the
# process counts, arguments and environment of every run, applies the suite's
# own pass rule (a line " No Errors", no stray output, status 0; or the
# testlist's resultTest), and prints per directory how many programs built,
# passed, failed, timed out, or were refused at link time, with the MPI names
# that were missing, as a table and as JSON. The counts say how much of the
# MPI-3.1 surface real programs use that Synergy serves, measured against a
# peer run on the same machine.
#
# The suite's harness (util/mtest.c and its kin, dtpools) is compiled into one
# archive per implementation; the headers that MPICH's configure would write
# (mpitestconf.h, mtest_mpix.h) are generated into the work directory. Nothing
# of MPICH is copied into this repository.
#
# Usage:
#   test/external/mpich-suite.py --suite /path/to/mpich/test/mpi \
#       --bin build/bin --work /tmp/mpich-work [--dirs attr,coll] [--only RE]
#       [--impl synergy,openmpi] [--timeout 60] [--json counts.json]
#
#===----------------------------------------------------------------------===#

import argparse
import collections
import json
import os
import re
import shutil
import signal
import subprocess
import sys

DEFAULT_DIRS = ['attr', 'basic', 'coll', 'comm', 'datatype', 'errhan', 'group',
                'info', 'init', 'io', 'pt2pt', 'rma', 'topo']

# What MPICH's configure would find on a Linux host with either MPI. Strict
# mode keeps the tests to the MPI standard (no MPIX_ extensions).
TEST_CONFIG = """\
#define HAVE_STRING_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STDARG_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_LONG_LONG 1
#define HAVE_LONG_LONG_INT 1
#define HAVE_LONG_DOUBLE 1
#define HAVE__BOOL 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_MPI_INIT_THREAD 1
#define HAVE_MPI_TYPE_CREATE_STRUCT 1
#define HAVE_MPI2_COMBINERS 1
#define USE_STRICT_MPI 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
"""

HARNESS_SOURCES = ['util/mtest.c', 'util/mtest_common.c', 'util/dtypes.c',
                   'util/run_mpitests.c']
SINGLE_HARNESS_SOURCES = ['util/mtest_single.c']

# The programs under threads/ start threads through the harness's
# util/mtest_thread.c (Makefile_threads.mtest), in place of the other
# programs' util/mtest_single.c. They and their harness are
# built with pthreads, which for a granule also means shared memory with
# atomics: its objects cannot be linked with the single-threaded harness.
THREAD_HARNESS_SOURCES = ['util/mtest_thread.c']
THREAD_FLAGS = ['-DMTEST_USE_THREAD', '-pthread']


def uses_threads(directory):
  return directory.split('/')[0] == 'threads'

SYNERGY_REFUSAL = re.compile(r'(P?MPI_\w+) is not supported by the Synergy runtime')
UNDECLARED = re.compile(
    r"(?:undeclared function|undeclared identifier|unknown type name) '(P?MPIX?_\w+)'")
UNDEFINED_NATIVE = re.compile(r"undefined reference to `(P?MPIX?_\w+)'")


class Implementation:
  def __init__(self, name, cc, ar, run_prefix):
    self.name = name
    self.cc = cc
    self.ar = ar
    self.run_prefix = run_prefix


def implementations(args):
  bin_dir = os.path.abspath(args.bin)
  impls = {
      'synergy': Implementation('synergy', [os.path.join(bin_dir, 'synergy-cc')],
                                shutil.which('llvm-ar-19') or 'llvm-ar',
                                # Each program runs in its own work directory
                                # (run_program), which the io tests create
                                # their files in: a granule sees it only when
                                # granted.
                                lambda np: [os.path.join(bin_dir, 'synergy-run'), '-np', str(np),
                                            '--dir', '.']),
      # mpirun refuses to start as root unless told: every run would fail.
      'openmpi': Implementation('openmpi', ['mpicc'], 'ar',
                                lambda np: ['mpirun', '-np', str(np), '--oversubscribe'] +
                                (['--allow-run-as-root'] if os.geteuid() == 0 else [])),
  }
  return [impls[n] for n in args.impl.split(',')]


def makefile_variables(path):
  """The `name_SOURCES` and `name_CPPFLAGS` assignments of a Makefile.am,
  continuation lines joined, plus noinst_PROGRAMS."""
  variables = {}
  if not os.path.exists(path):
    return variables
  text = open(path).read().replace('\\\n', ' ')
  for line in text.splitlines():
    m = re.match(r'\s*([A-Za-z0-9_]+)\s*\+?=\s*(.*)', line)
    if m:
      key, value = m.group(1), m.group(2).split()
      variables[key] = variables.get(key, []) + value if '+=' in line else value
  return variables


class TestRun:
  def __init__(self, directory, program, np, args, env, result_test, timeout):
    self.directory = directory
    self.program = program
    self.np = np
    self.args = args
    self.env = env
    self.result_test = result_test
    self.timeout = timeout


def read_testlist(suite, directory, default_timeout):
  """The runs a directory's testlist asks for, skipping what runtests skips by
  default (xfail, strict=false, GPU, and memory-hungry tests). A directory
  without a testlist runs each of its programs once on 2 processes."""
  path = os.path.join(suite, directory, 'testlist')
  if not os.path.exists(path):
    path += '.in'
  runs = []
  if not os.path.exists(path):
    programs = makefile_variables(os.path.join(suite, directory, 'Makefile.am'))
    for program in programs.get('noinst_PROGRAMS', []):
      runs.append(TestRun(directory, program, 2, [], {}, '', default_timeout))
    return runs
  for line in open(path):
    line = re.sub(r'#.*', '', line)
    line = re.sub(r'@\w+@', '', line).strip()
    if not line or line.startswith('!'):
      continue
    fields = line.split()
    program = fields[0]
    if os.path.isdir(os.path.join(suite, directory, program)):
      continue
    np = int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else 2
    options = collections.defaultdict(list)
    for field in fields[2:]:
      key, _, value = field.partition('=')
      options[key].append(value)
    if options.get('xfail') or options.get('hasgpu') or options.get('mem') or \
       options.get('mpiexecarg') or [v for v in options.get('strict', []) if v.lower() == 'false']:
      continue
    env = dict(v.partition('=')[::2] for v in options.get('env', []))
    limit = options.get('timeLimit', [''])[0]
    timeout = min(int(limit), default_timeout * 3) if limit.isdigit() else default_timeout
    runs.append(TestRun(directory, program, np, options.get('arg', []), env,
                        options.get('resultTest', [''])[0], timeout))
  return runs


def write_config(work):
  include = os.path.join(work, 'include')
  os.makedirs(include, exist_ok=True)
  with open(os.path.join(include, 'mpitestconf.h'), 'w') as out:
    out.write(TEST_CONFIG)
  open(os.path.join(include, 'mtest_mpix.h'), 'w').close()
  # dtpools includes "../dtpoolsconf.h" from its include folder: found here
  # through -I include/dtpools.
  os.makedirs(os.path.join(include, 'dtpools'), exist_ok=True)
  open(os.path.join(include, 'dtpoolsconf.h'), 'w').close()
  return include


def compile_flags(suite, include):
  return ['-I' + include, '-I' + os.path.join(include, 'dtpools'),
          '-I' + os.path.join(suite, 'include'),
          '-I' + os.path.join(suite, 'dtpools', 'include'), '-w', '-O1']


def run_quiet(command, cwd=None, timeout=600):
  result = subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, errors='replace', timeout=timeout)
  return result.returncode, result.stdout


def build_harness(impl, suite, include, work, threads):
  """One static archive of the harness and dtpools for `impl`, with the
  thread part and built with pthreads when `threads`."""
  out = os.path.join(work, impl.name, 'harness-threads' if threads else 'harness')
  os.makedirs(out, exist_ok=True)
  sources = HARNESS_SOURCES + (THREAD_HARNESS_SOURCES if threads else SINGLE_HARNESS_SOURCES)
  sources += sorted(
      os.path.join('dtpools', 'src', f)
      for f in os.listdir(os.path.join(suite, 'dtpools', 'src')) if f.endswith('.c'))
  objects = []
  for source in sources:
    obj = os.path.join(out, source.replace('/', '_') + '.o')
    status, log = run_quiet(impl.cc + compile_flags(suite, include) +
                            (THREAD_FLAGS if threads else []) +
                            ['-c', os.path.join(suite, source), '-o', obj])
    if status != 0:
      # The programs that need this part fail to link and are counted so.
      names = sorted(set(UNDECLARED.findall(log)))
      print('mpich-suite: note: %s: harness file %s does not compile%s' % (
          impl.name, source, (' (missing ' + ', '.join(names) + ')') if names else ':\n' + log[-1500:]),
          file=sys.stderr)
      continue
    objects.append(obj)
  archive = os.path.join(out, 'libmtest.a')
  if os.path.exists(archive):
    os.unlink(archive)
  status, log = run_quiet([impl.ar, 'rcs', archive] + objects)
  if status != 0:
    sys.exit('mpich-suite: error: %s archive: %s' % (impl.name, log))
  return archive


def build_program(impl, suite, include, archive, work, directory, program):
  """Builds one program; returns (status, missing names, log)."""
  variables = makefile_variables(os.path.join(suite, directory, 'Makefile.am'))
  key = re.sub(r'[^A-Za-z0-9_]', '_', program)
  sources = variables.get(key + '_SOURCES', [program + '.c'])
  cppflags = [f for f in variables.get(key + '_CPPFLAGS', []) if not f.startswith('$(')]
  out_dir = os.path.join(work, impl.name, directory)
  os.makedirs(out_dir, exist_ok=True)
  output = os.path.join(out_dir, program + ('.wasm' if impl.name == 'synergy' else ''))
  if uses_threads(directory):
    cppflags = THREAD_FLAGS + cppflags
  command = impl.cc + compile_flags(suite, include) + cppflags + \
      [os.path.join(suite, directory, s) for s in sources if s.endswith('.c')] + \
      [archive, '-lm', '-o', output]
  try:
    status, log = run_quiet(command, timeout=900)
  except subprocess.TimeoutExpired:
    return 'build-failed', [], 'build timed out'
  if status == 0:
    return 'built', [], log
  refused = sorted(set(SYNERGY_REFUSAL.findall(log)))
  if refused:
    return 'refused', refused, log
  return 'build-failed', sorted(set(UNDECLARED.findall(log) + UNDEFINED_NATIVE.findall(log))), log


def passed(result_test, output, status):
  """MPICH's runtests verdicts (TestNormal and its variants)."""
  lines = output.splitlines()
  no_errors = any(re.match(r'^\s*No [Ee]rrors\s*$', l) for l in lines)
  skipped = any(re.match(r'^\s*Test Skipped\s*$', l) for l in lines)
  stray = [l for l in lines if not re.match(r'^\s*(No [Ee]rrors|Test Skipped)\s*$', l)]
  if result_test == 'TestStatus':
    return status != 0
  if result_test == 'TestErrFatal':
    return status != 0
  if not (no_errors or skipped):
    return False
  if result_test in ('', 'TestNormal', 'TestAllowWarnings', 'TestStatusNoErrors') and stray:
    return False
  return status == 0 or result_test == 'TestStatusNoErrors'


def run_program(impl, run, binary, work):
  command = ['nice', '-n', '10'] + impl.run_prefix(run.np) + [binary] + run.args
  env = dict(os.environ)
  env.update(run.env)
  process = subprocess.Popen(command, cwd=os.path.join(work, impl.name, run.directory),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                             text=True, errors='replace', start_new_session=True)
  try:
    output, _ = process.communicate(timeout=run.timeout)
  except subprocess.TimeoutExpired:
    os.killpg(process.pid, signal.SIGKILL)
    process.communicate()
    return 'timeout', ''
  return ('passed' if passed(run.result_test, output, process.returncode) else 'failed'), output


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
  parser.add_argument('--suite', required=True, help="MPICH's test/mpi directory")
  parser.add_argument('--bin', default='build/bin', help='the folder with synergy-cc and synergy-run')
  parser.add_argument('--work', required=True, help='scratch directory for builds and logs')
  parser.add_argument('--dirs', default=','.join(DEFAULT_DIRS))
  parser.add_argument('--only', default='', help='regex: run only programs whose dir/name matches')
  parser.add_argument('--impl', default='synergy,openmpi')
  parser.add_argument('--timeout', type=int, default=60, help='seconds per run (default 60)')
  parser.add_argument('--build-only', action='store_true', help='build, do not run')
  parser.add_argument('--json', help='also write the counts to this file')
  args = parser.parse_args()

  suite = os.path.abspath(args.suite)
  work = os.path.abspath(args.work)
  if not os.path.exists(os.path.join(suite, 'util', 'mtest.c')):
    sys.exit('mpich-suite: error: %s is not MPICH test/mpi (no util/mtest.c)' % suite)
  include = write_config(work)
  only = re.compile(args.only) if args.only else None

  counts = {}
  missing = {}
  details = []
  for impl in implementations(args):
    archives = {}
    missing[impl.name] = collections.Counter()
    for directory in args.dirs.split(','):
      threads = uses_threads(directory)
      if threads not in archives:
        archives[threads] = build_harness(impl, suite, include, work, threads)
      archive = archives[threads]
      tally = collections.Counter()
      built = {}
      for run in read_testlist(suite, directory, args.timeout):
        name = directory + '/' + run.program
        if only and not only.search(name):
          continue
        if run.program not in built:
          built[run.program] = build_program(impl, suite, include, archive, work, directory,
                                             run.program)
          state, names, log = built[run.program]
          tally['programs'] += 1
          tally[state] += 1
          missing[impl.name].update(names)
          if state != 'built':
            print('%-8s %-40s %s %s' % (impl.name, name, state, ' '.join(names)), flush=True)
            details.append({'impl': impl.name, 'test': name, 'state': state, 'missing': names,
                            'log': log[-2000:]})
        state, names, _ = built[run.program]
        tally['runs'] += 1
        if state != 'built' or args.build_only:
          continue
        binary = os.path.join(work, impl.name, directory,
                              run.program + ('.wasm' if impl.name == 'synergy' else ''))
        verdict, output = run_program(impl, run, binary, work)
        tally[verdict] += 1
        print('%-8s %-40s np=%-2d %s' % (impl.name, name + ' ' + ' '.join(run.args), run.np,
                                         verdict), flush=True)
        if verdict != 'passed':
          details.append({'impl': impl.name, 'test': name, 'np': run.np, 'args': run.args,
                          'state': verdict, 'log': output[-2000:]})
      counts.setdefault(directory, {})[impl.name] = dict(tally)
      print('%-8s %-40s counts %s' % (impl.name, directory, json.dumps(dict(tally))), flush=True)

  columns = ['programs', 'built', 'refused', 'build-failed', 'runs', 'passed', 'failed', 'timeout']
  print('\n%-10s %-8s ' % ('dir', 'impl') + ' '.join('%12s' % c for c in columns))
  totals = collections.defaultdict(collections.Counter)
  for directory, per_impl in counts.items():
    for impl_name, tally in per_impl.items():
      totals[impl_name].update(tally)
      print('%-10s %-8s ' % (directory, impl_name) +
            ' '.join('%12d' % tally.get(c, 0) for c in columns))
  for impl_name, tally in totals.items():
    print('%-10s %-8s ' % ('TOTAL', impl_name) + ' '.join('%12d' % tally.get(c, 0) for c in columns))
  for impl_name, names in missing.items():
    if names:
      print('\nmissing names (%s, programs that need each): %s' % (
          impl_name, ', '.join('%s %d' % kv for kv in names.most_common())))
  report = {'counts': counts, 'totals': {k: dict(v) for k, v in totals.items()},
            'missing': {k: dict(v) for k, v in missing.items()}, 'details': details}
  if args.json:
    with open(args.json, 'w') as out:
      json.dump(report, out, indent=1)


if __name__ == '__main__':
  main()
