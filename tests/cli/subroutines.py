#!/usr/bin/env python3
"""Kernel-IR subroutines (interp/flatten/lower_subroutine.cpp) as a user meets
them, on tests/programs/subroutines.fut (calls at several sites, nested, in
loops and branches, tuple and record results):

1. The plan listing shows the calls and the subroutines (`call s`, `sub s`).
2. Results are identical, byte for byte, with every call inlined
   (THORN_SUBROUTINES=0) and with subroutines, interpreted and native.
3. The native tier compiles the step with subroutines (no "stays interpreted").

  subroutines.py THORN PROGRAM
"""
import os
import shutil
import subprocess
import sys
import tempfile

THORN, PROG = sys.argv[1], sys.argv[2]
failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    failures += 0 if ok else 1


cache = tempfile.mkdtemp(prefix="thorn-subroutines-test-")
base = dict(os.environ, THORN_GPU="0", THORN_CACHE_DIR=cache, THORN_HOST_MIN_WORK="0")
args = "[1.0, 2.5, -3.0, 0.125, 7.5, 0.5, -1.25] [3i64, 0i64, 7i64, 2i64, 4i64, 9i64, 1i64]\n"


def run(**env):
    return subprocess.run([THORN, "run", "--backend", "host", "--log", "plan", "-e", "main", PROG], input=args,
                          capture_output=True, text=True, env=dict(base, **env))


inlined = run(THORN_SUBROUTINES="0", THORN_NATIVE="0")
interp = run(THORN_NATIVE="0")
native = run(THORN_NATIVE="sync")
check(inlined.returncode == 0 and inlined.stdout.strip() != "", f"inlined run ({inlined.stderr[-300:]})")
check("call s" not in inlined.stderr, "THORN_SUBROUTINES=0 inlines every call")
check("call s" in interp.stderr and "sub s" in interp.stderr, "the listing shows calls and subroutines")
check(interp.stdout == inlined.stdout, f"interpreted with subroutines == inlined ({interp.stdout.strip()})")
check(native.stdout == inlined.stdout, f"native with subroutines == inlined ({native.stdout.strip()})")
check("compiled in" in native.stderr and "stays interpreted" not in native.stderr,
      "the native tier compiled the step with subroutines")
shutil.rmtree(cache, ignore_errors=True)
sys.exit(1 if failures else 0)
