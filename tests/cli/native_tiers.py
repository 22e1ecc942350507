#!/usr/bin/env python3
"""The native tier (interp/exec/native) as a user meets it:

1. Without a usable C++ compiler (THORN_CXX pointing nowhere), results are
   the interpreter's, after exactly one line on stderr saying so.
2. Tiered (the default) in the REPL: the first evaluations of a kernel are
   interpreted and return at once; the compiled kernel arrives from the
   background thread (a plan-log line) and later evaluations use it; every
   result is the same.
3. A second process finds the kernel in the disk cache.

  native_tiers.py THORN
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

THORN = sys.argv[1]
failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    failures += 0 if ok else 1


cache = tempfile.mkdtemp(prefix="thorn-native-test-")
base = dict(os.environ, THORN_GPU="0", THORN_CACHE_DIR=cache)
base.pop("THORN_NATIVE", None)
expr = "f64.sum (map (\\i -> f64.sin (f64.i64 i) * 1.25) (iota 300000))"

# 1. No compiler.
with tempfile.NamedTemporaryFile("w", suffix=".fut", delete=False) as f:
    f.write("entry main (n: i64): f64 = f64.sum (map (\\i -> f64.cos (f64.i64 i)) (iota n))\n")
    prog = f.name
ref = subprocess.run([THORN, "run", prog], input="100000i64\n", capture_output=True, text=True,
                     env=dict(base, THORN_NATIVE="0"))
r = subprocess.run([THORN, "run", prog], input="100000i64\n", capture_output=True, text=True,
                   env=dict(base, THORN_NATIVE="sync", THORN_CXX="/nonexistent/c++"))
check(r.returncode == 0 and r.stdout == ref.stdout, f"no compiler: the interpreter's result ({r.stdout.strip()})")
lines = r.stderr.splitlines()
check(len(lines) == 1 and "native host kernels are off" in lines[0], f"... after one line on stderr ({r.stderr!r})")

# 2. Tiered REPL.
p = subprocess.Popen([THORN, "repl"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     text=True, env=dict(base, THORN_LOG_PLAN="1"))
os.set_blocking(p.stderr.fileno(), False)
results, log = [], ""


def evaluate():
    p.stdin.write(expr + "\n")
    p.stdin.flush()
    results.append(p.stdout.readline().strip())


def read_log():
    global log
    try:
        log += p.stderr.read() or ""
    except (BlockingIOError, TypeError):
        pass


evaluate()
evaluate()  # the second run makes the kernel hot: queued for the background compiler
read_log()
deadline = time.monotonic() + 60
while "compiled in" not in log and time.monotonic() < deadline:
    time.sleep(0.05)
    read_log()
check("compiled in" in log, "tiered: the hot kernel was compiled in the background")
for _ in range(3):
    evaluate()
p.stdin.close()
p.wait()
check(len(results) == 5 and len(set(results)) == 1, f"tiered: every evaluation gives the same result ({results})")

# 3. Disk cache.
r = subprocess.run([THORN, "repl"], input=(expr + "\n") * 3, capture_output=True, text=True,
                   env=dict(base, THORN_LOG_PLAN="1", THORN_NATIVE="sync"))
check("(disk cache)" in r.stderr, "a second process loads the kernel from the disk cache")
check(r.stdout.split()[0] == results[0], "... with the same result")

os.unlink(prog)
shutil.rmtree(cache, ignore_errors=True)
sys.exit(1 if failures else 0)
