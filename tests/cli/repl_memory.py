#!/usr/bin/env python3
"""Flat memory and resource errors in a long REPL session (issue 15).

1. Drives N evaluations through `thorn repl` (standard input, not a
   terminal): expressions `reduce (+) 0 (map (\\y -> y * K) (iota 1000))`
   with a different K each time, mixed with `let x = ...` rebinding a few
   names. The peak RSS after N evaluations may exceed the peak after the
   first thousand by at most SLACK_MB.
2. Allocations that cannot be satisfied are located run-time errors naming
   the size and what is available, after which the session goes on.

usage: repl_memory.py THORN [N] [SLACK_MB]
"""
import fcntl
import os
import re
import subprocess
import sys
import tempfile
import time

THORN = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
SLACK_MB = float(sys.argv[3]) if len(sys.argv) > 3 else 4.0
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def session(lines, env_extra=None):
    """Runs the REPL over `lines`; returns (stdout, stderr, peak RSS in MB, seconds).

    The peak is the REPL's own VmHWM, read from /proc while it waits for more
    input after the last line (a marker expression tells when it got there).
    Not ru_maxrss from wait4: Linux keeps that high-water mark across exec,
    so it would include this Python process's memory at the fork, which
    grows with the workload."""
    env = dict(os.environ, THORN_GPU="0")
    env.update(env_extra or {})
    marker = "31415926535i64"
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        # The REPL shares these files' offsets with us: without O_APPEND, a
        # write of its landing while our polling below has seeked back to 0
        # would overwrite earlier results (a few of 90,000 went missing
        # under load).
        for f in (out, err):
            fcntl.fcntl(f.fileno(), fcntl.F_SETFL, fcntl.fcntl(f.fileno(), fcntl.F_GETFL) | os.O_APPEND)
        t0 = time.monotonic()
        p = subprocess.Popen([THORN, "repl"], stdin=subprocess.PIPE, stdout=out, stderr=err, env=env)
        p.stdin.write(("\n".join(lines + [marker]) + "\n").encode())
        p.stdin.flush()
        peak = None
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and p.poll() is None:
            out.seek(0)
            if out.read().rstrip().endswith(b"31415926535"):
                with open(f"/proc/{p.pid}/status") as st:
                    for line in st:
                        if line.startswith("VmHWM:"):
                            peak = int(line.split()[1]) / 1024.0
                break
            time.sleep(0.05)
        p.stdin.close()
        p.wait()
        took = time.monotonic() - t0
        out.seek(0)
        err.seek(0)
        text = out.read().decode()
        text = text[: text.rfind("31415926535")].rstrip() + "\n"
        return text, err.read().decode(), peak if peak is not None else float("inf"), took


def workload(n):
    lines = []
    for k in range(n):
        if k % 10 == 9:
            lines.append(f"let x{k % 3} = iota {100 + k % 7} |> map (+ {k}i64) |> reduce (+) 0")
        else:
            lines.append(f"reduce (+) 0 (map (\\y -> y * {k}i64) (iota 1000))")
    return lines


# 1. Flat memory.
small = max(1000, N // 100)
out1, err1, peak1, t1 = session(workload(small))
outN, errN, peakN, tN = session(workload(N))
print(f"     {small} evaluations: peak RSS {peak1:.1f} MB ({t1:.1f} s); "
      f"{N}: peak RSS {peakN:.1f} MB ({tN:.1f} s)", flush=True)
check(err1 == "" and errN == "", f"no errors in the long session ({errN[:300]!r})")
results = [l for l in outN.splitlines() if l.strip()]
expected = sum(1 for l in workload(N) if not l.startswith("let"))
check(len(results) == expected, f"every expression printed a result ({len(results)} of {expected})")
last_k = max(k for k in range(N) if k % 10 != 9)
check(results[-1].strip() in (str(499500 * last_k), f"{499500 * last_k}i64"), f"the last result is right ({results[-1]!r})")
check(peakN - peak1 <= SLACK_MB,
      f"peak RSS after {N} evaluations within {SLACK_MB} MB of the peak after {small} (+{peakN - peak1:.1f} MB)")

# 2. Resource errors with a location; the session goes on.
out, err, _, _ = session(["let keep = 7i32", "replicate 1000000000000 0i64", "keep + 1"])
print("     " + err.strip().replace("\n", "\n     "), flush=True)
check(re.search(r"\[1\]:1:1.*out of memory: an array of 1000000000000 i64 needs 8000000000000 bytes", err) is not None,
      "replicate 1e12: a located out-of-memory error naming the size")
check("available" in err and "internal error" not in err, "... and what is available, not an internal error")
check(out.split() == ["8"] or out.split() == ["8i32"], f"the session goes on ({out!r})")

out, err, _, _ = session(["let keep = 7i32", "map (+1) (iota 100000000)", "keep + 1"],
                         {"THORN_MEMORY_LIMIT": "64M"})
print("     " + err.strip().replace("\n", "\n     "), flush=True)
check("out of memory" in err and "THORN_MEMORY_LIMIT" in err and "[1]:1:" in err,
      "THORN_MEMORY_LIMIT: a located out-of-memory error")
check(out.split() in (["8"], ["8i32"]), f"the session goes on ({out!r})")

sys.exit(1 if failures else 0)
